/**
 * The trigger's I/O: a thin loop that asks the planner (planner.ts) which page to read, reads it
 * through the shared page reader (rate limiter, retries, contract checks), and hands the pages to the
 * pure rules (diff.ts). Every call carries the poll's deadline: when the budget is spent the loop stops,
 * the events that are complete are emitted and the state says where to go on.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { API_PATHS, MAX_PER_PAGE, MIN_GAP_MS, SAFETY_MARGIN_MS } from '../shared/constants';
import type { WantedRequest } from '../shared/requestJoin';
import { joinRequests } from '../shared/requestJoin';
import { attachReserve } from '../shared/requestLookup';
import { isDeadlineReached, MIN_ATTEMPT_MS } from '../shared/transport/deadline';
import { asNodeError } from '../shared/transport/errors';
import type { PageRead } from '../shared/transport/pageReader';
import { malformed, readPage, repeatedPageProblem } from '../shared/transport/pageReader';
import { getRequestById } from '../shared/transport/requestById';
import type { BookingRequest, BookingSession } from '../shared/types';
import { isRecord, timestampMs } from '../shared/utils';
import { isUuid } from '../shared/validation';
import type { Decision, TriggerEvent, TriggerSettings } from './diff';
import { baselineState, decide, evaluate, listsFor, memoriesOf, nextState } from './diff';
import { BookedMemory } from './customers';
import { Planner, pollNow } from './planner';
import type { SessionsState, TriggerState } from './state';
import { serverNow } from './state';
import { mergeByTime, watchUpdates } from './updates/poll';
import { refOf } from './workspace';
import type { ListItem, ListName, PageObservation } from './windows';

/**
 * Calls a poll's planner always keeps for reading the lists: a window deep in a backlog takes a few to
 * locate and read, so with a smaller budget nothing is reserved (the requests are then read with what
 * is left, as many as fit).
 */
const MIN_PLANNER_CALLS = 8;

/** The poll's "now": fixed by the first answer of the poll (its `Date` header). */
export class PollClock {
	private value: number | undefined;
	private skew: number | undefined;

	constructor(
		private readonly previousSkewMs: number | undefined,
		private readonly localNow: () => number = Date.now,
	) {}

	observe(serverDate: number | undefined): void {
		if (this.value !== undefined) return;
		const local = this.localNow();
		this.value = serverNow(serverDate, local, this.previousSkewMs);
		if (serverDate !== undefined) this.skew = serverDate - local;
	}

	get now(): number {
		if (this.value === undefined) this.observe(undefined);
		return this.value as number;
	}

	get skewMs(): number | undefined {
		return this.skew;
	}
}

const PATHS: Record<ListName, string> = { sessions: API_PATHS.sessions, requests: API_PATHS.requests };

/**
 * Calls the poll can still afford before `deadline`, from the pace measured in this poll (the mean gap
 * between answers; before two answers, the contract's 1 call per second).
 */
export class CallBudget {
	private readonly answers: number[] = [];

	constructor(
		readonly deadline: number,
		private readonly clock: () => number = Date.now,
	) {}

	answered(): void {
		this.answers.push(this.clock());
	}

	get calls(): number {
		return this.answers.length;
	}

	get perCallMs(): number {
		const n = this.answers.length;
		if (n < 2) return MIN_GAP_MS + SAFETY_MARGIN_MS;
		return Math.max(1, (this.answers[n - 1] - this.answers[0]) / (n - 1));
	}

	left(): number {
		// A call is only sent while MIN_ATTEMPT_MS remain (deadline.ts). Headroom: the pace varies (another
		// workflow on the same key, a slow answer): 10% of what remains, but never more than one call's
		// time — with n8n's 36 s budget 10% is about 3 calls of 27, pages a backlog's poll then never
		// reads. A pace slower than measured only cuts the poll at its deadline (the next poll goes on).
		const remaining = this.deadline - MIN_ATTEMPT_MS - this.clock();
		if (remaining < 0) return 0;
		const perCall = this.perCallMs;
		return Math.max(1, Math.floor((remaining - Math.min(0.1 * remaining, perCall)) / perCall));
	}
}

/** Where pages and booking requests come from: the API (below), or the in-memory model of the tests. */
export interface PageSource {
	/** One validated page; undefined when the poll's budget is spent (nothing was sent). */
	readPage(list: ListName, page: number): Promise<PageRead<ListItem> | undefined>;
	/** A booking request by id; null when it does not exist (404); undefined when the budget is spent. */
	fetchRequest(id: string): Promise<BookingRequest | null | undefined>;
}

/** The state with a booking request id of its workspace (workspace.ts), when one is known. */
function withRef(state: TriggerState, pages: PageObservation[], previous: string | undefined): TriggerState {
	const ref = refOf(pages, previous);
	return ref === undefined ? state : { ...state, ref };
}

/** Calls the poll can still afford. */
export interface Budget {
	left(): number;
	answered(): void;
}

export interface PollOptions {
	budget: Budget;
	/** Whether a completed session's event needs its booking request (from request list pages or Get request). */
	needsRequest?: (session: BookingSession) => boolean;
	localNow?: () => number;
	/**
	 * Customer memories to keep through a new baseline (a Form change, issue 29): who booked, who was
	 * reminded, which sessions were seen abandoned are about customers, not about a form.
	 */
	carry?: CustomerMemories;
}

export type CustomerMemories = Pick<SessionsState, 'booked' | 'reminded' | 'seen' | 'shared'>;

/** A baseline's sessions with the carried customer memories in. */
function withCarried(state: TriggerState, carry: CustomerMemories | undefined): TriggerState {
	if (!carry || !state.sessions) return state;
	const booked = BookedMemory.decode(carry.booked);
	booked.merge(BookedMemory.decode(state.sessions.booked));
	const packed = booked.encode();
	const sessions: SessionsState = { ...state.sessions, seen: carry.seen };
	delete sessions.booked;
	delete sessions.reminded;
	if (Object.keys(packed).length > 0) sessions.booked = packed;
	if (carry.reminded) sessions.reminded = carry.reminded;
	if (carry.shared) {
		// Both packed by day as concatenated codes: a day's codes are the two strings together.
		const shared: Record<string, string> = { ...carry.shared };
		for (const [day, codes] of Object.entries(sessions.shared ?? {})) shared[day] = (shared[day] ?? '') + codes;
		sessions.shared = shared;
	}
	return { ...state, sessions };
}

export interface PollResult {
	events: TriggerEvent[];
	/** The next state; undefined when nothing could be read (the stored state stays as it is). */
	state: TriggerState | undefined;
	baseline: boolean;
	now: number;
	/** Not everything could be read or emitted within the budget: the next poll goes on. */
	cut: boolean;
	/** Sessions dropped from the seen memory because of its bound. */
	forgotten: number;
	/** Customer keys / customers dropped from the customer memories because of their bounds. */
	customersForgotten: { booked: number; reminded: number };
	/** Session Abandoned events not emitted for an idle open session, by reason (handled decisions). */
	skipped: { booked: number; cooldown: number; noEmail: number };
	/** Request Updated: changes reported, and requests forgotten because they left the watched range. */
	updates: { changed: number; forgotten: number };
	calls: { sessions: number; requests: number; getRequest: number };
}

/**
 * Get request, for completed sessions. A request that no longer exists (404) gives null so one
 * missing request does not block the trigger; any other failure fails the poll (and nothing advances,
 * so the events come again on the next poll).
 */
export async function fetchRequest(ctx: IPollFunctions, id: string, options: { deadline?: number } = {}): Promise<BookingRequest | null> {
	if (!isUuid(id)) return null;
	const body = await getRequestById(ctx, id, { nullIfNotFound: true, deadline: options.deadline });
	return isRecord(body) ? (body as BookingRequest) : null;
}

/** A call that ran out of budget (deadline.ts) gives undefined; every other failure fails the poll. */
function undefinedPastDeadline(ctx: IPollFunctions): (error: unknown) => undefined {
	return (error) => {
		if (isDeadlineReached(error)) return undefined;
		throw asNodeError(ctx.getNode(), error);
	};
}

/** The API as a page source for one poll: every call within `deadline`. */
export function apiSource(ctx: IPollFunctions, formId: string | undefined, deadline?: number, options: { requestsOfEveryForm?: boolean } = {}): PageSource {
	const filtered: IDataObject = formId ? { form_id: formId } : {};
	// Skip Customers Who Booked counts bookings on any form: the request list is then read unfiltered.
	const query: Record<ListName, IDataObject> = { sessions: filtered, requests: options.requestsOfEveryForm ? {} : filtered };
	// The ids of the pages read one after the other downward in each list (the page reader's rule: a
	// page that brings only ids already read just before it means the server ignores `page`).
	const runs: Record<ListName, { page: number; ids: Set<string> } | undefined> = { sessions: undefined, requests: undefined };
	return {
		readPage: async (list, page) => {
			const read = await readPage<ListItem>(ctx, PATHS[list], query[list], page, MAX_PER_PAGE, { deadline }).catch(undefinedPastDeadline(ctx));
			if (!read) return undefined;
			const run = runs[list]?.page === page - 1 ? runs[list] : undefined;
			if (run && read.items.length > 0 && read.items.every((item) => run.ids.has(item.id))) {
				throw await malformed(ctx, undefined, repeatedPageProblem(PATHS[list], page));
			}
			const ids = run?.ids ?? new Set<string>();
			for (const item of read.items) ids.add(item.id);
			runs[list] = { page, ids };
			return read;
		},
		fetchRequest: async (id) => await fetchRequest(ctx, id, { deadline }).catch(undefinedPastDeadline(ctx)),
	};
}

/** Reads page 1 of the selected lists ("Fetch Test Event"): items and the server's time. */
export async function readFirstPages(
	source: PageSource,
	settings: TriggerSettings,
	previousSkewMs?: number,
): Promise<{ sessions?: BookingSession[]; requests?: BookingRequest[]; now: number }> {
	const lists = listsFor(settings);
	const clock = new PollClock(previousSkewMs);
	const out: { sessions?: BookingSession[]; requests?: BookingRequest[]; now: number } = { now: 0 };
	const pages: PageObservation[] = [];
	for (const list of ['requests', 'sessions'] as const) {
		if (!lists[list]) continue;
		const page = await source.readPage(list, 1);
		if (!page) break;
		clock.observe(page.serverDate);
		pages.push({ ...page, list, seq: pages.length });
		if (list === 'sessions') out.sessions = page.items as BookingSession[];
		else out.requests = page.items as BookingRequest[];
	}
	out.now = pollNow(pages, clock.now);
	return out;
}

/**
 * One poll: reads what the planner asks for within the budget, then decides the events and the next
 * state. Booking requests of completed sessions are attached when `needsRequest` says so: from the
 * request list read in this poll when it is there, then from pages of the request list when many are
 * wanted (requestLookup.ts), else one Get request each (never twice per poll),
 * within the same budget — when it runs out, the events stop before the first one that could not be
 * completed (the rest come, in order, in the next poll).
 */
export async function pollChanges(source: PageSource, previous: TriggerState | undefined, settings: TriggerSettings, options: PollOptions): Promise<PollResult> {
	const localNow = options.localNow ?? Date.now;
	const clock = new PollClock(previous?.skewMs, localNow);
	const budget = options.budget;
	const pages: PageObservation[] = [];
	const calls = { sessions: 0, requests: 0, getRequest: 0 };
	// Used only when no answer carries a `Date` header (read without fixing the clock: see PollClock).
	const fallbackNow = serverNow(undefined, localNow(), previous?.skewMs);
	const reserve = requestReserve(budget, pages, previous, options.needsRequest);
	const planner = new Planner({ previous, settings, pages, pagesLeft: () => Math.max(0, budget.left() - reserve()), fallbackNow });
	let cut = false;

	const plan = planner.reads();
	for (let step = plan.next(); !step.done; step = plan.next()) {
		const { list, page } = step.value;
		const read = await source.readPage(list, page);
		if (!read) {
			cut = true;
			break;
		}
		budget.answered();
		clock.observe(read.serverDate);
		calls[list]++;
		pages.push({ ...read, list, seq: pages.length });
	}

	const now = planner.now ?? pollNow(pages, fallbackNow);
	const empty = { events: [], baseline: !previous, now, cut, forgotten: 0, customersForgotten: { booked: 0, reminded: 0 }, skipped: { booked: 0, cooldown: 0, noEmail: 0 }, updates: { changed: 0, forgotten: 0 }, calls };
	if (pages.length === 0) return { ...empty, cut: true, state: undefined };
	const sessionsFirstPage = pages.find((page) => page.list === 'sessions' && page.page === 1);
	const updatesOf = (state: TriggerState) => watchUpdates({ previous: previous?.updates, watched: planner.watched, pages, requests: state.requests, now, settings });
	if (!previous) {
		const state = withCarried(baselineState(pages, settings, now, sessionsFirstPage, clock.skewMs), options.carry);
		const updates = updatesOf(state);
		return { ...empty, state: withRef(updates ? { ...state, updates: updates.state } : state, pages, undefined) };
	}
	if (!planner.windows) return { ...empty, cut: true, state: undefined };

	const evaluation = evaluate(planner.windows, pages, now, fallbackNow);
	const memories = memoriesOf(previous, settings);
	const decisions = decide(memories, evaluation, settings);
	const handled = await attachRequests(source, decisions, pages, options, calls);
	const next = nextState(previous, memories, evaluation, decisions, handled, settings, sessionsFirstPage, clock.skewMs);
	const updates = updatesOf(next.state);
	const events = mergeByTime(
		decisions.slice(0, handled).flatMap((decision) => (decision.event ? [decision.event] : [])),
		updates?.events ?? [],
	);
	const skipped = { booked: 0, cooldown: 0, noEmail: 0 };
	for (const decision of decisions.slice(0, handled)) if (decision.skipped) skipped[decision.skipped]++;
	return {
		events,
		state: withRef(updates ? { ...next.state, updates: updates.state } : next.state, pages, previous.ref),
		updates: { changed: updates?.events.length ?? 0, forgotten: updates?.forgotten ?? 0 },
		baseline: false,
		now,
		cut: cut || handled < decisions.length || evaluation.outcomes.some((outcome) => !outcome.complete),
		forgotten: next.forgotten,
		customersForgotten: next.customersForgotten,
		skipped,
		calls,
	};
}

/** Attaches booking requests; returns how many decisions (a prefix) can be handled in this poll. */
async function attachRequests(
	source: PageSource,
	decisions: Decision[],
	pages: PageObservation[],
	options: PollOptions,
	calls: PollResult['calls'],
): Promise<number> {
	const needs = options.needsRequest;
	if (!needs) return decisions.length;
	const events = decisions.map((decision) => decision.event);
	const requestPages = pages.flatMap((page) => (page.list === 'requests' ? [{ ...page, items: page.items as BookingRequest[] }] : []));
	const listed = requestPages.flatMap((page) => page.items);
	const joined = await joinRequests(
		wantedRequests(events, listed, needs),
		{
			known: requestPages,
			callsLeft: () => options.budget.left(),
			read: async (page) => {
				const read = await source.readPage('requests', page);
				if (!read) return undefined;
				options.budget.answered();
				calls.requests++;
				return read as PageRead<BookingRequest>;
			},
		},
		async (id) => {
			if (options.budget.left() < 1) return undefined;
			const request = await source.fetchRequest(id);
			if (request === undefined) return undefined;
			options.budget.answered();
			calls.getRequest++;
			return request;
		},
		{ oldestFirst: true },
	);
	// the join served the events' requests in event order: the events handled stop at the first it could not serve
	return await attachEach(events, listed, needs, async (id) => (joined.has(id) ? joined.get(id) : undefined));
}

/**
 * Calls a poll keeps for attaching booking requests, so that the session pages it reads are ones it
 * can also report. Fixed once the first session page is read (from the completions on it: the planner
 * shares its pages from a budget that must not shrink under it), and never more than leaves the
 * planner MIN_PLANNER_CALLS: the windows must move in every poll.
 */
function requestReserve(
	budget: Budget,
	pages: PageObservation[],
	previous: TriggerState | undefined,
	needs: ((session: BookingSession) => boolean) | undefined,
): () => number {
	const pollCalls = budget.left();
	const cap = Math.max(0, Math.min(Math.floor(pollCalls / 2), pollCalls - MIN_PLANNER_CALLS));
	let reserved: number | undefined;
	return () => {
		if (reserved !== undefined || !needs || cap === 0) return reserved ?? 0;
		if (!pages.some((page) => page.list === 'sessions')) return 0;
		const { needing, seen } = requestsToAttach(pages, previous, needs);
		reserved = Math.min(cap, attachReserve(needing, seen, pollCalls));
		return reserved;
	};
}

/**
 * Of the sessions read so far in this poll above the completions window's floor (`seen`), how many
 * need a booking request not in the request pages read (`needing`): the estimate behind the reserve
 * (page 1 of the session list shows whether the newest completions need them).
 */
function requestsToAttach(
	pages: PageObservation[],
	previous: TriggerState | undefined,
	needs: (session: BookingSession) => boolean,
): { needing: number; seen: number } {
	const floor = previous?.sessions?.completions.floor ?? -Infinity;
	const listed = new Set(pages.flatMap((page) => (page.list === 'requests' ? page.items.map((item) => item.id) : [])));
	const wanted = new Set<string>();
	const seen = new Set<string>();
	for (const page of pages) {
		if (page.list !== 'sessions') continue;
		for (const item of page.items as BookingSession[]) {
			if ((timestampMs(item.updated_at) ?? Infinity) <= floor) continue;
			seen.add(item.id);
			if (typeof item.request_id === 'string' && !listed.has(item.request_id) && needs(item)) wanted.add(item.request_id);
		}
	}
	return { needing: wanted.size, seen: seen.size };
}

/** The completed session of an event that needs its booking request attached, else undefined. */
function sessionNeedingRequest(event: TriggerEvent | undefined, needs: (session: BookingSession) => boolean): BookingSession | undefined {
	return event?.event === 'session.completed' && event.session && needs(event.session) ? event.session : undefined;
}

/** The booking requests the events need that the poll has not read yet, in event order. */
function wantedRequests(events: Array<TriggerEvent | undefined>, listed: BookingRequest[], needs: (session: BookingSession) => boolean): WantedRequest[] {
	const have = new Set(listed.map((request) => request.id));
	const wanted = new Map<string, WantedRequest>();
	for (const event of events) {
		const session = sessionNeedingRequest(event, needs);
		if (!session) continue;
		const id = String(session.request_id);
		if (!have.has(id) && !wanted.has(id)) wanted.set(id, { id, at: timestampMs(session.updated_at) });
	}
	return [...wanted.values()];
}

/**
 * Attaches booking requests to sample events ("Fetch Test Event"), from the listed requests or one
 * Get request each.
 */
export async function attachSampleRequests(
	source: PageSource,
	events: TriggerEvent[],
	listed: BookingRequest[] | undefined,
	needsRequest: (session: BookingSession) => boolean = () => true,
): Promise<void> {
	await attachEach(events, listed ?? [], needsRequest, async (id) => (await source.fetchRequest(id)) ?? null);
}

/**
 * The one attach loop: each completed-session event that `needs` its booking request gets it from
 * `listed`, else from `fetch` (once per id). Returns how many events (a prefix) were handled: it stops
 * at the first one `fetch` cannot serve (undefined: no budget left).
 */
async function attachEach(
	events: Array<TriggerEvent | undefined>,
	listed: BookingRequest[],
	needs: (session: BookingSession) => boolean,
	fetch: (id: string) => Promise<BookingRequest | null | undefined>,
): Promise<number> {
	const known = new Map<string, BookingRequest | null>(listed.map((request) => [request.id, request]));
	for (const [index, event] of events.entries()) {
		const session = sessionNeedingRequest(event, needs);
		if (!event || !session) continue;
		const id = String(session.request_id);
		if (!known.has(id)) {
			const request = await fetch(id);
			if (request === undefined) return index;
			known.set(id, request);
		}
		event.request = known.get(id) ?? null;
	}
	return events.length;
}
