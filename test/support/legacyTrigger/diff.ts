/**
 * The trigger's rules as pure functions of (previous state, pages read in this poll, now, settings):
 * which events happened, and the next state. No I/O, no clock: `now` is the API server's time.
 *
 * Windows (windows.ts), per poll:
 * - New Request: requests with `created_at` above the requests floor, read from page 1 downward.
 * - Session Completed: sessions with `request_id` set and `updated_at` above the completions floor
 *   (completing a booking moves a session to the top with a new `updated_at`: docs/how-it-works.md).
 *   Placeholder sessions (a booking without a saved draft) are new sessions at the top: the same rule.
 * - Session Abandoned: sessions with `request_id` null whose `updated_at` crossed the horizon since the
 *   last poll: in (previous horizon, now − delay]. They are judged on the copy read now, nothing is kept
 *   "pending": a session saved again has left the window (its new `updated_at` is above the horizon)
 *   and is judged when it crosses the horizon later. Once per session (`seen` memory), or once per idle
 *   period with "Fire Again If Reabandoned" (event id `session.abandoned:<id>:<updated_at ms>`).
 *
 * Event time: `created_at` (request), `updated_at` (completion), `updated_at` + delay (abandonment).
 * Events come oldest first, also across polls: when a window could not be read to its top in this poll
 * (the poll budget), no window emits past the lowest point every window has reached (the frontier).
 */
import { draftContact, hasEmail } from '../../../nodes/shared/output/session';
import type { BookingRequest, BookingSession } from '../../../nodes/shared/types';
import { MAX_PER_PAGE } from '../../../nodes/shared/constants';
import { isLastPage } from '../../../nodes/shared/transport/pageReader';
import { timestampMs } from '../../../nodes/shared/utils';
import type { Reminder } from './customers';
import { BookedMemory, customerCodes, REMINDED_RETENTION_DAYS, sharedPhoneCodes } from './customers';
import { DAY_MS, KeySet, SeenMemory } from './memory';
import type { Memories } from './memories';
import { DecisionMemory, decodeMemories } from './memories';
import type { HeldState, TriggerState, WindowState } from './state';
import { EDGE_WINDOW_MS, pruneCheckpoints, STATE_VERSION } from './state';
import type { UpdateSettings } from './updates/detect';
import type { Coverage, ListItem, ListName, Located, PageObservation, Run, Window, WindowName } from './windows';
import { coverageOf, hasRequest, readBounds, runsOf, sortTime } from './windows';

export type EventName = 'session.abandoned' | 'session.completed' | 'request.created' | 'request.updated';

export interface TriggerSettings {
	events: { sessionAbandoned: boolean; sessionCompleted: boolean; requestCreated: boolean; requestUpdated?: boolean };
	/** Request Updated's options (updates/detect.ts); set when that event is selected. */
	updates?: UpdateSettings;
	abandonedAfterMs: number;
	fireAgainIfReabandoned: boolean;
	onlyRecovered: boolean;
	/**
	 * "Skip Customers Who Booked": no Session Abandoned event for a session whose customer (same e-mail
	 * or phone: shared/customer.ts) has a booking request created at or after the session's `created_at`,
	 * up to the poll that judges it. Off when absent (node version 1).
	 */
	skipIfBooked?: boolean;
	/** "Remind a Customer At Most Once Every (Days)", in ms: 0 or absent = off. */
	customerCooldownMs?: number;
	/**
	 * "Only Sessions With an E-Mail": an idle session without an e-mail is no Session Abandoned, so it
	 * is no reminder either (no cooldown starts, a later completion is no recovery from it).
	 */
	onlyWithEmail?: boolean;
	/**
	 * Set when the request list is read for every form although the node watches one (Skip Customers
	 * Who Booked counts bookings on any form): New Request reports only this form's requests.
	 */
	requestsForm?: string;
	/** Identifies events + form filter + API target; a different value resets the state. */
	fingerprint: string;
}

export interface TriggerEvent {
	event: EventName;
	/** Stable id: the same occurrence always gets the same id, so downstream can deduplicate. */
	eventId: string;
	/** When it happened (server ms), for ordering. */
	at: number;
	session?: BookingSession;
	/**
	 * request.created: the request. session.completed: the session's booking request when the node asked
	 * for it (null when the API answered 404), attached by the engine (fetch.ts).
	 */
	request?: BookingRequest | null;
	/**
	 * session.completed: whether this trigger reported the same customer abandoned (any session) within
	 * RECOVERY_WINDOW_DAYS before, or saw this very session abandoned.
	 */
	recovered?: boolean;
	/** session.completed: the session of that abandonment (null when not recovered). */
	recoveredFromSessionId?: string | null;
	/** session.completed: whole minutes from that session's last activity to this completion (null when not recovered or unknown). */
	minutesToRecover?: number | null;
	/** request.updated: the changed fields (empty when not known) and their earlier values (null when not known). */
	changedFields?: string[];
	previous?: Record<string, string | null> | null;
}

/** A completion is a recovery when the customer was reported abandoned at most this many days before. */
export const RECOVERY_WINDOW_DAYS = REMINDED_RETENTION_DAYS;

/** Whether "Skip Customers Who Booked" applies (it needs the request list). */
export function skipsBooked(settings: TriggerSettings): boolean {
	return settings.events.sessionAbandoned && settings.skipIfBooked === true;
}

/** Customers reported abandoned are remembered when something reads it: the cooldown, or recovery. */
function keepsReminded(settings: TriggerSettings): boolean {
	return settings.events.sessionAbandoned && ((settings.customerCooldownMs ?? 0) > 0 || settings.events.sessionCompleted);
}

/**
 * The lists a poll reads. The request list serves every window on it in one read: New Request,
 * the bookings that Skip Customers Who Booked checks, the customers of bookings without a saved
 * draft (recovery) and the booking requests attached to completions (fetch.ts).
 */
export function listsFor(settings: TriggerSettings): { sessions: boolean; requests: boolean; updates: boolean } {
	const updates = settings.events.requestUpdated === true;
	return {
		sessions: settings.events.sessionAbandoned || settings.events.sessionCompleted,
		requests: settings.events.requestCreated || skipsBooked(settings) || updates,
		updates,
	};
}

/** Activity time of a session: its `updated_at` (its position in the list). */
export function activityOf(session: BookingSession): number | null {
	return timestampMs(session.updated_at);
}

export function requestSortTime(request: BookingRequest): number | null {
	return timestampMs(request.created_at);
}

/** The memories of the saved state, decoded once for the poll (memories.ts). */
export function memoriesOf(previous: TriggerState, settings: TriggerSettings): Memories {
	return decodeMemories(previous.sessions, { booked: skipsBooked(settings), reminded: keepsReminded(settings) });
}

/** The abandonment memory is kept when something reads it: once-only abandonment, or `recovered`. */
function keepsSeen(settings: TriggerSettings): boolean {
	return (settings.events.sessionAbandoned && !settings.fireAgainIfReabandoned) || settings.events.sessionCompleted;
}

// ---------------------------------------------------------------------------------------------
// Windows of a poll

function windowFrom(name: WindowName, list: ListName, state: WindowState, hi: number, offset: number): Window {
	return {
		name,
		list,
		lo: state.floor,
		hi,
		offset,
		done: KeySet.decode(state.done),
		...(state.tie !== undefined ? { tie: state.tie } : {}),
		...(state.below !== undefined ? { below: state.below } : {}),
		...(state.deeper !== undefined ? { deeper: state.deeper } : {}),
	};
}

/** The windows to bring up to date in a poll at server time `now` (no state: none, it is a baseline). */
export function windowsOf(previous: TriggerState, settings: TriggerSettings, now: number): Window[] {
	const windows: Window[] = [];
	if (previous.requests) windows.push(windowFrom('requests', 'requests', previous.requests, Infinity, 0));
	if (previous.sessions) {
		// Completions are read only when reported (they cost pages in a backlog); abandonments are always
		// judged, so that `recovered` tells the truth whichever events are selected.
		if (settings.events.sessionCompleted) windows.push(windowFrom('completions', 'sessions', previous.sessions.completions, Infinity, 0));
		const delay = settings.abandonedAfterMs;
		windows.push(windowFrom('horizon', 'sessions', previous.sessions.horizon, now - delay, delay));
		const held = previous.sessions.held;
		const only = held ? KeySet.decode(held.codes) : undefined;
		const span = only?.span();
		if (held && only && span) {
			windows.push({ ...windowFrom('held', 'sessions', held, span.max, delay), only, ...(held.topBelow !== undefined ? { hiBelow: held.topBelow } : {}) });
		}
	}
	return windows;
}

// ---------------------------------------------------------------------------------------------
// Evaluation: what the pages read prove

export interface WindowOutcome {
	window: Window;
	coverage?: Coverage;
	/** Items with a sort time up to here are all known (>= lo). */
	upper: number;
	complete: boolean;
}

export interface Candidate {
	window: WindowName;
	id: string;
	/** Sort time of the item in its list. */
	time: number;
	/** Event time. */
	at: number;
	/** The freshest copy read in this poll. */
	item: ListItem;
	/** Part of a tie group drained from its bottom (allowed one millisecond past the frontier). */
	partial: boolean;
}

export interface Evaluation {
	now: number;
	outcomes: WindowOutcome[];
	/** Event time up to which every window is known: events after it wait (+∞ when all windows are complete). */
	frontier: number;
	/** Items to handle, in event order (only those up to the frontier). */
	candidates: Candidate[];
	pages: PageObservation[];
}

const WINDOW_ORDER: Record<WindowName, number> = { held: 0, horizon: 0, completions: 1, requests: 2 };

export function compareCandidates(a: Candidate, b: Candidate): number {
	return a.at - b.at || WINDOW_ORDER[a.window] - WINDOW_ORDER[b.window] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The newest copy of each item read in this poll (highest sort time; on equal, the later read). */
function freshestCopies(pages: PageObservation[], list: ListName): Map<string, { item: ListItem; time: number | null }> {
	const copies = new Map<string, { item: ListItem; time: number | null }>();
	for (const page of [...pages].filter((p) => p.list === list).sort((a, b) => a.seq - b.seq)) {
		for (const item of page.items) {
			const time = sortTime(list, item);
			const known = copies.get(item.id);
			if (!known || (time ?? -Infinity) >= (known.time ?? -Infinity)) copies.set(item.id, { item, time });
		}
	}
	return copies;
}

export function outcomeOf(window: Window, runs: Run[], bounds: Map<number, number>): WindowOutcome {
	if (window.hi <= window.lo) return { window, upper: window.lo, complete: true };
	const coverage = coverageOf(window, runs, bounds);
	if (!coverage) return { window, upper: window.lo, complete: false };
	return { window, coverage, upper: coverage.upper, complete: coverage.complete };
}

/**
 * What the pages read in a poll prove. The frontier is the lowest event time up to which every window
 * is known: a window read from page 1 up to the time of that read, the horizon up to now, a window
 * read from its oldest part up to where the run started. Items with a timestamp ahead of the server's
 * clock (more than a second past its `Date` header) count as happening at the frontier.
 */
export function evaluate(windows: Window[], pages: PageObservation[], now: number, fallbackNow = now): Evaluation {
	const runs = { sessions: runsOf(pages, 'sessions'), requests: runsOf(pages, 'requests') };
	const bounds = readBounds(pages, fallbackNow);
	const outcomes = windows.map((window) => outcomeOf(window, runs[window.list], bounds));
	let frontier = Infinity;
	// The held window ends at its newest held session: read through, it holds nobody back.
	for (const outcome of outcomes) frontier = Math.min(frontier, outcome.complete && outcome.window.only ? Infinity : outcome.upper + outcome.window.offset);
	const fresh = { sessions: freshestCopies(pages, 'sessions'), requests: freshestCopies(pages, 'requests') };
	const candidates: Candidate[] = [];
	for (const { window, coverage, upper } of outcomes) {
		if (!coverage) continue;
		const taken = new Set<string>();
		for (const entry of coverage.items) {
			if (taken.has(entry.item.id) || window.done.has(entry.time, entry.item.id)) continue;
			if (window.only && !window.only.has(entry.time, entry.item.id)) continue;
			taken.add(entry.item.id);
			const newest = fresh[window.list].get(entry.item.id);
			// The item moved (saved, completed) after this copy was read: it is judged where it is now.
			if (!newest || newest.time !== entry.time) continue;
			const partial = coverage.partial !== undefined && entry.time === coverage.partial;
			const at = entry.time > upper && !partial ? frontier : entry.time + window.offset;
			if (partial ? at > frontier + 1 : at > frontier) continue;
			candidates.push({ window: window.name, id: entry.item.id, time: entry.time, at, item: newest.item, partial });
		}
	}
	candidates.sort(compareCandidates);
	return { now, outcomes, frontier, candidates, pages };
}

// ---------------------------------------------------------------------------------------------
// Decisions: which candidates are events (the seen memory applied in event order)

export interface Decision {
	candidate: Candidate;
	/** The event to emit; undefined for an item handled silently (an open session at the top, …). */
	event?: TriggerEvent;
	/** Why a Session Abandoned event was not emitted for an idle open session (counted in tests and logs). */
	skipped?: 'booked' | 'cooldown' | 'noEmail';
	/** What handling this decision adds to the memories (nextState applies the handled prefix). */
	seen?: { id: string; at: number };
	booked?: { codes: string[]; at: number };
	reminded?: Reminder;
}

/** The customer key codes of a booking request. */
function requestCodes(request: BookingRequest): string[] {
	return customerCodes({ email: request.email, phone: request.phone });
}

/** The customer key codes of a session: its draft's contact, plus its booking request's when known. */
function sessionCodes(session: BookingSession, request: BookingRequest | undefined): string[] {
	const codes = new Set(customerCodes(draftContact(session)));
	if (request) for (const code of requestCodes(request)) codes.add(code);
	return [...codes];
}

/**
 * Booking requests read in this poll, created up to `now`: per customer key code, the newest
 * `created_at` (Skip Customers Who Booked counts bookings up to the poll that judges a session), and by id.
 */
function pollRequests(
	pages: PageObservation[],
	now: number,
	identity: (codes: string[]) => string[] = (codes) => codes,
): { newest: Map<string, number>; byId: Map<string, BookingRequest> } {
	const newest = new Map<string, number>();
	const byId = new Map<string, BookingRequest>();
	for (const request of requestsRead(pages)) {
		byId.set(request.id, request);
		const at = timestampMs(request.created_at);
		if (at === null || at > now) continue;
		for (const code of identity(requestCodes(request))) if ((newest.get(code) ?? -Infinity) < at) newest.set(code, at);
	}
	return { newest, byId };
}

function requestsRead(pages: PageObservation[]): BookingRequest[] {
	return pages.flatMap((page) => (page.list === 'requests' ? (page.items as unknown as BookingRequest[]) : []));
}

/** Phones shared by many customers in the bookings this poll read (they identify nobody). */
function sharedInPoll(pages: PageObservation[]): Set<string> {
	return sharedPhoneCodes(requestsRead(pages));
}

/**
 * Which candidates are events, in event order, with the memories applied as it goes: the seen memory
 * (once per session), the customers who booked (Skip Customers Who Booked), the customers reported
 * abandoned (cooldown, recovery by customer).
 */
export function decide(memories: Memories, evaluation: Evaluation, settings: TriggerSettings): Decision[] {
	const memory = new DecisionMemory(memories, sharedInPoll(evaluation.pages));
	const identity = (codes: string[]) => memory.identity(codes);
	const remember = keepsSeen(settings);
	const skipBooked = skipsBooked(settings);
	const remindedKept = keepsReminded(settings);
	const cooldown = settings.customerCooldownMs ?? 0;
	const inPoll = pollRequests(evaluation.pages, evaluation.now, identity);
	const bookedSince = (codes: string[], since: number): boolean =>
		(memory.newestBooking(codes) ?? -Infinity) >= since || codes.some((code) => (inPoll.newest.get(code) ?? -Infinity) >= since);
	return evaluation.candidates.map((candidate): Decision => {
		const { item, id } = candidate;
		if (candidate.window === 'requests') {
			const request = item as BookingRequest;
			const codes = skipBooked ? identity(requestCodes(request)) : [];
			if (codes.length > 0) memory.book(codes, candidate.time);
			return {
				candidate,
				event:
					settings.events.requestCreated && (settings.requestsForm === undefined || request.form_id === settings.requestsForm)
						? { event: 'request.created', eventId: `request.created:${id}`, at: candidate.at, request }
						: undefined,
				...(codes.length > 0 ? { booked: { codes, at: candidate.time } } : {}),
			};
		}
		const session = item as BookingSession;
		if (candidate.window === 'completions') {
			if (!hasRequest(item) || !settings.events.sessionCompleted) return { candidate };
			const codes = identity(sessionCodes(session, inPoll.byId.get(String(session.request_id))));
			const reminder = memory.lastReminder(codes);
			const byCustomer = reminder && reminder.at <= candidate.at && candidate.at - reminder.at <= RECOVERY_WINDOW_DAYS * DAY_MS ? reminder : undefined;
			const recovered = byCustomer !== undefined || memory.hasSeen(id, candidate.at);
			if (settings.onlyRecovered && !recovered) return { candidate };
			return {
				candidate,
				event: {
					event: 'session.completed',
					eventId: `session.completed:${id}:${String(session.request_id)}`,
					at: candidate.at,
					session,
					recovered,
					recoveredFromSessionId: byCustomer ? byCustomer.sessionId : recovered ? id : null,
					minutesToRecover: byCustomer ? Math.max(0, Math.floor((candidate.time - byCustomer.activity) / 60_000)) : null,
				},
			};
		}
		// horizon: open and idle for the delay, judged on this copy.
		if (hasRequest(item)) return { candidate };
		const before = memory.hasSeen(id, candidate.at);
		const markSeen = () => {
			if (!remember) return {};
			memory.see(id, candidate.at);
			return { seen: { id, at: candidate.at } };
		};
		if (!settings.events.sessionAbandoned || (before && !settings.fireAgainIfReabandoned)) return { candidate, ...markSeen() };
		// Not reported, so not seen: judged again if it is abandoned again (with an e-mail by then).
		if (settings.onlyWithEmail === true && !hasEmail(draftContact(session))) return { candidate, skipped: 'noEmail' };
		const codes = identity(customerCodes(draftContact(session)));
		if (skipBooked && codes.length > 0) {
			// A booking from before the draft does not count (a returning customer starting a new one).
			const since = timestampMs(session.created_at) ?? candidate.time;
			if (bookedSince(codes, since)) return { candidate, skipped: 'booked' };
		}
		if (cooldown > 0 && codes.length > 0) {
			const last = memory.lastReminder(codes);
			if (last && candidate.at - last.at < cooldown) return { candidate, skipped: 'cooldown' };
		}
		const reminder: Reminder | undefined = remindedKept && codes.length > 0 ? { codes: codes.slice(0, 2), sessionId: id, activity: candidate.time, at: candidate.at } : undefined;
		if (reminder) memory.remind(reminder);
		return {
			candidate,
			event: { event: 'session.abandoned', eventId: `session.abandoned:${id}:${candidate.time}`, at: candidate.at, session },
			...markSeen(),
			...(reminder ? { reminded: reminder } : {}),
		};
	});
}

// ---------------------------------------------------------------------------------------------
// The next state

export interface NextState {
	state: TriggerState;
	/** Sessions forgotten from the seen memory because of its bound (logged as a warning by the node). */
	forgotten: number;
	/** Customer keys / customers forgotten from the customer memories because of their bounds (logged too). */
	customersForgotten: { booked: number; reminded: number };
}

/** Items at or below `floor` counted from the end of the list, from the run that covered the window. */
function belowOf(coverage: Coverage | undefined, isBelow: (entry: Located) => boolean, fallback: number | undefined): number | undefined {
	if (!coverage) return fallback;
	for (const page of coverage.run.pages) {
		for (const [i, item] of page.items.entries()) {
			const time = sortTime(coverage.run.list, item);
			if (time === null) continue;
			const entry = { item, time, page, index: (page.page - 1) * page.perPage + i };
			if (isBelow(entry)) return page.total === undefined ? fallback : Math.max(0, page.total - entry.index);
		}
	}
	// The run ended at the end of the list: nothing lies below.
	return coverage.stop === undefined ? 0 : fallback;
}

/**
 * No run reached the floor of this window. The hint stays unless a page read lies wholly above the
 * floor yet deeper than the hint said; then where a search of this poll placed the floor, if it did;
 * else a bound: the floor lies below the deepest page read wholly above it.
 */
function hintWithoutCoverage(pages: PageObservation[], window: Window): { below?: number; deeper?: number } {
	let below = window.below;
	let deeper = window.deeper;
	for (const page of pages) {
		if (page.list !== window.list || page.total === undefined || page.items.length < page.perPage) continue;
		const times = page.items.map((item) => sortTime(page.list, item));
		if (times.some((time) => time === null || time <= window.lo)) continue;
		const bound = Math.max(0, page.total - page.page * page.perPage);
		if (below !== undefined && bound < below) below = undefined;
		if (deeper === undefined || bound < deeper) deeper = bound;
	}
	below ??= locatedBelow(pages, window.list, window.lo);
	return below !== undefined ? { below } : deeper !== undefined ? { deeper } : {};
}

function nextWindow(outcome: WindowOutcome, handled: Candidate[], limit: number, pages: PageObservation[]): WindowState {
	const { window, coverage } = outcome;
	if (!coverage) {
		return { floor: window.lo, done: window.done.encode(), ...(window.tie !== undefined ? { tie: window.tie } : {}), ...hintWithoutCoverage(pages, window) };
	}
	const floor = Math.max(window.lo, Math.min(outcome.upper, limit));
	const done = window.done.above(floor);
	let partial: number | undefined;
	for (const candidate of handled) {
		if (candidate.time <= floor) continue;
		done.add(candidate.time, candidate.id);
		if (candidate.partial) partial = candidate.time;
	}
	// Draining a tie group from its bottom (even when this run found nothing new in it): the handled
	// part of the group stops the next run, so the next poll reads only what lies above it.
	const draining = partial ?? (coverage.partial !== undefined && coverage.partial > floor ? coverage.partial : undefined);
	const tie = draining ?? (window.tie !== undefined && window.tie > floor ? window.tie : undefined);
	// Where the floor is now, from the run that reached it (also when it did not move: the hint may have been off).
	const below = belowOf(coverage, (entry) => entry.time <= floor || (tie !== undefined && entry.time === tie && done.has(entry.time, entry.item.id)), window.below);
	return { floor, done: done.encode(), ...(tie !== undefined ? { tie } : {}), ...(below !== undefined ? { below } : {}) };
}

/** At most this many open sessions are held (HeldState): 2,000 codes are about 50 kB of static data. */
export const HELD_LIMIT = 2_000;

/**
 * How far the horizon's floor may move past `limit` (the frontier minus the delay), over what the poll
 * read of the window. Sessions with a `request_id` (completed: no event) are passed. Open sessions wait
 * for their event time: the floor stops below the first one, unless holding them saves pages (at least
 * a page of passed sessions besides their own span, at most `room` of them, and none held from before):
 * then they are held (hashed id and `updated_at`) and judged later on a fresh read of their own pages.
 * So a backlog is not read a second time, a delay later, for the abandonments it holds — only their
 * pages are (issue 28: 1,000 drafts below 2,000 bookings were searched for and read again whole).
 */
function holdFurther(outcome: WindowOutcome, limit: number, room: number): { bound: number; held: KeySet } {
	const held = new KeySet();
	const { coverage, window } = outcome;
	if (!coverage || coverage.partial !== undefined || outcome.upper <= limit) return { bound: limit, held };
	const above = coverage.items.filter((entry) => entry.time > limit && entry.time <= outcome.upper).sort((a, b) => a.time - b.time);
	const waits = (entry: Located) => !hasRequest(entry.item) && !window.done.has(entry.time, entry.item.id);
	const first = above.findIndex(waits);
	if (first < 0) return { bound: outcome.upper, held };
	let last = first;
	for (let i = first; i < above.length; i++) if (waits(above[i])) last = i;
	const open = above.filter(waits);
	// Held only when it saves pages: the floor passes at least a page of sessions outside the held span
	// (the span itself is read again either way).
	if (open.length > room || above.length - (last - first + 1) < MAX_PER_PAGE) return { bound: Math.max(limit, above[first].time - 1), held };
	// Every session up to `upper` is passed or held, so the floor moves there.
	for (const entry of open) held.add(entry.time, entry.item.id);
	return { bound: outcome.upper, held };
}

/**
 * The held sessions after this poll: those of the previous state not yet judged (above the held
 * window's new floor and not handled) and the ones the horizon's floor passed now.
 */
function nextHeld(
	previous: HeldState | undefined,
	heldOutcome: WindowOutcome | undefined,
	handled: Candidate[],
	limit: number,
	added: KeySet,
	horizonCoverage: Coverage | undefined,
	pages: PageObservation[],
): HeldState | undefined {
	let codes = new KeySet();
	let window: WindowState | undefined;
	if (heldOutcome?.window.only) {
		window = nextWindow(heldOutcome, handled, limit, pages);
		codes = heldOutcome.window.only.aboveWithout(window.floor, KeySet.decode(window.done));
	}
	codes.merge(added);
	const span = codes.span();
	if (!span) return undefined;
	if (!window || window.floor >= span.min) {
		// The oldest held session came from this poll's read of the horizon: the floor lies just below it.
		const floor = span.min - 1;
		const below = belowOf(horizonCoverage, (entry) => entry.time <= floor, undefined);
		window = { floor, done: {}, ...(below !== undefined ? { below } : {}) };
	}
	const topBelow = added.size > 0 ? belowOf(horizonCoverage, (entry) => entry.time <= span.max, undefined) : previous?.topBelow;
	return { ...window, codes: codes.encode(), ...(topBelow !== undefined ? { topBelow } : {}) };
}

/**
 * The state after handling `decisions.slice(0, handledCount)` (a prefix: the node may stop earlier than
 * the frontier, e.g. when the poll budget allows no more booking requests to be read). The handled
 * decisions are applied to `memories` (the poll's decoded memories: changed in place), which are then
 * encoded into the state.
 */
export function nextState(
	previous: TriggerState,
	memories: Memories,
	evaluation: Evaluation,
	decisions: Decision[],
	handledCount: number,
	settings: TriggerSettings,
	sessionsFirstPage: PageObservation | undefined,
	skewMs: number | undefined,
): NextState {
	const now = evaluation.now;
	const cut = handledCount < decisions.length ? decisions[handledCount].candidate.at - 1 : evaluation.frontier;
	const frontier = Math.min(evaluation.frontier, cut);
	const handled = decisions.slice(0, handledCount).map((decision) => decision.candidate);
	const byWindow = (name: WindowName) => handled.filter((candidate) => candidate.window === name);
	const outcome = (name: WindowName) => evaluation.outcomes.find((entry) => entry.window.name === name);
	// Rows that may still appear late (EDGE_WINDOW_MS) stay above the floor of the windows at the top:
	// late after the list's newest read of page 1, not after the poll's end (a row committed just after
	// that read, with a timestamp up to 5 s older, is still to come when the poll goes on reading for long).
	const bounds = readBounds(evaluation.pages, now);
	const topRead = (list: ListName) => {
		const firsts = evaluation.pages.filter((page) => page.list === list && page.page === 1);
		return firsts.length === 0 ? now : Math.max(...firsts.map((page) => bounds.get(page.seq) ?? now));
	};
	const limitOf = (name: WindowName, offset: number) =>
		Math.min(frontier - offset, name === 'horizon' ? Infinity : Math.min(now, topRead(name === 'requests' ? 'requests' : 'sessions')) - EDGE_WINDOW_MS);

	const state: TriggerState = { v: STATE_VERSION, fp: settings.fingerprint, since: previous.since, polledAt: now, skewMs: skewMs ?? previous.skewMs };
	let forgotten = 0;
	const customersForgotten = { booked: 0, reminded: 0 };
	const requests = outcome('requests');
	if (previous.requests && requests) state.requests = nextWindow(requests, byWindow('requests'), limitOf('requests', 0), evaluation.pages);
	const horizonOutcome = outcome('horizon');
	if (previous.sessions && horizonOutcome) {
		const completions = outcome('completions');
		const heldOutcome = outcome('held');
		// New sessions are held only when none is held from before (one span of pages to read again).
		const further = holdFurther(horizonOutcome, limitOf('horizon', horizonOutcome.window.offset), heldOutcome ? 0 : HELD_LIMIT);
		const horizon = nextWindow(horizonOutcome, byWindow('horizon'), further.bound, evaluation.pages);
		const held = nextHeld(
			previous.sessions.held,
			heldOutcome,
			byWindow('held'),
			limitOf('held', horizonOutcome.window.offset),
			further.held,
			horizonOutcome.coverage,
			evaluation.pages,
		);
		const { seen, booked, reminded, shared } = memories;
		for (const code of sharedInPoll(evaluation.pages)) shared.addCode(code, now);
		shared.prune(now);
		for (const decision of decisions.slice(0, handledCount)) {
			if (decision.seen) seen.add(decision.seen.id, decision.seen.at);
			if (decision.booked) booked.add(decision.booked.codes, decision.booked.at);
			if (decision.reminded) reminded.add(decision.reminded);
		}
		// Retention by event time: a catch-up (the trigger off for weeks) judges events older than now,
		// and what it remembers of them must last until the events after them are judged.
		const judgedUpTo = Number.isFinite(frontier) ? Math.min(now, frontier) : now;
		seen.prune(judgedUpTo);
		booked.prune(judgedUpTo);
		reminded.prune(judgedUpTo);
		forgotten = seen.droppedForBound;
		customersForgotten.booked = booked.droppedForBound;
		customersForgotten.reminded = reminded.droppedForBound;
		const bookedPacked = booked.encode();
		const remindedPacked = reminded.encode();
		const sharedPacked = shared.encode();
		const checkpoints = previous.sessions.checkpoints.filter((checkpoint) => checkpoint[0] < (sessionsFirstPage?.serverDate ?? now));
		if (sessionsFirstPage?.total !== undefined) checkpoints.push([sessionsFirstPage.serverDate ?? now, sessionsFirstPage.total]);
		state.sessions = {
			completions: completions
				? nextWindow(completions, byWindow('completions'), limitOf('completions', 0), evaluation.pages)
				: previous.sessions.completions,
			horizon,
			...(held ? { held } : {}),
			checkpoints: pruneCheckpoints(checkpoints, Math.min(horizon.floor, held?.floor ?? Infinity)),
			seen: seen.encode(),
			...(Object.keys(bookedPacked).length > 0 ? { booked: bookedPacked } : {}),
			...(Object.keys(remindedPacked).length > 0 ? { reminded: remindedPacked } : {}),
			...(Object.keys(sharedPacked).length > 0 ? { shared: sharedPacked } : {}),
		};
	}
	return { state, forgotten, customersForgotten };
}

// ---------------------------------------------------------------------------------------------
// Baseline: the first poll (or after a reset) emits nothing and starts from now.

function baselineWindow(pages: PageObservation[], list: ListName, floor: number, below?: number): WindowState {
	const done = new KeySet();
	const firstPage = pages.find((page) => page.list === list && page.page === 1);
	for (const item of firstPage?.items ?? []) {
		const time = sortTime(list, item);
		// A timestamp ahead of the server's clock is not history: remembered, so it is not reported later either.
		if (time !== null && time > floor) done.add(time, item.id);
	}
	return { floor, done: done.encode(), ...(below !== undefined ? { below } : {}) };
}

/** Items at or below `time` counted from the end, from the latest page read that places the boundary. */
export function locatedBelow(pages: PageObservation[], list: ListName, time: number): number | undefined {
	for (const page of [...pages].filter((p) => p.list === list).sort((a, b) => b.seq - a.seq)) {
		if (page.total === undefined) continue;
		const index = page.items.findIndex((item) => {
			const at = sortTime(list, item);
			return at !== null && at <= time;
		});
		if (index < 0) {
			// Everything on the last page (or an empty list) is above: nothing lies below the boundary.
			if (isLastPage(page, page.items.length, (page.page - 1) * page.perPage)) return 0;
			continue;
		}
		// Only a page that starts above the boundary (or page 1) places it exactly.
		if (index === 0 && page.page > 1) continue;
		return Math.max(0, page.total - ((page.page - 1) * page.perPage + index));
	}
	return undefined;
}

export function baselineState(
	pages: PageObservation[],
	settings: TriggerSettings,
	now: number,
	sessionsFirstPage: PageObservation | undefined,
	skewMs: number | undefined,
): TriggerState {
	const lists = listsFor(settings);
	const state: TriggerState = { v: STATE_VERSION, fp: settings.fingerprint, since: now, polledAt: now, skewMs: skewMs ?? 0 };
	if (lists.requests) state.requests = baselineWindow(pages, 'requests', now, locatedBelow(pages, 'requests', now));
	if (lists.sessions) {
		const horizonFloor = now - settings.abandonedAfterMs;
		// The bookings on the first page of the request list count for the drafts already open.
		const booked = new BookedMemory();
		const shared = sharedInPoll(pages);
		const identity = (codes: string[]) => codes.filter((code) => !shared.has(code));
		if (skipsBooked(settings)) for (const [code, at] of pollRequests(pages, now, identity).newest) booked.add([code], at);
		const sharedMemory = new SeenMemory();
		for (const code of shared) sharedMemory.addCode(code, now);
		const sharedPacked = sharedMemory.encode();
		booked.prune(now);
		const bookedPacked = booked.encode();
		state.sessions = {
			completions: baselineWindow(pages, 'sessions', now, locatedBelow(pages, 'sessions', now)),
			// Nothing to remember at the horizon: only sessions that cross it from now on are reported.
			horizon: { ...baselineWindow([], 'sessions', horizonFloor, locatedBelow(pages, 'sessions', horizonFloor)) },
			checkpoints: sessionsFirstPage?.total !== undefined ? [[sessionsFirstPage.serverDate ?? now, sessionsFirstPage.total]] : [],
			seen: {},
			...(Object.keys(bookedPacked).length > 0 ? { booked: bookedPacked } : {}),
			...(Object.keys(sharedPacked).length > 0 ? { shared: sharedPacked } : {}),
		};
	}
	return state;
}

