/**
 * The poll's output items: one per event, oldest first, each shaped by its event (events/*.ts `item`).
 * With Simplify, form names are read for them (formNames.ts: at most one call, none when cached and
 * fresh; within the deadline, else `form_name: null`).
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { ApiContext } from '../../shared/transport/request';
import { kindOf } from '../events';
import type { EventBase } from '../model/event';
import type { FormNames, ItemOptions } from '../output/itemFields';
import { formNamesFor } from './formNames';

/** The items of `events` (with their requests attached). Pure. */
export function shapeItems(events: EventBase[], options: ItemOptions, formNames: FormNames): INodeExecutionData[] {
	return events.map((event) => ({ json: kindOf(event.event).item(event, options, formNames) }));
}

/** Distinct form ids of the events that become items. */
export function formIdsOf(events: EventBase[]): string[] {
	const ids = new Set<string>();
	for (const event of events) {
		const formId = (event.session ?? event.request)?.form_id;
		if (typeof formId === 'string' && formId !== '') ids.add(formId);
	}
	return [...ids];
}

/** Builds the output items. Simplified: at most one call for form names, none when cached. */
export async function toItems(ctx: ApiContext, events: EventBase[], options: ItemOptions, io: { deadline?: number } = {}): Promise<INodeExecutionData[]> {
	const formNames: FormNames = options.simplify && events.length > 0 ? await formNamesFor(ctx, formIdsOf(events), io) : new Map();
	return shapeItems(events, options, formNames);
}
