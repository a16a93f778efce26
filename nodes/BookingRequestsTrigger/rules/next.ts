/**
 * What a poll changes in the memory: each window moved on by what its handled decisions covered, the
 * customers' memory with what they added, pruned by event time. Pure. The decisions handled are a
 * prefix: the poll may stop before the frontier (no budget left to read a booking request), and the
 * memory then goes on from just before the first decision it could not handle.
 */
import type { Decision } from '../events/context';
import type { PageObservation } from '../model/pages';
import { edgeFloor } from '../model/pages';
import type { Checkpoint, MemoryChanges, SessionListMemory, TriggerMemory } from '../state/decoded';
import type { WindowMemories } from '../windows';
import { WINDOW_KINDS, windowsOfList } from '../windows';
import type { Candidate, WindowKind, WindowMemory } from '../windows/window';
import type { Evaluation } from './evaluate';

/** Checkpoints kept for the session list (thinned evenly beyond this). */
export const MAX_CHECKPOINTS = 48;

interface NextInput {
	previous: TriggerMemory;
	evaluation: Evaluation;
	decisions: Decision[];
	/** How many decisions (a prefix) the poll handled. */
	handled: number;
	/** Server clock minus n8n's clock measured in this poll (undefined: no `Date` header). */
	skewMs: number | undefined;
	/** Phone codes found shared in the bookings this poll read. */
	shared: Set<string>;
}

interface NextMemory {
	changes: MemoryChanges;
	/** The event time the poll judged up to (memories are pruned by it, not by now). */
	judgedUpTo: number;
}

/**
 * Keeps the checkpoints needed to place timestamps at or above `floor` (those after it, and the newest
 * one at or before it), at most MAX_CHECKPOINTS: beyond that, the one whose removal leaves the
 * smallest gap goes, so they stay spread over the window.
 */
export function pruneCheckpoints(checkpoints: Checkpoint[], floor: number): Checkpoint[] {
	const sorted = [...checkpoints].sort((a, b) => a[0] - b[0]);
	let first = 0;
	for (let i = 0; i < sorted.length; i++) if (sorted[i][0] <= floor) first = i;
	const kept = sorted.slice(first);
	while (kept.length > MAX_CHECKPOINTS) {
		let best = 1;
		for (let i = 2; i < kept.length - 1; i++) {
			if (kept[i + 1][0] - kept[i - 1][0] < kept[best + 1][0] - kept[best - 1][0]) best = i;
		}
		kept.splice(best, 1);
	}
	return kept;
}

/** The checkpoints after this poll: those before its read of page 1, and that read's [time, length]. */
export function nextCheckpoints(previous: Checkpoint[], pages: PageObservation[], now: number): Checkpoint[] {
	// The session list's page 1 as read in this poll.
	const first = pages.find((page) => page.list === 'sessions' && page.page === 1);
	const checkpoints = previous.filter((checkpoint) => checkpoint[0] < (first?.serverDate ?? now));
	if (first?.total !== undefined) checkpoints.push([first.serverDate ?? now, first.total]);
	return checkpoints;
}

/** Where a window's floor may go: up to the frontier and, at the top of a list, not into the last 5 s before its read of page 1 (model/pages.ts `edgeFloor`). */
function limits(evaluation: Evaluation, frontier: number): (kind: WindowKind, offset: number) => number {
	const { now, pages } = evaluation;
	return (kind, offset) => Math.min(frontier - offset, kind.edge ? edgeFloor(pages, kind.list, now) : Infinity);
}

/** Each window's memory after this poll, in the registry's order (a window may hand on to the ones after it). */
function nextWindows(previous: WindowMemories, evaluation: Evaluation, handledIn: (name: string) => Candidate[], limitOf: (kind: WindowKind, offset: number) => number): Record<string, WindowMemory> {
	const outcomeOf = (name: string) => evaluation.outcomes.find((entry) => entry.window.name === name);
	const windows: Record<string, WindowMemory> = {};
	const handedOn = new Map<string, unknown>();
	for (const kind of WINDOW_KINDS) {
		const outcome = outcomeOf(kind.name);
		const limit = outcome ? limitOf(kind, outcome.window.offset) : -Infinity;
		const advanced = kind.advance({ previous: previous[kind.name], outcome, handled: handledIn(kind.name), limit, pages: evaluation.pages, outcomeOf, handedOn });
		if (advanced.memory) windows[kind.name] = advanced.memory;
		if (advanced.handOn !== undefined) handedOn.set(kind.name, advanced.handOn);
	}
	return windows;
}

/**
 * The session list after this poll: kept while every window it must hold moved on (otherwise no session
 * event is read any more, and its windows go with it), with this poll's checkpoint, pruned to what its
 * deepest window still needs, and what the handled decisions add to the customers' memory.
 */
function nextSessionList(previous: SessionListMemory | undefined, windows: Record<string, WindowMemory>, input: { evaluation: Evaluation; handled: Decision[]; judgedUpTo: number; shared: Set<string> }): MemoryChanges['sessions'] {
	const { evaluation } = input;
	const own = windowsOfList('sessions');
	if (!previous || own.some((kind) => kind.required && !windows[kind.name])) {
		for (const kind of own) delete windows[kind.name];
		return undefined;
	}
	const deepest = Math.min(...own.filter((kind) => !kind.atTop).map((kind) => windows[kind.name]?.floor ?? Infinity));
	const checkpoints = nextCheckpoints(previous.checkpoints, evaluation.pages, evaluation.now);
	const customers = { shared: input.shared, added: input.handled, now: evaluation.now, judgedUpTo: input.judgedUpTo };
	return { checkpoints: pruneCheckpoints(checkpoints, deepest), customers };
}

/** What handling `decisions.slice(0, handled)` changes in the memory (the previous memory is only read). */
export function nextMemory(input: NextInput): NextMemory {
	const { previous, evaluation, decisions } = input;
	const now = evaluation.now;
	const cut = input.handled < decisions.length ? decisions[input.handled].candidate.at - 1 : evaluation.frontier;
	const frontier = Math.min(evaluation.frontier, cut);
	const handled = decisions.slice(0, input.handled);
	const handledIn = (name: string) => handled.map((decision) => decision.candidate).filter((candidate) => candidate.window === name);
	const windows = nextWindows(previous.windows, evaluation, handledIn, limits(evaluation, frontier));
	const judgedUpTo = Number.isFinite(frontier) ? Math.min(now, frontier) : now;
	const sessions = nextSessionList(previous.sessions, windows, { evaluation, handled, judgedUpTo, shared: input.shared });
	return { changes: { polledAt: now, skewMs: input.skewMs ?? previous.skewMs, ref: undefined, windows, ...(sessions ? { sessions } : {}), events: [] }, judgedUpTo };
}
