/**
 * The trigger's output items: one item per event, oldest first. What an item looks like is decided
 * here and only here (README "Trigger" and "Output shapes").
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { BookingRequest } from '../shared/types';
import type { TriggerEvent } from './diff';
import { fetchRequest } from './fetch';

/** Builds the output items; with "Include Booking Request", 1 Get request per completed session not listed in this poll. */
export async function toItems(
	ctx: IPollFunctions,
	events: TriggerEvent[],
	includeRequest: boolean,
	listed: BookingRequest[] | undefined,
): Promise<INodeExecutionData[]> {
	const known = new Map((listed ?? []).map((request) => [request.id, request]));
	const items: INodeExecutionData[] = [];
	for (const event of events) {
		if (event.session) {
			const json: IDataObject = { ...event.session, event: event.event, event_id: event.eventId };
			if (event.event === 'session.completed') {
				json.recovered = event.recovered === true;
				if (includeRequest) {
					const id = String(event.session.request_id);
					const request = known.get(id) ?? (await fetchRequest(ctx, id));
					if (request) known.set(id, request);
					json.request = (request as IDataObject | null) ?? null;
				}
			}
			items.push({ json });
		} else if (event.request) {
			items.push({ json: { ...event.request, event: event.event, event_id: event.eventId } });
		}
	}
	return items;
}
