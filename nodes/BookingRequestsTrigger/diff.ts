/**
 * The trigger's logic as a pure function: (previous state, fetched pages, now, settings) →
 * (events, next state). No I/O, no clock: `now` is the API server's time, passed in.
 *
 * Rules (see README "Trigger"):
 * - A session's activity time is `updated_at`, or `created_at` when `updated_at` is null. A session
 *   with neither is never reported abandoned (its idle time is unknown); its completion is reported.
 * - Lists are read newest first down to a floor (the cursor minus the edge window, and the activity
 *   time of watched sessions that are due); items at or above the previous floor that are not in
 *   the remembered edge keys are new.
 * - Abandoned: request_id null and no activity for the delay, judged on a copy of the session read in
 *   this poll (so a session that completed or moved is never reported on stale data). Once per
 *   session, or once per idle period with "Fire Again If Reabandoned".
 * - Completed: request_id set on a session that is new since the last poll, or that the trigger was
 *   watching or had seen abandoned. Reported once per session (remembered `completed`).
 * - New request: created_at at or above the previous floor and not remembered at the edge.
 * - Baseline (no previous state): nothing is reported; sessions not idle for the delay yet are watched.
 * - Sessions are watched whenever the session list is read, also when only Session Completed is
 *   selected, so `recovered` always means "this trigger saw the customer abandon".
 */

import type { BookingRequest, BookingSession } from '../shared/types';
import type { ListCursor, SessionsState, TriggerState } from './state';
import { EDGE_WINDOW_MS, FUTURE_TOLERANCE_MS, STATE_VERSION, edgeKey, pruneEdge, pruneSessions, timeOf } from './state';

export type EventName = 'session.abandoned' | 'session.completed' | 'request.created';

export interface TriggerSettings {
	events: { sessionAbandoned: boolean; sessionCompleted: boolean; requestCreated: boolean };
	abandonedAfterMs: number;
	fireAgainIfReabandoned: boolean;
	onlyRecovered: boolean;
	/** Identifies events + form filter + API target; a different value resets the state. */
	fingerprint: string;
}

/** One list as read in this poll: pages concatenated in the order they were read. */
export interface FetchedList<T> {
	items: T[];
	/** The last page of the list was read (nothing lies below what was read). */
	exhausted: boolean;
	/** Lowest sort timestamp among the items read (null when none had one). */
	lowest: number | null;
}

export interface Fetched {
	/** Server time of this poll (first answer's `Date` header). */
	now: number;
	/** Server clock minus n8n's clock, when measured in this poll. */
	skewMs?: number;
	sessions?: FetchedList<BookingSession>;
	requests?: FetchedList<BookingRequest>;
}

export interface TriggerEvent {
	event: EventName;
	/** Stable id: the same occurrence always gets the same id, so downstream can deduplicate. */
	eventId: string;
	/** When it happened (server ms), for ordering. */
	at: number;
	session?: BookingSession;
	request?: BookingRequest;
	/** session.completed: whether this trigger had seen the session abandoned before. */
	recovered?: boolean;
}

export interface DiffResult {
	events: TriggerEvent[];
	state: TriggerState;
	/** True when this poll took a baseline (first activation, or after a reset). */
	baseline: boolean;
}

export function listsFor(settings: TriggerSettings): { sessions: boolean; requests: boolean } {
	return {
		sessions: settings.events.sessionAbandoned || settings.events.sessionCompleted,
		requests: settings.events.requestCreated,
	};
}


/** Activity time of a session: updated_at, else created_at, else null. */
export function activityOf(session: BookingSession): number | null {
	return timeOf(session.updated_at) ?? timeOf(session.created_at);
}

/** Position of a session in the list (ordered by updated_at): null when the server's order does not say. */
export function sessionSortTime(session: BookingSession): number | null {
	return timeOf(session.updated_at);
}

export function requestSortTime(request: BookingRequest): number | null {
	return timeOf(request.created_at);
}

// ---------------------------------------------------------------------------------------------
// How deep to read

/**
 * The lowest sort timestamp the sessions list must be read down to: the fetcher stops at the first
 * item whose `updated_at` is below it. `top` is the highest activity time on the first page.
 */
export function sessionsFloor(previous: TriggerState | undefined, settings: TriggerSettings, now: number, top: number | null): number {
	const state = previous?.sessions;
	if (!state) {
		// Baseline: everything that is not idle for the delay yet, and the whole edge window under the cursor.
		const cursor = top === null ? now : Math.min(top, now + FUTURE_TOLERANCE_MS);
		return Math.min(now - settings.abandonedAfterMs, cursor - EDGE_WINDOW_MS);
	}
	let floor = state.cursor === null ? -Infinity : state.cursor - EDGE_WINDOW_MS;
	// A watched session is only judged on a copy read in this poll: read down to it when it is due.
	for (const at of Object.values(state.pending)) {
		if (at + settings.abandonedAfterMs <= now) floor = Math.min(floor, at);
	}
	return floor;
}

export function requestsFloor(previous: TriggerState | undefined, top: number | null): number {
	const state = previous?.requests;
	if (!state) return top === null ? Infinity : top - EDGE_WINDOW_MS;
	return state.cursor === null ? -Infinity : state.cursor - EDGE_WINDOW_MS;
}

// ---------------------------------------------------------------------------------------------
// Helpers

/**
 * One copy per id. A moving list can return an item twice (it shifted down a page); the copy with the
 * higher activity time wins, and on a tie the one read later (fresher).
 */
function latestCopies<T extends { id: string }>(items: T[], timeOfItem: (item: T) => number | null): T[] {
	const byId = new Map<string, T>();
	for (const item of items) {
		if (typeof item?.id !== 'string') continue;
		const known = byId.get(item.id);
		if (!known || (timeOfItem(item) ?? -Infinity) >= (timeOfItem(known) ?? -Infinity)) {
			byId.delete(item.id);
			byId.set(item.id, item);
		}
	}
	return [...byId.values()];
}

/** New cursor: the highest trusted timestamp seen (a timestamp far in the future never moves it). */
function advance(previous: number | null, times: Array<number | null>, now: number): number | null {
	let cursor = previous;
	for (const at of times) {
		if (at === null || at > now + FUTURE_TOLERANCE_MS) continue;
		if (cursor === null || at > cursor) cursor = at;
	}
	return cursor;
}

function isNewFn(previous: ListCursor | undefined) {
	const floor = previous?.cursor === null || previous?.cursor === undefined ? -Infinity : previous.cursor - EDGE_WINDOW_MS;
	const edge = new Set(previous?.edge ?? []);
	return (id: string, at: number | null) => at !== null && at >= floor && !edge.has(edgeKey(id, at));
}

function covered(list: FetchedList<unknown>, at: number): boolean {
	return list.exhausted || (list.lowest !== null && list.lowest < at);
}

// ---------------------------------------------------------------------------------------------
// Sessions

function diffSessions(
	previous: SessionsState | undefined,
	fetched: FetchedList<BookingSession>,
	now: number,
	settings: TriggerSettings,
	events: TriggerEvent[],
): SessionsState {
	const baseline = previous === undefined;
	const delay = settings.abandonedAfterMs;
	const isNew = isNewFn(previous);
	const pending: Record<string, number> = { ...(previous?.pending ?? {}) };
	const abandoned: Record<string, [number, number]> = { ...(previous?.abandoned ?? {}) };
	const completed: Record<string, number> = { ...(previous?.completed ?? {}) };
	const sessions = latestCopies(fetched.items, activityOf);
	const seen = new Set<string>();

	const reportAbandoned = (session: BookingSession, at: number) => {
		const before = abandoned[session.id];
		abandoned[session.id] = [at, now];
		delete pending[session.id];
		if (settings.events.sessionAbandoned && (!before || settings.fireAgainIfReabandoned)) {
			events.push({ event: 'session.abandoned', eventId: `session.abandoned:${session.id}:${at}`, at: at + delay, session });
		}
	};

	for (const session of sessions) {
		const id = session.id;
		const at = activityOf(session);
		seen.add(id);

		if (session.request_id !== null && session.request_id !== undefined && session.request_id !== '') {
			// Completed (or a placeholder session). Reported once per session.
			if (completed[id] !== undefined || baseline) {
				completed[id] = now;
				continue;
			}
			const watched = pending[id] !== undefined || abandoned[id] !== undefined;
			// `at === null`: no timestamp says whether it is new; the `completed` memory keeps it to once.
			if (!watched && !isNew(id, at) && at !== null) continue; // older than the last poll: history
			const recovered = abandoned[id] !== undefined;
			if (settings.events.sessionCompleted && (!settings.onlyRecovered || recovered)) {
				events.push({
					event: 'session.completed',
					eventId: `session.completed:${id}:${session.request_id}`,
					at: at ?? now,
					session,
					recovered,
				});
			}
			completed[id] = now;
			delete pending[id];
			delete abandoned[id];
			continue;
		}

		// Still open (request_id null).
		if (at === null) continue; // no activity time: idle time unknown, never reported
		if (baseline) {
			// Active when the trigger was activated: watched, so it can still be reported later.
			if (at + delay > now) pending[id] = at;
			continue;
		}
		let judge = false;
		if (isNew(id, at)) {
			const before = abandoned[id];
			// A customer who comes back after being reported abandoned: watched again only with the option.
			if (before && (!settings.fireAgainIfReabandoned || before[0] === at)) continue;
			judge = true;
		} else if (pending[id] !== undefined && at >= pending[id]) {
			judge = true;
		}
		if (!judge) continue;
		if (at + delay <= now) reportAbandoned(session, at);
		else pending[id] = at;
	}

	// Watched sessions still due here were not in the pages read although the pages reached their
	// activity time: they changed (and will show up at the top as new) or are gone. Not reported.
	for (const [id, at] of Object.entries(pending)) {
		if (at + delay <= now && (seen.has(id) || covered(fetched, at))) delete pending[id];
	}

	const cursor = advance(previous?.cursor ?? null, sessions.map(activityOf), now);
	const edge = pruneEdge(
		[
			...(previous?.edge ?? []),
			...sessions.flatMap((session) => {
				const at = activityOf(session);
				return at === null ? [] : [edgeKey(session.id, at)];
			}),
		],
		cursor,
	);
	return pruneSessions({ cursor, edge, pending, abandoned, completed }, now);
}

// ---------------------------------------------------------------------------------------------
// Requests

function diffRequests(
	previous: ListCursor | undefined,
	fetched: FetchedList<BookingRequest>,
	now: number,
	events: TriggerEvent[],
): ListCursor {
	const requests = latestCopies(fetched.items, requestSortTime);
	if (previous) {
		const isNew = isNewFn(previous);
		for (const request of requests) {
			const at = requestSortTime(request);
			// created_at is always set per the contract; a request without one cannot be placed and is skipped.
			if (isNew(request.id, at)) {
				events.push({ event: 'request.created', eventId: `request.created:${request.id}`, at: at as number, request });
			}
		}
	}
	const cursor = advance(previous?.cursor ?? null, requests.map(requestSortTime), now);
	const edge = pruneEdge(
		[
			...(previous?.edge ?? []),
			...requests.flatMap((request) => {
				const at = requestSortTime(request);
				return at === null ? [] : [edgeKey(request.id, at)];
			}),
		],
		cursor,
	);
	return { cursor, edge };
}

// ---------------------------------------------------------------------------------------------

const EVENT_ORDER: Record<EventName, number> = { 'session.abandoned': 0, 'session.completed': 1, 'request.created': 2 };

/**
 * The diff. `previous` must already be checked against the settings (readState): undefined means
 * "no usable state", and this poll takes the baseline.
 */
export function diff(previous: TriggerState | undefined, fetched: Fetched, settings: TriggerSettings): DiffResult {
	const baseline = previous === undefined;
	const lists = listsFor(settings);
	const events: TriggerEvent[] = [];
	const now = fetched.now;

	const state: TriggerState = {
		v: STATE_VERSION,
		fp: settings.fingerprint,
		since: previous?.since ?? now,
		polledAt: now,
		skewMs: fetched.skewMs ?? previous?.skewMs ?? 0,
	};
	if (lists.sessions) {
		const list = fetched.sessions ?? { items: [], exhausted: false, lowest: null };
		state.sessions = fetched.sessions
			? diffSessions(previous?.sessions, list, now, settings, events)
			: (previous?.sessions ?? { cursor: null, edge: [], pending: {}, abandoned: {}, completed: {} });
	}
	if (lists.requests) {
		state.requests = fetched.requests
			? diffRequests(previous?.requests, fetched.requests, now, events)
			: (previous?.requests ?? { cursor: null, edge: [] });
	}

	events.sort((a, b) => a.at - b.at || EVENT_ORDER[a.event] - EVENT_ORDER[b.event] || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
	return { events: baseline ? [] : events, state, baseline };
}
