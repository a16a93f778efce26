/**
 * Windows of a list's order, and what a poll's page reads prove about them. Pure.
 *
 * The lists are ordered newest first (sessions by `updated_at`, requests by `created_at`). Between two
 * page reads an item can only be inserted at the top or jump to the top (a save, a completion). So a
 * run of pages read DOWNWARD (page s, s+1, s+2, … in that order) never skips an item that stays put:
 * what happens above only pushes items down (read twice at worst, deduplicated by id). Reading upward
 * would skip, so the trigger never relies on it.
 *
 * A window (lo, hi] of one list's sort timestamps is COVERED by a run when the run reaches a "stop":
 * an item at or below `lo` (or, while a tie group is drained, an already handled item of the tie), or
 * the end of the list. Then every item of the window with a timestamp up to `upper` was read, where
 * `upper` is +∞ for a run starting at page 1, else (the highest timestamp on the run's first page) − 1
 * ms: every such item lies below that page's top item, and nothing moves up into the run unseen.
 * Everything the trigger decides rests on this; the planner (planner.ts) only chooses pages cheaply.
 */
import { timestampMs } from '../../../nodes/shared/utils';
import { isLastPage } from '../../../nodes/shared/transport/pageReader';
import type { KeySet } from './memory';

export type ListName = 'sessions' | 'requests';
export type WindowName = 'requests' | 'completions' | 'horizon' | 'held';

export interface ListItem {
	id: string;
	[key: string]: unknown;
}

/** One page as read in a poll. `seq` orders all reads of the poll. */
export interface PageObservation {
	list: ListName;
	page: number;
	perPage: number;
	total?: number;
	items: ListItem[];
	serverDate?: number;
	seq: number;
}

/** Position of an item in its list's order; null when the order does not place it (null timestamp). */
/** Whether a session is completed (has its booking request): no Session Abandoned for it. */
export function hasRequest(session: ListItem): boolean {
	return typeof session.request_id === 'string' && session.request_id !== '';
}

export function sortTime(list: ListName, item: ListItem): number | null {
	return timestampMs(list === 'sessions' ? item.updated_at : item.created_at);
}

/** A window of one list to bring up to date in this poll. */
export interface Window {
	name: WindowName;
	list: ListName;
	/** Handled up to here (exclusive lower bound of the window). */
	lo: number;
	/** Upper bound (inclusive): +∞ for windows at the top of the list, now − delay for the horizon. */
	hi: number;
	/** Event time of an item = its sort time + offset (0, or the abandonment delay). */
	offset: number;
	/** Ids handled above `lo`. */
	done: KeySet;
	/** While a tie group (one timestamp) larger than one poll is drained: its timestamp. */
	tie?: number;
	/** Items at or below `lo`, counted from the end of the list (a hint, never trusted for correctness). */
	below?: number;
	/** When `below` is not known: at most this many items lie at or below `lo`. */
	deeper?: number;
	/** Items at or below `hi`, counted from the end (a hint for where a run over the window starts). */
	hiBelow?: number;
	/** Only these items (by timestamp and id) are the window's events (the held sessions: diff.ts). */
	only?: KeySet;
}

/** A run: pages of one list read consecutively downward (each the next page of the one read before it). */
export interface Run {
	list: ListName;
	pages: PageObservation[];
}

export function runsOf(pages: PageObservation[], list: ListName): Run[] {
	const runs: Run[] = [];
	let current: Run | undefined;
	for (const page of [...pages].filter((p) => p.list === list).sort((a, b) => a.seq - b.seq)) {
		const last = current?.pages[current.pages.length - 1];
		if (current && last && page.page === last.page + 1) current.pages.push(page);
		else runs.push((current = { list, pages: [page] }));
	}
	return runs;
}

/** Highest sort time on a page (null when no item on it has one). */
export function topTime(page: PageObservation): number | null {
	let top: number | null = null;
	for (const item of page.items) {
		const at = sortTime(page.list, item);
		if (at !== null && (top === null || at > top)) top = at;
	}
	return top;
}

export interface Located {
	item: ListItem;
	time: number;
	page: PageObservation;
	/** Index in the list at the time of the read (0-based). */
	index: number;
}

/**
 * How late in server time each read of the poll happened, at least: the highest `Date` header and
 * timestamp seen up to and including that read (a timestamp more than a second past its answer's `Date`
 * is ahead of the server's clock and not trusted). An item that appears after a read has a later
 * timestamp (modulo late commits: EDGE_WINDOW_MS), so a run from page 1 covers its window up to the
 * bound of its first read.
 */
export function readBounds(pages: PageObservation[], fallbackNow: number): Map<number, number> {
	const bounds = new Map<number, number>();
	let bound = -Infinity;
	for (const page of [...pages].sort((a, b) => a.seq - b.seq)) {
		const date = page.serverDate ?? fallbackNow;
		bound = Math.max(bound, date);
		const top = topTime(page);
		if (top !== null && top < date + 1000) bound = Math.max(bound, top);
		bounds.set(page.seq, bound);
	}
	return bounds;
}

export interface Coverage {
	run: Run;
	/** Every window item with a sort time in (lo, upper] was read by the run (upper ≤ hi). */
	upper: number;
	/** The run covers the whole window (upper reached hi, or the run started at page 1). */
	complete: boolean;
	/**
	 * Items read by the run above its stop: lo < time ≤ upper, or == partial; for a run from page 1 also
	 * those above upper (timestamps ahead of the server's clock).
	 */
	items: Located[];
	/** A tie group larger than the run, drained from the bottom: its timestamp (upper is then lo). */
	partial?: number;
	/** Where the run stopped: the stop item, or undefined for the end of the list. */
	stop?: Located;
}

function isStop(window: Window, time: number, item: ListItem): boolean {
	return time <= window.lo || (window.tie !== undefined && time === window.tie && window.done.has(time, item.id));
}

/**
 * What one run proves about a window; undefined when it reached no stop (it proves nothing).
 * `bound` is the read bound (readBounds) of the run's first page.
 */
export function coverageByRun(window: Window, run: Run, bound = Infinity): Coverage | undefined {
	const seen = new Set<string>();
	const collected: Located[] = [];
	let stop: Located | undefined;
	let stopped = false;
	const first = run.pages[0];
	const above = (first.page - 1) * first.perPage;
	for (const page of run.pages) {
		for (const [i, item] of page.items.entries()) {
			seen.add(item.id);
			const time = sortTime(run.list, item);
			if (time === null) continue; // not placed by the order: never a stop, never in a window
			const located = { item, time, page, index: (page.page - 1) * page.perPage + i };
			if (isStop(window, time, item)) {
				stop = located;
				stopped = true;
				break;
			}
			collected.push(located);
		}
		if (stopped || isLastPage(page, seen.size, above)) {
			stopped = true;
			break;
		}
	}
	if (!stopped) return undefined;
	const fromTop = first.page === 1;
	const top = topTime(first);
	let upper = Math.min(fromTop ? bound : top === null ? -Infinity : top - 1, window.hi);
	let partial: number | undefined;
	if (upper <= window.lo) {
		// The run started inside a group of items sharing the timestamp just above the floor: it handles
		// the part of the group it read (the group's bottom), the rest comes in later polls.
		if (!fromTop && top !== null && top === window.lo + 1 && top <= window.hi) partial = top;
		upper = window.lo;
	}
	const items = collected.filter(
		(entry) => (entry.time > window.lo && (entry.time <= upper || (fromTop && entry.time <= window.hi))) || entry.time === partial,
	);
	return { run, upper, complete: fromTop || upper >= window.hi, items, partial, stop };
}

/** The best coverage of a window by the poll's runs: the highest `upper`; on equal, the later run. */
export function coverageOf(window: Window, runs: Run[], bounds: Map<number, number> = new Map()): Coverage | undefined {
	let best: Coverage | undefined;
	for (const run of runs) {
		const coverage = coverageByRun(window, run, bounds.get(run.pages[0].seq) ?? Infinity);
		if (!coverage) continue;
		if (
			!best ||
			coverage.upper > best.upper ||
			(coverage.upper === best.upper && (coverage.partial !== undefined || best.partial === undefined))
		) {
			best = coverage;
		}
	}
	return best;
}
