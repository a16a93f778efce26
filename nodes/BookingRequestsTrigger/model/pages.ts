/**
 * The two lists as a poll reads them: pages, the order of each list, and runs of pages read
 * downward. Pure.
 *
 * The lists are ordered newest first (sessions by `updated_at`, requests by `created_at`). Between two
 * page reads an item can only be inserted at the top or jump to the top (a save, a completion). So a
 * run of pages read DOWNWARD (page s, s+1, s+2, … in that order) never skips an item that stays put:
 * what happens above only pushes items down (read twice at worst, deduplicated by id). Reading upward
 * would skip, so the trigger never relies on it.
 */
import { timestampMs } from '../../shared/utils';

export type ListName = 'sessions' | 'requests';

/**
 * A row can become visible up to this long after the timestamp the server gave it (a late commit):
 * the newest rows are remembered by id until the server's clock is this far past them.
 */
export const EDGE_WINDOW_MS = 5_000;

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
export function sortTime(list: ListName, item: ListItem): number | null {
	const value = list === 'sessions' ? item.updated_at : item.created_at;
	return timestampMs(value);
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

/** The booking requests among the pages read. */
export function requestsRead<T = ListItem>(pages: PageObservation[]): T[] {
	const requests: T[] = [];
	for (const page of pages) if (page.list === 'requests') for (const item of page.items) requests.push(item as unknown as T);
	return requests;
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

/**
 * The poll's "now" on the API server's clock, after the first pages: the `Date` headers (1 s
 * resolution, so up to a second late) raised to the newest timestamp read when that is within the
 * second after its answer's `Date` (it happened, so it is not in the future). Never later than the
 * server's real time.
 */
export function pollNow(pages: PageObservation[], fallbackNow: number): number {
	if (pages.length === 0) return fallbackNow;
	const bounds = readBounds(pages, fallbackNow);
	return bounds.get(pages[pages.length - 1].seq) as number;
}

/**
 * How far a window at the top of `list` may have handled everything: EDGE_WINDOW_MS below the list's
 * latest read of page 1 (not below the poll's end: a row committed just after that read, stamped up to
 * EDGE_WINDOW_MS before it, is still to come when the poll goes on reading long), and below `now`. Rows
 * above it are remembered by id.
 */
export function edgeFloor(pages: PageObservation[], list: ListName, now: number): number {
	const bounds = readBounds(pages, now);
	const firsts = pages.filter((page) => page.list === list && page.page === 1);
	const topRead = firsts.length === 0 ? now : Math.max(...firsts.map((page) => bounds.get(page.seq) ?? now));
	return Math.min(now, topRead) - EDGE_WINDOW_MS;
}

/** A page the planner asks for. */
export interface PageRequest {
	list: ListName;
	page: number;
}

/** A plan of reads: yields the pages it wants, one at a time (the driver reads each before resuming it). */
export type Plan<T> = Generator<PageRequest, T, void>;

/** Asks for a page when the poll can afford it (undefined: stop). */
export type ReadGate = (list: ListName, page: number) => PageRequest | undefined;

/** The page holding the item at `index` (0-based, from the top). */
export function pageOf(index: number, perPage: number): number {
	return Math.max(1, Math.floor(index / perPage) + 1);
}
