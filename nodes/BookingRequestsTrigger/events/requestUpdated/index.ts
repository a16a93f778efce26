/**
 * Request Updated: the watched fields of one of the newest booking requests changed since this trigger
 * last read it (changes.ts has the rules). Not a window of the list: the newest "Watch the Newest"
 * requests are re-read in rotation (rotation.ts) and compared with what is remembered of each
 * (records.ts). Event time: `updated_at`, else the poll's now.
 */
import type { IDataObject } from 'n8n-workflow';

import type { BookingRequest } from '../../../shared/types';
import { timestampMs } from '../../../shared/utils';
import type { TriggerEvent } from '../../model/event';
import type { WindowMemory } from '../../windows/window';
import { sortTime } from '../../model/pages';
import { requestItem } from '../../output/itemFields';
import { SAMPLES_PER_EVENT } from '../../output/samples';
import type { EventKind, WatchedInput } from '../kind';
import { detectUpdates, updatedEventId } from './changes';

/** Whether the request window (after this poll) has passed a request: its creation is handled. */
function passedBy(window: WindowMemory | undefined): (request: BookingRequest) => boolean {
	if (!window) return () => true;
	return (request) => {
		const created = sortTime('requests', request);
		return created === null || created <= window.floor || window.done.has(created, request.id);
	};
}

function watch(input: WatchedInput): { events: TriggerEvent[]; forgotten: number } {
	const { memory, settings } = input;
	if (!settings.updates) return { events: [], forgotten: 0 };
	const starting = memory.from === undefined;
	const { changes, forgotten } = detectUpdates({
		memory,
		pages: input.pages,
		passed: passedBy(input.requests),
		since: memory.from ?? input.now,
		now: input.now,
		baseline: starting,
		settings: settings.updates,
		form: settings.requestsForm,
	});
	if (starting) memory.from = input.now;
	const events = changes.map(
		(change): TriggerEvent => ({
			event: 'request.updated',
			eventId: change.eventId,
			at: change.at,
			request: change.request,
			changedFields: change.changedFields,
			previous: change.previous,
		}),
	);
	return { events, forgotten };
}

/** The requests changed last (by `updated_at`); what changed is not known from one read. */
function samples(first: { requests?: BookingRequest[]; now: number }): TriggerEvent[] {
	const requests = first.requests ?? [];
	const changed = requests
		.filter((request) => timestampMs(request.updated_at) !== null)
		.sort((a, b) => (timestampMs(b.updated_at) as number) - (timestampMs(a.updated_at) as number));
	return (changed.length > 0 ? changed : requests).slice(0, SAMPLES_PER_EVENT).map((request): TriggerEvent => {
		const at = timestampMs(request.updated_at);
		return { event: 'request.updated', eventId: updatedEventId(request.id, at ?? 'sample'), at: at ?? first.now, request, changedFields: [], previous: null };
	});
}

export const requestUpdated: EventKind = {
	value: 'requestUpdated',
	name: 'request.updated',
	letter: 'u',
	option: {
		name: 'Request Updated',
		description: "A booking request's status, lead status, internal notes, completion or contact details changed (among the newest requests: see the options)",
		startsFor: 'each change to a booking request',
		subtitle: 'Request Updated',
	},
	// The request window tells which requests are new (New Request), so that a creation is never an update.
	windows: () => ['requests'],
	judges: [],
	watch,
	item: (event, options, formNames): IDataObject => ({
		...requestItem(event, options, formNames),
		changed_fields: event.changedFields ?? [],
		previous: event.previous ?? null,
	}),
	samples,
};
