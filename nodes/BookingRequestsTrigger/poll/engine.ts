/**
 * One poll, one way through: the planner asks for pages, they are read within the budget, the pure
 * core judges them (rules/core.ts), the booking requests the items need are read, and the core gives
 * the events and what they change in the memory. The memory is only read here: the poll applies the
 * changes once it succeeded (poll/memory.ts).
 */
import type { BookingSession } from '../../shared/types';
import type { TriggerSettings } from '../events';
import type { PageObservation } from '../model/pages';
import { pollNow } from '../model/pages';
import { Planner } from '../planner';
import type { PollOutcome } from '../rules/core';
import { emptyCounts, judgePoll, pollCore, settlePoll } from '../rules/core';
import type { MemoryChanges, TriggerMemory } from '../state/decoded';
import type { PollCalls } from './attach';
import { attachRequests, requestReserve } from './attach';
import type { Budget } from './budget';
import { PollClock, serverNow } from './budget';
import type { PageSource } from './source';

export interface PollOptions {
	budget: Budget;
	/** Whether a completed session's event needs its booking request (from request list pages or Get request). */
	needsRequest?: (session: BookingSession) => boolean;
	localNow?: () => number;
}

export interface PollResult extends Omit<PollOutcome, 'changes'> {
	/** What the poll changes in the memory; undefined when nothing could be read (the memory stays as it is). */
	changes: MemoryChanges | undefined;
	now: number;
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

/**
 * One poll: reads what the planner asks for within the budget, then decides the events and the next
 * memory. The first poll (no memory) is a baseline: it emits nothing.
 */
export async function pollChanges(source: PageSource, previous: TriggerMemory | undefined, settings: TriggerSettings, options: PollOptions): Promise<PollResult> {
	const calls: PollCalls = { sessions: 0, requests: 0, getRequest: 0 };
	const read = await readPages(source, previous, settings, { ...options, calls });
	const { pages, planner, clock } = read;
	const now = planner.now ?? pollNow(pages, read.fallbackNow);
	if (pages.length === 0 || (previous && !planner.windows)) {
		return { events: [], changes: undefined, baseline: !previous, now, cut: true, ...emptyCounts(), calls };
	}
	const input = { pages, now, settings, rotation: planner.rotation, fallbackNow: read.fallbackNow, skewMs: clock.skewMs };
	if (!previous) return { ...pollCore({ ...input, memory: undefined }), now, cut: read.cut, calls };
	const judged = judgePoll({ ...input, memory: previous });
	const handled = await attachRequests(source, judged.ready, { pages, budget: options.budget, needs: options.needsRequest, calls });
	const outcome = settlePoll(judged, handled);
	return { ...outcome, now, cut: read.cut || outcome.cut, calls };
}
