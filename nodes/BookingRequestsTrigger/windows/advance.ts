/**
 * How a window moves on after a poll, whichever window it is: its new floor, the ids handled above it,
 * and where the floor lies in the list (`below`, a hint for the planner). Pure.
 */
import type { Located, ListName, PageObservation } from '../model/pages';
import { edgeFloor, runsOf, sortTime } from '../model/pages';
import { isLastPage } from '../../shared/pages';
import { KeySet } from '../state/keySet';
import { coverageByRun, isStop } from './coverage';
import type { Candidate, Coverage, Window, WindowMemory, WindowOutcome } from './window';

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

/** Items at or below a boundary counted from the end of the list, from the run that covered the window. */
export function belowOf(coverage: Coverage | undefined, isBelow: (entry: Located) => boolean, fallback: number | undefined): number | undefined {
	if (!coverage || coverage.kept) return fallback;
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
		// A page wholly above the floor (not the stop: handled items of a tie lie above the floor too).
		const times = page.items.map((item) => sortTime(page.list, item));
		if (times.some((time) => time === null || time <= window.floor)) continue;
		const bound = Math.max(0, page.total - page.page * page.perPage);
		if (below !== undefined && bound < below) below = undefined;
		if (deeper === undefined || bound < deeper) deeper = bound;
	}
	below ??= locatedBelow(pages, window.list, window.floor);
	return below !== undefined ? { below } : deeper !== undefined ? { deeper } : {};
}

/** A window's memory after this poll: handled up to `limit` at most, with the handled candidates. */
export function nextWindow(outcome: WindowOutcome, handled: Candidate[], limit: number, pages: PageObservation[]): WindowMemory {
	const { window, coverage } = outcome;
	if (!coverage) {
		return { floor: window.floor, done: window.done, ...(window.tie !== undefined ? { tie: window.tie } : {}), ...hintWithoutCoverage(pages, window) };
	}
	const floor = Math.max(window.floor, Math.min(outcome.upper, limit));
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
	const next = { floor, done, ...(tie !== undefined ? { tie } : {}) };
	const below = belowOf(coverage, (entry) => isStop(next, entry.time, entry.item), window.below);
	return { ...next, ...(below !== undefined ? { below } : {}) };
}

/** A window of this poll from its memory, with this poll's bounds. */
export function openFrom(memory: WindowMemory, where: Pick<Window, 'name' | 'list' | 'hi' | 'offset'>): Window {
	return {
		name: where.name,
		list: where.list,
		floor: memory.floor,
		hi: where.hi,
		offset: where.offset,
		done: memory.done,
		...(memory.tie !== undefined ? { tie: memory.tie } : {}),
		...(memory.below !== undefined ? { below: memory.below } : {}),
		...(memory.deeper !== undefined ? { deeper: memory.deeper } : {}),
	};
}

/** A window's memory at the first poll: its floor, nothing handled above it, and where the floor lies in the list. */
export function baselineAt(pages: PageObservation[], list: ListName, floor: number): WindowMemory {
	const below = locatedBelow(pages, list, floor);
	return { floor, done: new KeySet(), ...(below !== undefined ? { below } : {}) };
}

/**
 * The first poll of a window at the top of a list starts it where later polls leave it: its floor at
 * the edge (model/pages.ts `edgeFloor`), the rows read above it remembered as handled (history, as are
 * rows stamped ahead of the server's clock), so that a row committed late into the edge after the first
 * poll is reported like any new one. The planner reads page 1 on down to the edge; when the poll could
 * not (more rows in the edge than it can read), the floor is the lowest row it read: the rows below it
 * are history.
 */
export function baselineAtTop(pages: PageObservation[], list: ListName, now: number): WindowMemory {
	const edge = edgeFloor(pages, list, now);
	const run = runsOf(pages, list).find((candidate) => candidate.pages[0].page === 1);
	const stopped = !run || coverageByRun({ name: list, list, floor: edge, hi: Infinity, offset: 0, done: new KeySet() }, run) !== undefined;
	const dated = (read: PageObservation[]) =>
		read.flatMap((page) => (page.list === list ? page.items : [])).flatMap((item) => {
			const time = sortTime(list, item);
			return time === null ? [] : [{ id: item.id, time }];
		});
	const reached = stopped ? [] : dated(run.pages).map((entry) => entry.time);
	const floor = reached.length === 0 ? edge : Math.max(edge, Math.min(...reached));
	const done = new KeySet();
	for (const { id, time } of dated(pages)) if (time > floor) done.add(time, id);
	const below = locatedBelow(pages, list, floor);
	return { floor, done, ...(below !== undefined ? { below } : {}) };
}
