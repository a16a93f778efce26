/**
 * One poll, one way through: the planner asks for pages, they are read within the budget, the rules
 * judge them (rules/, pure), the booking requests the items need are attached, and the next memory is
 * returned. The memory comes in decoded and goes out decoded: state/codec.ts reads and writes it, once
 * per poll, around this.
 */
import type { BookingSession } from '../../shared/types';
import type { Decision } from '../events/context';
import { emptyCustomers } from '../events/context';
import { selectedKinds } from '../events';
import type { TriggerEvent } from '../model/event';
import type { CustomerMemories, TriggerMemory } from '../state/decoded';
import type { PageObservation } from '../model/pages';
import { pollNow } from '../model/pages';
import type { TriggerSettings } from '../model/settings';
import { Planner } from '../planner';
import type { WatchedReads } from '../events/requestUpdated/rotation';
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
	/** Session Abandoned events not emitted for an idle open session, by reason. */
	skipped: { booked: number; cooldown: number; noEmail: number };
	/** Request Updated: changes reported, and requests forgotten because they left the watched range. */
	updates: { changed: number; forgotten: number };
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

/** Request Updated (and any event that reads pages of its own): its events, after the windows moved on. */
function watchPages(memory: TriggerMemory, read: { pages: PageObservation[]; watched: WatchedReads | undefined; now: number }, settings: TriggerSettings): { events: TriggerEvent[]; forgotten: number } {
	const updates = memory.updates;
	if (!updates) return { events: [], forgotten: 0 };
	const found = { events: [] as TriggerEvent[], forgotten: 0 };
	for (const kind of selectedKinds(settings)) {
		const result = kind.watch?.({ memory: updates, pages: read.pages, requests: memory.windows.requests, now: read.now, settings });
		if (result) Object.assign(found, { events: [...found.events, ...result.events], forgotten: found.forgotten + result.forgotten });
	}
	if (read.watched) updates.cursor = read.watched.cursor;
	return found;
}

function skippedOf(decisions: Decision[]): PollResult['skipped'] {
	const skipped = { booked: 0, cooldown: 0, noEmail: 0 };
	for (const decision of decisions) if (decision.skipped) skipped[decision.skipped]++;
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
	const empty = { events: [], baseline: !previous, now, cut: read.cut, forgotten: 0, customersForgotten: { booked: 0, reminded: 0 }, skipped: { booked: 0, cooldown: 0, noEmail: 0 }, updates: { changed: 0, forgotten: 0 }, calls };
	if (pages.length === 0 || (previous && !planner.windows)) return { ...empty, cut: true, memory: undefined };
	const watched = { pages, watched: planner.watched, now };
	if (!previous) {
		const memory = baselineMemory({ pages, settings, now, skewMs: clock.skewMs, carried: options.carry });
		watchPages(memory, watched, settings);
		memory.label.ref = refOf(pages, undefined);
		return { ...empty, memory };
	}
	const evaluation = evaluate(planner.windows ?? [], pages, now, read.fallbackNow);
	const decisions = decide(previous.sessions?.customers ?? emptyCustomers(), evaluation, settings);
	// A decision the rules could not make yet (a deferred one) ends what this poll handles.
	const decidable = decisions.findIndex((decision) => decision.defer);
	const ready = decidable < 0 ? decisions : decisions.slice(0, decidable);
	const handled = await attachRequests(source, ready, { pages, budget: options.budget, needs: options.needsRequest, calls });
	const next = nextMemory({ previous, evaluation, decisions, handled, skewMs: clock.skewMs });
	const updates = watchPages(next.memory, watched, settings);
	next.memory.label = { ...next.memory.label, ref: refOf(pages, previous.label.ref) };
	const emitted = decisions.slice(0, handled).flatMap((decision) => (decision.event ? [decision.event] : []));
	return {
		events: mergeByTime(emitted, updates.events),
		memory: next.memory,
		updates: { changed: updates.events.length, forgotten: updates.forgotten },
		baseline: false,
		now,
		cut: read.cut || handled < decisions.length || evaluation.outcomes.some((outcome) => !outcome.complete),
		forgotten: next.forgotten,
		customersForgotten: next.customersForgotten,
		skipped: skippedOf(decisions.slice(0, handled)),
		calls,
	};
}
