/**
 * The trigger's output items: one item per event, oldest first. What an item looks like is decided
 * here and only here (README "Trigger" and "Output shapes").
 *
 * Interface with the engine (fetch.ts): events come with the booking request of a completed session
 * already attached as `event.request` (null when the API answered 404) when the node asked for it, read
 * within the poll budget; nothing here calls the API.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { ApiContext } from '../shared/transport/request';
import type { TriggerEvent } from './diff';

export interface ItemOptions {
	/** "Include Booking Request": completed sessions carry `request` (null on 404). */
	includeRequest: boolean;
}

/** Builds the output items. */
// `ctx` and `io` are the interface the output shaping grows into (form names read within the deadline).
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export async function toItems(_ctx: ApiContext, events: TriggerEvent[], options: ItemOptions, _io: { deadline?: number } = {}): Promise<INodeExecutionData[]> {
	const items: INodeExecutionData[] = [];
	for (const event of events) {
		if (event.session) {
			const json: IDataObject = { ...event.session, event: event.event, event_id: event.eventId };
			if (event.event === 'session.completed') {
				json.recovered = event.recovered === true;
				if (options.includeRequest) json.request = (event.request as IDataObject | null | undefined) ?? null;
			}
			items.push({ json });
		} else if (event.request) {
			items.push({ json: { ...event.request, event: event.event, event_id: event.eventId } });
		}
	}
	return items;
}
