/**
 * Windows of a list's order, and what a poll's page reads prove about them. Pure.
 *
 * A window (floor, hi] of one list's sort timestamps is COVERED by a run (pages.ts) when the run reaches
 * a "stop": an item at or below `floor` (or, while a tie group is drained, an already handled item of the
 * tie), or the end of the list. Then every item of the window with a timestamp up to `upper` was read,
 * where `upper` is +∞ for a run starting at page 1, else (the highest timestamp on the run's first
 * page) − 1 ms: every such item lies below that page's top item, and nothing moves up into the run
 * unseen. Everything the trigger decides rests on this; the planner only chooses pages cheaply.
 */
import { isLastPage } from '../../shared/pages';
import type { KeySet } from '../state/keySet';
import type { ListItem, ListName, Located, Run } from './pages';
import { sortTime, topTime } from './pages';

/**
 * The windows: `requests` (New Request, and the bookings Skip Customers Who Booked counts),
 * `completions` (Session Completed), `horizon` (sessions crossing now − Abandoned After) and `held`
 * (open drafts the horizon passed early, judged later).
 */
export type WindowName = 'requests' | 'completions' | 'horizon' | 'held';

/** Where a window is: its list, and the order of its events among equal event times. */
export const WINDOW_LISTS: Record<WindowName, { list: ListName; order: number }> = {
	held: { list: 'sessions', order: 0 },
	horizon: { list: 'sessions', order: 0 },
	completions: { list: 'sessions', order: 1 },
	requests: { list: 'requests', order: 2 },
};

/** What the trigger keeps of a window between polls (state/ encodes it). */
export interface WindowMemory {
	/** Every item at or below this sort time has been handled. */
	floor: number;
	/** Ids handled above the floor (late rows at the top, part of a tie group being drained). */
	done: KeySet;
	/** While a tie group larger than one poll is drained from its bottom: its timestamp. */
	tie?: number;
	/** Items at or below the floor, counted from the end of the list (a hint for where it lies). */
	below?: number;
	/** When `below` is not known: at most this many items lie at or below the floor. */
	deeper?: number;
}

/** The held drafts: a window over just these sessions (hashed id and `updated_at`). */
export interface HeldMemory extends WindowMemory {
	codes: KeySet;
	/** Sessions at or below the newest held one, counted from the end (where its pages start). */
	topBelow?: number;
}

/**
 * A window of one list to bring up to date in this poll: its memory (handled up to `floor`, the
 * exclusive lower bound) and what this poll adds to it.
 */
export interface Window extends WindowMemory {
	name: WindowName;
	list: ListName;
	/** Upper bound (inclusive): +∞ for windows at the top of the list, now − delay for the horizon. */
	hi: number;
	/** Event time of an item = its sort time + offset (0, or the abandonment delay). */
	offset: number;
	/** Items at or below `hi`, counted from the end (a hint for where a run over the window starts). */
	hiBelow?: number;
	/** Only these items (by timestamp and id) are the window's events (the held sessions). */
	only?: KeySet;
}

/** An item a window found in this poll: a possible event, judged by the window's event (events/). */
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

export interface Coverage {
	run: Run;
	/** Every window item with a sort time in (floor, upper] was read by the run (upper ≤ hi). */
	upper: number;
	/** The run covers the whole window (upper reached hi, or the run started at page 1). */
	complete: boolean;
	/**
	 * Items read by the run above its stop: floor < time ≤ upper, or == partial; for a run from page 1 also
	 * those above upper whose timestamps are ahead of the server's clock.
	 */
	items: Located[];
	/** A tie group larger than the run, drained from the bottom: its timestamp (upper is then the floor). */
	partial?: number;
	/** Where the run stopped: the stop item, or undefined for the end of the list. */
	stop?: Located;
}

/**
 * Whether an item's timestamp is ahead of the server's clock: at least a second past the `Date` of the
 * answer that listed it (the header has a 1-second resolution). Such an item is reported at once, at
 * the frontier, rather than when the clock reaches it. An item newer than where the run began but not
 * ahead of the clock is left for the next poll (it lies above the window's new floor).
 */
export function aheadOfClock(entry: Located): boolean {
	return entry.page.serverDate !== undefined && entry.time >= entry.page.serverDate + 1000;
}

/** The stop of a window: an item at or below its floor, or a handled item of the tie being drained. */
export function isStop(window: Window, time: number, item: ListItem): boolean {
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
