/**
 * Request Updated's part of a poll (issue 26): its records decoded once, the changes detected on the
 * pages the poll read, the records encoded once. Runs after the other windows' next state is known,
 * because a request is remembered only once the New Request part has passed it.
 */
import type { BookingRequest } from '../../../../nodes/shared/types';
import { timestampMs } from '../../../../nodes/shared/utils';
import type { TriggerEvent, TriggerSettings } from '../diff';
import { KeySet } from '../memory';
import type { WatchedReads } from '../planner/watched';
import type { WindowState } from '../state';
import type { PageObservation } from '../windows';
import { detectUpdates } from './detect';
import type { UpdatesState } from './records';
import { UpdatesMemory } from './records';

export interface UpdatesPoll {
	state: UpdatesState;
	events: TriggerEvent[];
	/** Requests forgotten because they left the watched range. */
	forgotten: number;
}

/** Whether the requests window (after this poll) has passed a request: its creation is handled. */
function passedBy(window: WindowState | undefined): (request: BookingRequest) => boolean {
	if (!window) return () => true;
	const done = KeySet.decode(window.done);
	return (request) => {
		const created = timestampMs(request.created_at);
		return created === null || created <= window.floor || done.has(created, request.id);
	};
}

export function watchUpdates(input: {
	previous: UpdatesState | undefined;
	/** Where the planner's rotation got to (undefined: it did not move). */
	watched: WatchedReads | undefined;
	pages: PageObservation[];
	/** The requests window after this poll. */
	requests: WindowState | undefined;
	now: number;
	settings: TriggerSettings;
}): UpdatesPoll | undefined {
	const { settings } = input;
	if (!settings.events.requestUpdated || !settings.updates) return undefined;
	const memory = UpdatesMemory.decode(input.previous);
	const starting = memory.from === undefined;
	const from = memory.from ?? input.now;
	const { changes, forgotten } = detectUpdates({
		memory,
		pages: input.pages,
		passed: passedBy(input.requests),
		since: from,
		now: input.now,
		baseline: starting,
		settings: settings.updates,
		form: settings.requestsForm,
	});
	if (input.watched) memory.cursor = input.watched.cursor;
	const events: TriggerEvent[] = changes.map((change) => ({
		event: 'request.updated',
		eventId: change.eventId,
		at: change.at,
		request: change.request,
		changedFields: change.changedFields,
		previous: change.previous,
	}));
	return { state: memory.encode(from), events, forgotten };
}

/** The poll's events and Request Updated's, one list by event time (each already in that order). */
export function mergeByTime(events: TriggerEvent[], updates: TriggerEvent[]): TriggerEvent[] {
	if (updates.length === 0) return events;
	const merged: TriggerEvent[] = [];
	let j = 0;
	for (const event of events) {
		while (j < updates.length && updates[j].at < event.at) merged.push(updates[j++]);
		merged.push(event);
	}
	return merged.concat(updates.slice(j));
}
