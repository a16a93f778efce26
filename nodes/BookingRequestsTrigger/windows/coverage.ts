/**
 * What a poll's page reads prove about a window. Pure.
 *
 * A window (floor, hi] of one list's sort timestamps is COVERED by a run (model/pages.ts) when the run
 * reaches its "stop" (`isStop`): an item at or below the floor (or, while a tie group is drained, an
 * already handled item of the tie), or the end of the list. Then every item of the window with a
 * timestamp up to `upper` was read, where `upper` is +∞ for a run starting at page 1, else (the highest
 * timestamp on the run's first page) − 1 ms: every such item lies below that page's top item, and
 * nothing moves up into the run unseen. Everything the trigger decides rests on this; the planner only
 * chooses pages cheaply.
 */
import { isLastPage } from '../../shared/pages';
import type { ListItem, Located, Run } from '../model/pages';
import { sortTime, topTime } from '../model/pages';
import type { Coverage, Window, WindowMemory } from './window';

/**
 * Whether an item's timestamp is ahead of the server's clock: at least a second past the `Date` of the
 * answer that listed it (the header has a 1-second resolution). Such an item is reported at once, at
 * the frontier, rather than when the clock reaches it. An item newer than where the run began but not
 * ahead of the clock is left for the next poll (it lies above the window's new floor).
 */
export function aheadOfClock(entry: Located): boolean {
	return entry.page.serverDate !== undefined && entry.time >= entry.page.serverDate + 1000;
}

/**
 * The stop of a window: an item at or below its floor, or a handled item of the tie being drained. The
 * one stop test: the reads, the planner's searches and where a window's floor lies after a poll.
 */
export function isStop(window: Pick<WindowMemory, 'floor' | 'tie' | 'done'>, time: number, item: ListItem): boolean {
	return time <= window.floor || (window.tie !== undefined && time === window.tie && window.done.has(time, item.id));
}

/** The run's items down to the window's stop; `stopped`: it reached the stop or the list's end. */
function readToStop(window: Window, run: Run): { collected: Located[]; stop?: Located; stopped: boolean } {
	const seen = new Set<string>();
	const collected: Located[] = [];
	const first = run.pages[0];
	const above = (first.page - 1) * first.perPage;
	for (const page of run.pages) {
		for (const [i, item] of page.items.entries()) {
			seen.add(item.id);
			const time = sortTime(run.list, item);
			if (time === null) continue; // not placed by the order: never a stop, never in a window
			const located = { item, time, page, index: (page.page - 1) * page.perPage + i };
			if (isStop(window, time, item)) return { collected, stop: located, stopped: true };
			collected.push(located);
		}
		if (isLastPage(page, seen.size, above)) return { collected, stopped: true };
	}
	return { collected, stopped: false };
}

/**
 * What one run proves about a window; undefined when it reached no stop (it proves nothing).
 * `bound` is the read bound (pages.ts readBounds) of the run's first page.
 */
export function coverageByRun(window: Window, run: Run, bound = Infinity): Coverage | undefined {
	const { collected, stop, stopped } = readToStop(window, run);
	if (!stopped) return undefined;
	const first = run.pages[0];
	const fromTop = first.page === 1;
	const top = topTime(first);
	let upper = Math.min(fromTop ? bound : top === null ? -Infinity : top - 1, window.hi);
	let partial: number | undefined;
	if (upper <= window.floor) {
		// The run started inside a group of items sharing the timestamp just above the floor: it handles
		// the part of the group it read (the group's bottom), the rest comes in later polls.
		if (!fromTop && top !== null && top === window.floor + 1 && top <= window.hi) partial = top;
		upper = window.floor;
	}
	const items = collected.filter(
		(entry) => (entry.time > window.floor && (entry.time <= upper || (fromTop && entry.time <= window.hi && aheadOfClock(entry)))) || entry.time === partial,
	);
	return { run, upper, complete: fromTop || upper >= window.hi, items, partial, stop };
}

/** The best coverage of a window by the poll's runs: the highest `upper`; on equal, the later run. */
export function coverageOf(window: Window, runs: Run[], bounds: Map<number, number> = new Map()): Coverage | undefined {
	let best: Coverage | undefined;
	for (const run of runs) {
		const coverage = coverageByRun(window, run, bounds.get(run.pages[0].seq) ?? Infinity);
		if (!coverage) continue;
		if (!best || coverage.upper > best.upper || (coverage.upper === best.upper && (coverage.partial !== undefined || best.partial === undefined))) {
			best = coverage;
		}
	}
	return best;
}
