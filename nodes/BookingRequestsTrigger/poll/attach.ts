/**
 * Booking requests attached to completed sessions, when their items need them (output/itemFields.ts
 * `needsRequest`): from the request pages the poll read, then from more pages of the request list when
 * many are wanted (shared/requestJoin.ts), else one Get request each (never twice per poll), within the
 * poll's budget. When it runs out, the events stop before the first one that could not be completed
 * (the rest come, in order, in the next poll).
 */
import type { WantedRequest } from '../../shared/requestJoin';
import { joinRequests } from '../../shared/requestJoin';
import { attachReserve } from '../../shared/requestLookup';
import type { PageRead } from '../../shared/pages';
import { requestIdOf } from '../../shared/output/session';
import type { BookingRequest, BookingSession } from '../../shared/types';
import { attachingWindows, sessionToAttach } from '../events';
import type { Decision } from '../events/context';
import type { EventBase } from '../model/event';
import type { Handled } from '../rules/core';
import type { TriggerMemory } from '../state/decoded';
import type { PageObservation } from '../model/pages';
import { requestsRead, sortTime } from '../model/pages';
import type { Budget } from './budget';
import type { PageSource } from './source';

/**
 * Calls a poll's planner always keeps for reading the lists: a window deep in a backlog takes a few to
 * locate and read, so with a smaller budget nothing is reserved (the requests are then read with what
 * is left, as many as fit).
 */
const MIN_PLANNER_CALLS = 8;

export type NeedsRequest = (session: BookingSession) => boolean;

/** The calls of this poll so far, by kind. */
export interface PollCalls {
	sessions: number;
	requests: number;
	getRequest: number;
}

/** The completed session of an event that needs its booking request attached, else undefined. */
function sessionNeedingRequest(event: EventBase | undefined, needs: NeedsRequest): BookingSession | undefined {
	const session = event && sessionToAttach(event);
	return session && needs(session) ? session : undefined;
}

/**
 * Of the sessions read so far in this poll above the floor of the windows whose events attach booking
 * requests (the completions window's: `seen`), how many
 * need a booking request not in the request pages read (`needing`): the estimate behind the reserve
 * (page 1 of the session list shows whether the newest completions need them).
 */
function requestsToAttach(pages: PageObservation[], floor: number, needs: NeedsRequest): { needing: number; seen: number } {
	const listed = new Set(requestsRead(pages).map((item) => item.id));
	const wanted = new Set<string>();
	const seen = new Set<string>();
	for (const page of pages) {
		if (page.list !== 'sessions') continue;
		for (const item of page.items as BookingSession[]) {
			if ((sortTime('sessions', item) ?? Infinity) <= floor) continue;
			seen.add(item.id);
			const id = requestIdOf(item);
			if (id !== null && !listed.has(id) && needs(item)) wanted.add(id);
		}
	}
	return { needing: wanted.size, seen: seen.size };
}

/**
 * Calls a poll keeps for attaching booking requests, so that the session pages it reads are ones it
 * can also report. Fixed once the first session page is read (from the completions on it: the planner
 * shares its pages from a budget that must not shrink under it), and never more than leaves the
 * planner MIN_PLANNER_CALLS: the windows must move in every poll.
 */
export function requestReserve(budget: Budget, pages: PageObservation[], previous: TriggerMemory | undefined, needs: NeedsRequest | undefined): () => number {
	const pollCalls = budget.left();
	const cap = Math.max(0, Math.min(Math.floor(pollCalls / 2), pollCalls - MIN_PLANNER_CALLS));
	const floor = Math.min(...attachingWindows().map((name) => previous?.windows[name]?.floor ?? -Infinity));
	let reserved: number | undefined;
	return () => {
		if (reserved !== undefined || !needs || cap === 0) return reserved ?? 0;
		if (!pages.some((page) => page.list === 'sessions')) return 0;
		const { needing, seen } = requestsToAttach(pages, floor, needs);
		reserved = Math.min(cap, attachReserve(needing, seen, pollCalls));
		return reserved;
	};
}

/** The booking requests the events need that the poll has not read yet, in event order. */
function wantedRequests(events: Array<EventBase | undefined>, listed: BookingRequest[], needs: NeedsRequest): WantedRequest[] {
	const have = new Set(listed.map((request) => request.id));
	const wanted = new Map<string, WantedRequest>();
	for (const event of events) {
		const session = sessionNeedingRequest(event, needs);
		if (!session) continue;
		const id = requestIdOf(session) as string;
		if (!have.has(id) && !wanted.has(id)) wanted.set(id, { id, at: sortTime('sessions', session) });
	}
	return [...wanted.values()];
}

/**
 * The one attach loop: each event whose item `needs` its session's booking request gets it from
 * `listed`, else from `fetch` (once per id). Returns how many events (a prefix) were handled, and the
 * requests by event id: it stops at the first one `fetch` cannot serve (undefined: no budget left).
 */
async function attachEach(
	events: Array<EventBase | undefined>,
	listed: BookingRequest[],
	needs: NeedsRequest,
	fetch: (id: string) => Promise<BookingRequest | null | undefined>,
): Promise<Handled & { requests: Map<string, BookingRequest | null> }> {
	const known = new Map<string, BookingRequest | null>(listed.map((request) => [request.id, request]));
	const requests = new Map<string, BookingRequest | null>();
	for (const [index, event] of events.entries()) {
		const session = sessionNeedingRequest(event, needs);
		if (!event || !session) continue;
		const id = requestIdOf(session) as string;
		if (!known.has(id)) {
			const request = await fetch(id);
			if (request === undefined) return { count: index, requests };
			known.set(id, request);
		}
		requests.set(event.eventId, known.get(id) ?? null);
	}
	return { count: events.length, requests };
}

/** Reads the booking requests the decisions' events need; returns how many decisions (a prefix) can be handled in this poll, and the requests by event id. */
export async function attachRequests(
	source: PageSource,
	decisions: Decision[],
	io: { pages: PageObservation[]; budget: Budget; needs: NeedsRequest | undefined; calls: PollCalls },
): Promise<Handled> {
	const { needs, budget, calls } = io;
	if (!needs) return { count: decisions.length };
	const events = decisions.map((decision) => decision.event);
	const requestPages = io.pages.flatMap((page) => (page.list === 'requests' ? [{ ...page, items: page.items as BookingRequest[] }] : []));
	const listed = requestPages.flatMap((page) => page.items);
	const reader = {
		known: requestPages,
		callsLeft: () => budget.left(),
		read: async (page: number) => {
			const read = await source.readPage('requests', page);
			if (!read) return undefined;
			budget.answered();
			calls.requests++;
			return read as PageRead<BookingRequest>;
		},
	};
	const getRequest = async (id: string) => {
		if (budget.left() < 1) return undefined;
		const request = await source.fetchRequest(id);
		if (request === undefined) return undefined;
		budget.answered();
		calls.getRequest++;
		return request;
	};
	// Pages of the request list oldest first (the events' order), then a Get for the rest, within the budget.
	const joined = await joinRequests(wantedRequests(events, listed, needs), reader, getRequest, { oldestFirst: true });
	// The join served the requests in event order: the events handled stop at the first it could not serve.
	return await attachEach(events, listed, needs, async (id) => (joined.has(id) ? joined.get(id) : undefined));
}

/** The sample events ("Fetch Test Event") with the booking requests their items need: from the listed requests or one Get request each. */
export async function withSampleRequests<E extends EventBase>(source: PageSource, events: E[], listed: BookingRequest[] | undefined, needs: NeedsRequest = () => true): Promise<E[]> {
	const { requests } = await attachEach(events, listed ?? [], needs, async (id) => (await source.fetchRequest(id)) ?? null);
	return events.map((event) => (requests.has(event.eventId) ? { ...event, request: requests.get(event.eventId) } : event));
}
