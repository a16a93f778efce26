/**
 * The trigger's pure core: one poll as a function of (the memory before it, the pages it read, its
 * "now", the settings) to (its events, what they change in the memory). No I/O, no clock, and its inputs
 * are never changed: it decides, and the poll applies the changes once it succeeded (poll/memory.ts).
 *
 * `pollCore` is the whole of it. The poll (poll/engine.ts) runs it in two halves because reading the
 * booking requests that some items need is I/O and may stop early: `judgePoll` (what the pages prove
 * and each candidate's decision), then `settlePoll` (the events and changes of the decisions it could
 * handle, with the requests it read).
 */
import type { BookingRequest } from '../../shared/types';
import type { TriggerEvent, TriggerSettings } from '../events';
import { EVENT_KINDS, selectedKinds } from '../events';
import type { Decision } from '../events/context';
import { emptyCustomers } from '../events/context';
import type { ListItem, PageObservation } from '../model/pages';
import { requestsRead } from '../model/pages';
import { sharedPhoneCodes } from '../state/customers';
import { requestIdOf } from '../../shared/output/session';
import type { MemoryChanges, TriggerMemory } from '../state/decoded';
import { baselineMemory } from './baseline';
import type { Rotation } from '../events/watched';
import { watchedRequests } from '../events/watched';
import type { Evaluation } from './evaluate';
import { evaluate, windowsOf } from './evaluate';
import { decide, mergeByTime } from './judge';
import { nextMemory } from './next';

interface PollInput {
	/** The memory before this poll; undefined for the first poll (a baseline: nothing is emitted). */
	memory: TriggerMemory | undefined;
	/** Every page read in this poll, in the order read. */
	pages: PageObservation[];
	/** The poll's time on the API server's clock (model/pages.ts `pollNow`). */
	now: number;
	settings: TriggerSettings;
	/** Where the watched requests' rotation got to in this poll (events/watched.ts; undefined: it did not move). */
	rotation?: Rotation;
	/** "Now" when no answer carried a `Date` header (n8n's clock corrected by the last measured skew). */
	fallbackNow?: number;
	/** The server's clock minus n8n's, measured in this poll (undefined: no `Date` header). */
	skewMs?: number;
}

export interface PollOutcome {
	events: TriggerEvent[];
	/** What the poll changes in the memory (the poll applies them: poll/memory.ts). */
	changes: MemoryChanges;
	baseline: boolean;
	/** A window was not read through, or decisions were left for the next poll. */
	cut: boolean;
	/** Candidates the events' judges left out, by reason (events/*: `skips`). */
	skipped: Record<string, number>;
	/** Events of the rules that watch pages of their own (Request Updated). */
	watched: number;
}

/** What a poll's pages prove, and each candidate's decision. */
export interface Judged {
	input: PollInput & { memory: TriggerMemory };
	evaluation: Evaluation;
	/** Phone codes shared by many customers in the bookings this poll read (they identify nobody). */
	shared: Set<string>;
	decisions: Decision[];
	/** The decisions a poll can handle: those before the first it could not make yet (a deferred one). */
	ready: Decision[];
}

/** What the poll handled of the ready decisions (a prefix), and the booking requests it read for their items, by event id. */
export interface Handled {
	count: number;
	requests?: ReadonlyMap<string, BookingRequest | null>;
}

/** The newest booking request id the poll read (a request, or a completed session's request); else `previous`. */
function refOf(pages: PageObservation[], previous: string | undefined): string | undefined {
	const ordered = [...pages].sort((a, b) => a.page - b.page || a.seq - b.seq);
	for (const list of ['requests', 'sessions'] as const) {
		for (const page of ordered) {
			if (page.list !== list) continue;
			const id = page.items
				.map((item: ListItem) => (list === 'requests' ? item.id : requestIdOf(item)))
				.find((value) => typeof value === 'string' && value.length > 0 && value.length <= 64);
			if (typeof id === 'string') return id;
		}
	}
	return previous;
}

/** Why the events' judges left candidates out (events/*: `skips`), counted. */
function skippedOf(decisions: Decision[]): Record<string, number> {
	const skipped: Record<string, number> = Object.fromEntries(EVENT_KINDS.flatMap((kind) => kind.skips ?? []).map((reason) => [reason, 0]));
	for (const decision of decisions) if (decision.skipped) skipped[decision.skipped] = (skipped[decision.skipped] ?? 0) + 1;
	return skipped;
}

/** What the poll's handled decisions change in the selected events' own memories, each given its own decisions (events/*: `remember`). */
function remembered(memory: TriggerMemory, handled: Decision[], poll: { settings: TriggerSettings; now: number; judgedUpTo: number }): MemoryChanges['events'] {
	const changes: MemoryChanges['events'] = [];
	for (const kind of selectedKinds(poll.settings)) {
		const slot = kind.memory?.slot;
		if (!kind.remember || slot === undefined || memory.events[slot] === undefined) continue;
		const own = handled.filter((decision) => decision.by === kind.value);
		changes.push({ slot, change: kind.remember(memory.events[slot], own, { now: poll.now, judgedUpTo: poll.judgedUpTo }) });
	}
	return changes;
}

/** The events that watch pages of their own (Request Updated), after the windows moved on: their events, oldest first, and what they change in their memories. */
function watchPages(memory: TriggerMemory, windows: MemoryChanges['windows'], input: PollInput): { events: TriggerEvent[]; changes: MemoryChanges['events'] } {
	const events: TriggerEvent[] = [];
	const changes: MemoryChanges['events'] = [];
	for (const kind of selectedKinds(input.settings)) {
		const slot = kind.memory?.slot;
		if (!kind.watch || slot === undefined || memory.events[slot] === undefined) continue;
		const range = kind.watches?.(input.settings);
		const watched = range === undefined ? undefined : watchedRequests(input.pages, range, input.now);
		const result = kind.watch({ memory: memory.events[slot], windows, watched, now: input.now, settings: input.settings });
		changes.push({ slot, change: result.change });
		events.push(...(result.events as TriggerEvent[]));
	}
	return { events: events.sort((a, b) => a.at - b.at), changes };
}

/** The counts of a poll that decided nothing. */
export function emptyCounts(): Pick<PollOutcome, 'skipped' | 'watched'> {
	return { skipped: skippedOf([]), watched: 0 };
}

/** The first poll: where things stand is remembered, nothing is emitted. */
function baselinePoll(input: PollInput): PollOutcome {
	const { pages, settings, now } = input;
	const start = baselineMemory({ pages, settings, now, skewMs: input.skewMs });
	const own = remembered(start, [], { settings, now, judgedUpTo: now });
	const watched = watchPages(start, start.windows as MemoryChanges['windows'], input);
	const changes: MemoryChanges = {
		start,
		polledAt: start.polledAt,
		skewMs: start.skewMs,
		ref: refOf(pages, undefined),
		windows: start.windows as MemoryChanges['windows'],
		...(start.sessions ? { sessions: { checkpoints: start.sessions.checkpoints } } : {}),
		...(input.rotation ? { rotation: input.rotation } : {}),
		events: [...own, ...watched.changes],
	};
	return { events: [], changes, baseline: true, cut: false, ...emptyCounts() };
}

/** What the pages of a poll (not a baseline) prove, and each candidate's decision. */
export function judgePoll(input: PollInput & { memory: TriggerMemory }): Judged {
	const { memory, pages, now, settings } = input;
	const evaluation = evaluate(windowsOf(memory, settings, now), pages, now, input.fallbackNow ?? now);
	const shared = sharedPhoneCodes(requestsRead<BookingRequest>(pages));
	const decisions = decide({ customers: memory.sessions?.customers ?? emptyCustomers(), memories: memory.events, shared }, evaluation, settings);
	// A decision the rules could not make yet (a deferred one) ends what this poll handles.
	const deferred = decisions.findIndex((decision) => decision.defer);
	return { input, evaluation, shared, decisions, ready: deferred < 0 ? decisions : decisions.slice(0, deferred) };
}

/** The events and the changes of the decisions a poll handled (a prefix of the ready ones), with the booking requests read for their items. */
export function settlePoll(judged: Judged, handled: Handled): PollOutcome {
	const { input, evaluation, decisions } = judged;
	const done = decisions.slice(0, handled.count);
	const next = nextMemory({ previous: input.memory, evaluation, decisions, handled: handled.count, skewMs: input.skewMs, shared: judged.shared });
	const own = remembered(input.memory, done, { settings: input.settings, now: input.now, judgedUpTo: next.judgedUpTo });
	const watched = watchPages(input.memory, next.changes.windows, input);
	const withRequest = (event: TriggerEvent): TriggerEvent => (handled.requests?.has(event.eventId) ? ({ ...event, request: handled.requests.get(event.eventId) } as TriggerEvent) : event);
	const emitted = done.flatMap((decision) => (decision.event ? [withRequest(decision.event as TriggerEvent)] : []));
	return {
		events: mergeByTime(emitted, watched.events),
		changes: { ...next.changes, ref: refOf(input.pages, input.memory.label.ref), ...(input.rotation ? { rotation: input.rotation } : {}), events: [...own, ...watched.changes] },
		baseline: false,
		cut: handled.count < decisions.length || evaluation.outcomes.some((outcome) => !outcome.complete),
		skipped: skippedOf(done),
		watched: watched.events.length,
	};
}

/** One poll, whole: the events and the next memory of (memory, pages, now, settings); every ready decision handled, no booking request attached. */
export function pollCore(input: PollInput): PollOutcome {
	const { memory } = input;
	if (!memory) return baselinePoll(input);
	const judged = judgePoll({ ...input, memory });
	return settlePoll(judged, { count: judged.ready.length });
}
