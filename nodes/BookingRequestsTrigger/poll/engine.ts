/**
 * One poll, one way through: the planner asks for pages, they are read within the budget, the rules
 * judge them (rules/, pure), the booking requests the items need are attached, and the next memory is
 * returned. The memory comes in decoded and goes out decoded: state/codec.ts reads and writes it, once
 * per poll, around this.
 */
import type { BookingSession } from '../../shared/types';
import type { Decision } from '../events/context';
import { emptyCustomers } from '../events/context';
import type { TriggerEvent } from '../events';
import { EVENT_KINDS, selectedKinds } from '../events';
import type { CustomerMemories, TriggerMemory } from '../state/decoded';
import type { PageObservation } from '../model/pages';
import { pollNow } from '../model/pages';
import type { TriggerSettings } from '../model/settings';
import { Planner } from '../planner';
import { baselineMemory } from '../rules/baseline';
import { evaluate } from '../rules/evaluate';
import { decide, mergeByTime } from '../rules/judge';
import { nextMemory } from '../rules/next';
import type { PollCalls } from './attach';
import { attachRequests, requestReserve } from './attach';
import type { Budget } from './budget';
import { PollClock, serverNow } from './budget';
import { refOf } from './keyChange';
import type { PageSource } from './source';

export interface PollOptions {
	budget: Budget;
	/** Whether a completed session's event needs its booking request (from request list pages or Get request). */
	needsRequest?: (session: BookingSession) => boolean;
	localNow?: () => number;
	/** Customer memories to keep through a new baseline (a Form change): they are about customers, not a form. */
	carry?: CustomerMemories;
}

export interface PollResult {
	events: TriggerEvent[];
	/** The next memory; undefined when nothing could be read (the stored state stays as it is). */
	memory: TriggerMemory | undefined;
	baseline: boolean;
	now: number;
	/** Not everything could be read or emitted within the budget: the next poll goes on. */
	cut: boolean;
	/** Sessions dropped from the seen memory because of its bound. */
	forgotten: number;
	/** Customer keys / customers dropped from the customer memories because of their bounds. */
	customersForgotten: { booked: number; reminded: number };
	/** Candidates the events' judges left out, by reason (events/*: `skips`: Session Abandoned's booked, cooldown, noEmail). */
	skipped: Record<string, number>;
	/** Events of the rules that watch pages of their own (Request Updated), and entries their memories forgot. */
	watched: { events: number; forgotten: number };
	calls: PollCalls;
}

interface PagesRead {
	pages: PageObservation[];
	planner: Planner;
	clock: PollClock;
	fallbackNow: number;
	/** The budget ran out before the planner was done. */
	cut: boolean;
}

/** Reads what the planner asks for, within the budget. */
async function readPages(source: PageSource, previous: TriggerMemory | undefined, settings: TriggerSettings, options: PollOptions & { calls: PollCalls }): Promise<PagesRead> {
	const localNow = options.localNow ?? Date.now;
	const clock = new PollClock(previous?.skewMs, localNow);
	const { budget, calls } = options;
	const pages: PageObservation[] = [];
	// Used only when no answer carries a `Date` header (read without fixing the clock: see PollClock).
	const fallbackNow = serverNow(undefined, localNow(), previous?.skewMs);
	const reserve = requestReserve(budget, pages, previous, options.needsRequest);
	const planner = new Planner({ previous, settings, pages, pagesLeft: () => Math.max(0, budget.left() - reserve()), fallbackNow });
	const plan = planner.reads();
	for (let step = plan.next(); !step.done; step = plan.next()) {
		const { list, page } = step.value;
		const read = await source.readPage(list, page);
		if (!read) return { pages, planner, clock, fallbackNow, cut: true };
		budget.answered();
		clock.observe(read.serverDate);
		calls[list]++;
		pages.push({ ...read, list, seq: pages.length });
	}
	return { pages, planner, clock, fallbackNow, cut: false };
}

/** The events that watch pages of their own (Request Updated), after the windows moved on: their events, oldest first, and memories. */
function watchPages(memory: TriggerMemory, read: { pages: PageObservation[]; own: ReadonlyMap<string, unknown>; now: number }, settings: TriggerSettings): { memory: TriggerMemory; events: TriggerEvent[]; forgotten: number } {
	const events: TriggerEvent[] = [];
	let forgotten = 0;
	const own: Record<string, unknown> = { ...memory.events };
	for (const kind of selectedKinds(settings)) {
		const slot = kind.memory?.slot;
		if (!kind.watch || slot === undefined || own[slot] === undefined) continue;
		const result = kind.watch({ memory: own[slot], pages: read.pages, windows: memory.windows, reads: read.own.get(kind.value), now: read.now, settings });
		own[slot] = result.memory;
		events.push(...(result.events as TriggerEvent[]));
		forgotten += result.forgotten;
	}
	return { memory: { ...memory, events: own }, events: events.sort((a, b) => a.at - b.at), forgotten };
}

/** Why the events' judges left candidates out (events/*: `skips`), counted. */
function skippedOf(decisions: Decision[]): Record<string, number> {
	const skipped: Record<string, number> = Object.fromEntries(EVENT_KINDS.flatMap((kind) => kind.skips ?? []).map((reason) => [reason, 0]));
	for (const decision of decisions) if (decision.skipped) skipped[decision.skipped] = (skipped[decision.skipped] ?? 0) + 1;
	return skipped;
}

/**
 * One poll: reads what the planner asks for within the budget, then decides the events and the next
 * memory. The first poll (no memory) is a baseline: it emits nothing.
 */
export async function pollChanges(source: PageSource, previous: TriggerMemory | undefined, settings: TriggerSettings, options: PollOptions): Promise<PollResult> {
	const calls: PollCalls = { sessions: 0, requests: 0, getRequest: 0 };
	const read = await readPages(source, previous, settings, { ...options, calls });
	const { pages, planner, clock } = read;
	const now = planner.now ?? pollNow(pages, read.fallbackNow);
	const empty = { events: [], baseline: !previous, now, cut: read.cut, forgotten: 0, customersForgotten: { booked: 0, reminded: 0 }, skipped: skippedOf([]), watched: { events: 0, forgotten: 0 }, calls };
	if (pages.length === 0 || (previous && !planner.windows)) return { ...empty, cut: true, memory: undefined };
	const watched = { pages, own: planner.own, now };
	if (!previous) {
		const { memory } = watchPages(baselineMemory({ pages, settings, now, skewMs: clock.skewMs, carried: options.carry }), watched, settings);
		return { ...empty, memory: { ...memory, label: { ...memory.label, ref: refOf(pages, undefined) } } };
	}
	const evaluation = evaluate(planner.windows ?? [], pages, now, read.fallbackNow);
	const decisions = decide(previous.sessions?.customers ?? emptyCustomers(), evaluation, settings);
	// A decision the rules could not make yet (a deferred one) ends what this poll handles.
	const decidable = decisions.findIndex((decision) => decision.defer);
	const ready = decidable < 0 ? decisions : decisions.slice(0, decidable);
	const handled = await attachRequests(source, ready, { pages, budget: options.budget, needs: options.needsRequest, calls });
	const next = nextMemory({ previous, evaluation, decisions, handled, skewMs: clock.skewMs });
	const updates = watchPages(next.memory, watched, settings);
	const memory = { ...updates.memory, label: { ...updates.memory.label, ref: refOf(pages, previous.label.ref) } };
	const emitted = decisions.slice(0, handled).flatMap((decision) => (decision.event ? [decision.event as TriggerEvent] : []));
	return {
		events: mergeByTime(emitted, updates.events),
		memory,
		watched: { events: updates.events.length, forgotten: updates.forgotten },
		baseline: false,
		now,
		cut: read.cut || handled < decisions.length || evaluation.outcomes.some((outcome) => !outcome.complete),
		forgotten: next.forgotten,
		customersForgotten: next.customersForgotten,
		skipped: skippedOf(decisions.slice(0, handled)),
		calls,
	};
}
