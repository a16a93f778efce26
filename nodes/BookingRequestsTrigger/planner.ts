/**
 * Which page to read next: a pure planner, driven page by page by the I/O loop (fetch.ts) or by the
 * in-memory list model of the tests. It never decides what is true — windows.ts proves that from the
 * runs actually read — it only makes the reading cheap and fits it into the poll budget:
 *
 * 1. Page 1 of each list (the top windows start there; it also gives `total` and the server's time).
 * 2. Each window not covered yet is a target. Windows at the top of a list (new requests, completed
 *    sessions) are read downward from page 1. The abandonment horizon, usually deep in the session list,
 *    is found by position — `below` (items under the window's floor counted from the end: stable when
 *    items are added at the top) and the checkpoints of earlier polls give a guess, the run's first read
 *    checks it, a galloping/binary search by timestamp corrects it — or, when it is near, by reading on
 *    from page 1.
 * 3. The pages the poll can still afford are shared: first every window's step of progress (no window
 *    emits past the one furthest behind), then the rest by need. A window that does not fit is read from
 *    its oldest part: from the page holding its floor, the affordable number of pages upward, then
 *    downward from there (windows.ts says why that is exact).
 */
import { isLastPage } from '../shared/transport/pageReader';
import type { TriggerSettings } from './diff';
import { listsFor, locatedBelow, windowsOf } from './diff';
import type { TriggerState } from './state';
import type { ListItem, ListName, PageObservation, Window } from './windows';
import { coverageByRun, readBounds, runsOf, sortTime, topTime } from './windows';

export interface PageRequest {
	list: ListName;
	page: number;
}

export interface PlanInput {
	previous: TriggerState | undefined;
	settings: TriggerSettings;
	/** Every page read in this poll, in order: the driver appends each answer before resuming the plan. */
	pages: PageObservation[];
	/** Calls the poll can still afford (0: stop). */
	pagesLeft: () => number;
	/** "Now" when no answer carries a `Date` header (n8n's clock corrected by the last measured skew). */
	fallbackNow: number;
}

/** Pages a run may read past its share when the boundary moved down meanwhile. */
const SLACK_PAGES = 2;
/** Pages read on from page 1 before searching, when where a window's floor lies is not known. */
const QUICK_PAGES = 2;
/** The session windows are read as one run when the band between them is at most 1/this of the pages left. */
const ONE_RUN_FACTOR = 3;

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

interface Target {
	list: ListName;
	window: Window;
	/** Read from page 1 downward (windows at the top of the list). */
	fromTop: boolean;
	/** One run for both session windows: the completions window it also serves (targetsOf). */
	completions?: Window;
}

function pageOf(index: number, perPage: number): number {
	return Math.max(1, Math.floor(index / perPage) + 1);
}

/** Shares `left` pages between needs: each gets its need if the equal share allows, the rest is re-shared. */
export function shareBudget(needs: number[], left: number): number[] {
	const shares = needs.map(() => 0);
	const order = needs.map((_, i) => i).sort((a, b) => needs[a] - needs[b]);
	let remaining = Math.max(0, left);
	let count = order.length;
	for (const i of order) {
		const share = Math.floor(remaining / count);
		shares[i] = Math.min(needs[i], share);
		remaining -= shares[i];
		count--;
	}
	return shares;
}

type Plan<T> = Generator<PageRequest, T, void>;
type StopTest = (time: number, item: ListItem) => boolean;

/** The stop of a window (windows.ts): an item at or below its floor, or a handled item of the tie being drained. */
function stopOf(window: Window): StopTest {
	return (time, item) => time <= window.lo || (window.tie !== undefined && time === window.tie && window.done.has(time, item.id));
}

/** Where a window stands in event time, its pages per ms above its floor, and pages it reads before it moves. */
interface Pace {
	start: number;
	perMs: number;
	fixed: number;
	/** Event time at which the window is read through (the held window ends at its newest session). */
	end?: number;
}

/** Pages a window reads to cover up to event time `time` (the partly read page at each end included). */
function pagesToReach(pace: Pace, time: number): number {
	const until = Math.min(time, pace.end ?? Infinity);
	return time > pace.start ? Math.ceil(pace.fixed + Math.max(0, until - pace.start) * pace.perMs) + 1 : 0;
}

/** The event time all windows reach with `left` pages (undefined when all of them fit up to `now`). */
function reachWith(paces: Pace[], left: number, now: number): number | undefined {
	const cost = (time: number) => paces.reduce((sum, pace) => sum + pagesToReach(pace, time), 0);
	let low = Math.min(...paces.map((pace) => pace.start));
	let high = now + 1;
	if (cost(high) <= left) return undefined;
	for (let i = 0; i < 50; i++) {
		const middle = (low + high) / 2;
		if (cost(middle) <= left) low = middle;
		else high = middle;
	}
	return low;
}

export class Planner {
	/** The poll's now (set after the first pages). */
	now: number | undefined;
	/** The windows of this poll (undefined for a baseline). */
	windows: Window[] | undefined;

	constructor(private readonly input: PlanInput) {}

	private get pages() {
		return this.input.pages;
	}

	private lastRead(list: ListName): PageObservation | undefined {
		for (let i = this.pages.length - 1; i >= 0; i--) if (this.pages[i].list === list) return this.pages[i];
		return undefined;
	}

	private latestOfPage(list: ListName, page: number): PageObservation | undefined {
		for (let i = this.pages.length - 1; i >= 0; i--) if (this.pages[i].list === list && this.pages[i].page === page) return this.pages[i];
		return undefined;
	}

	private shape(list: ListName): { total: number | undefined; perPage: number; lastPage: number } {
		const last = this.lastRead(list);
		const perPage = last?.perPage ?? 100;
		const total = last?.total;
		return { total, perPage, lastPage: total === undefined ? Infinity : Math.max(1, Math.ceil(total / perPage)) };
	}

	/** Pages kept for the targets still to be read (a search or a run of this one may not use them). */
	private reserve = 0;

	private read(list: ListName, page: number): PageRequest | undefined {
		return this.input.pagesLeft() >= 1 + this.reserve ? { list, page } : undefined;
	}

	*reads(): Plan<void> {
		const { previous, settings } = this.input;
		const lists = listsFor(settings);
		// Requests first: the session list, read after, is then known up to at least the newest request
		// (a completion writes both), so neither list holds the other's events back (frontier, diff.ts).
		for (const list of ['requests', 'sessions'] as const) {
			if (!lists[list]) continue;
			const request = this.read(list, 1);
			if (!request) return;
			yield request;
		}
		this.now = pollNow(this.pages, this.input.fallbackNow);
		if (!previous) {
			// Baseline: find where the abandonment horizon starts, so the next polls can go straight there.
			if (lists.sessions) {
				const horizon = this.now - settings.abandonedAfterMs;
				if (locatedBelow(this.pages, 'sessions', horizon) === undefined) yield* this.locate('sessions', (at) => at <= horizon, 2);
			}
			return;
		}
		this.windows = windowsOf(previous, settings, this.now);
		yield* this.readTargets(this.targetsOf(this.windows));
	}

	/**
	 * One target per window. The completions and the horizon of the session list are read separately
	 * even when they touch: drained from their oldest parts, they sit a whole delay apart in the list,
	 * and reading the band between them would cost pages that no event needs. A run from page 1 that
	 * is still open serves the horizon too when extending it is cheaper (readTarget).
	 */
	private targetsOf(windows: Window[]): Target[] {
		const targets = windows
			.filter((window) => window.hi > window.lo)
			.map((window) => ({ list: window.list, window, fromTop: window.hi === Infinity }));
		const completions = targets.find((target) => target.window.name === 'completions');
		const horizon = targets.find((target) => target.window.name === 'horizon');
		if (!completions || !horizon || !this.oneSessionRun(completions.window, horizon.window)) return targets;
		// One read of the session list serves both windows: a run from the horizon's floor upward, as far
		// as the poll affords (its oldest part first, like any window that does not fit).
		const both: Target = { list: 'sessions', window: { ...horizon.window, hi: Infinity }, fromTop: false, completions: completions.window };
		const merged = [...targets.filter((target) => target !== completions && target !== horizon), both];
		// With every pace known: the reading that brings all windows further in this poll, or, when both
		// fit, the cheaper one. Otherwise the windows are read apart (as before).
		const left = this.input.pagesLeft();
		const apart = this.reach(targets.filter((target) => !this.covered(target)), left);
		const together = this.reach(merged.filter((target) => !this.covered(target)), left);
		if (!apart || !together) return targets;
		if (apart.time === undefined && together.time === undefined) return together.cost <= apart.cost ? merged : targets;
		return (together.time ?? Infinity) >= (apart.time ?? Infinity) ? merged : targets;
	}

	/**
	 * Whether the completions and the horizon are read as one run of the session list: when the band
	 * between their floors (a delay's worth of sessions, read by both) is small against the pages this
	 * poll affords, one run moves both windows further than two runs that split the pages (each page is
	 * then read once, not once per window). With a band that large the windows are read apart.
	 */
	private oneSessionRun(completions: Window, horizon: Window): boolean {
		if (completions.below === undefined || horizon.below === undefined || completions.lo < horizon.lo) return false;
		const { perPage } = this.shape('sessions');
		const band = Math.ceil(Math.max(0, completions.below - horizon.below) / perPage);
		return band * ONE_RUN_FACTOR <= this.input.pagesLeft();
	}


	/** The run that the next page of `list` would extend (the latest reads of the list, consecutive). */
	private currentRun(list: ListName) {
		return runsOf(this.pages, list).at(-1);
	}

	/** Whether the target's window is covered by what was read. */
	private covered(target: Target): boolean {
		const runs = runsOf(this.pages, target.list);
		const { window } = target;
		return window.hi <= window.lo || runs.some((run) => coverageByRun(window, run)?.complete === true);
	}

	/** Whether the current run of the target's list reached the window's stop. */
	private runStopped(target: Target): boolean {
		const run = this.currentRun(target.list);
		return run !== undefined && (target.window.hi <= target.window.lo || coverageByRun(target.window, run) !== undefined);
	}

	/** The page of the first page-1 run still being extended, or 0. */
	private openTopRunEnd(list: ListName): number {
		const run = this.currentRun(list);
		return run && run.pages[0].page === 1 ? run.pages[run.pages.length - 1].page : 0;
	}

	/**
	 * Where `time` sits in the session list, counted from the end: interpolated between the checkpoints
	 * around it (a checkpoint [t, n]: every session at or before t is at most n from the end).
	 */
	private fromEndAt(time: number): number | undefined {
		const checkpoints = [...(this.input.previous?.sessions?.checkpoints ?? [])].sort((a, b) => a[0] - b[0]);
		const after = checkpoints.find((checkpoint) => checkpoint[0] > time);
		if (!after) return undefined;
		const before = checkpoints.filter((checkpoint) => checkpoint[0] <= time).at(-1);
		if (!before || after[0] === before[0]) return after[1];
		const share = (time - before[0]) / (after[0] - before[0]);
		return Math.round(before[1] + share * Math.max(0, after[1] - before[1]));
	}

	/** Guess of the index (in the list now) of the target's stop: the first item at or below its floor. */
	private stopIndexGuess(target: Target): number | undefined {
		const { total } = this.shape(target.list);
		if (total === undefined) return undefined;
		const { window } = target;
		if (window.below !== undefined) return Math.max(0, total - window.below);
		// Interpolated between checkpoints, unless the last poll saw the floor is deeper than that.
		const estimate = target.list === 'sessions' ? this.fromEndAt(window.lo) : undefined;
		if (estimate === undefined || (window.deeper !== undefined && estimate > window.deeper)) return undefined;
		return Math.max(0, total - estimate);
	}

	/** Guess of the page holding the target's stop. */
	private bottomGuess(target: Target): number | undefined {
		const index = this.stopIndexGuess(target);
		if (index === undefined) return undefined;
		const { perPage, lastPage } = this.shape(target.list);
		return Math.min(lastPage, pageOf(index, perPage));
	}

	/** Guess of the page holding the newest session at or below the horizon's top. */
	private startGuess(window: Window): number {
		const { total, perPage } = this.shape(window.list);
		const fromEnd = window.hiBelow ?? this.fromEndAt(window.hi);
		if (total === undefined || fromEnd === undefined) return 1;
		const index = total - fromEnd - 1;
		return index < 0 ? 1 : pageOf(index, perPage);
	}

	private need(target: Target): number {
		const bottom = this.bottomGuess(target);
		if (target.fromTop) {
			const end = this.openTopRunEnd(target.list);
			return bottom === undefined ? 2 : Math.max(1, bottom - end);
		}
		if (bottom === undefined) return 4;
		return Math.max(1, bottom - Math.min(bottom, this.startGuess(target.window)) + 1) + 1;
	}

	/**
	 * Pages one step of progress on the target takes: no window moves past the one furthest behind, so
	 * every window gets its step before any gets more.
	 */
	private minNeed(target: Target): number {
		const index = this.stopIndexGuess(target);
		if (index === undefined) return QUICK_PAGES + 1;
		const { perPage } = this.shape(target.list);
		const end = this.openTopRunEnd(target.list);
		const bottom = pageOf(index, perPage);
		if (target.fromTop && end > 0 && bottom - end <= 2) return Math.max(1, bottom - end);
		return index > 0 && index % perPage === 0 ? 2 : 1;
	}

	private *readTargets(all: Target[], deferring = true): Plan<void> {
		const open = all.filter((target) => !this.covered(target));
		// A run from page 1 that ends within two more pages goes first (cheap, and page 1 is read already);
		// then the windows furthest behind.
		const quick = (target: Target) => Number(target.fromTop && this.openTopRunEnd(target.list) > 0 && this.need(target) <= 2);
		const behind = (target: Target) => target.window.lo + target.window.offset;
		open.sort((a, b) => quick(b) - quick(a) || behind(a) - behind(b));
		// When every window's pace is known, its share is what reaches one common event time: no window
		// reads past where the others get to (the frontier), so no page is read for nothing. The largest
		// share goes first; the others then read up to where it got.
		const paced = this.pacedShares(open, this.input.pagesLeft());
		// A window whose first event lies beyond where the others get to this poll holds nobody back: not
		// read now. Paces are estimates: when the others are through with pages to spare, it comes after.
		const later: Target[] = [];
		if (paced && deferring) for (let i = open.length - 1; i >= 0; i--) if (paced.get(open[i]) === 0) later.push(...open.splice(i, 1));
		if (paced) open.sort((a, b) => (paced.get(b) as number) - (paced.get(a) as number) || Number(b.list === 'sessions') - Number(a.list === 'sessions'));
		let reached = Infinity;
		while (open.length > 0) {
			const left = this.input.pagesLeft();
			if (left < 1) return;
			const mins = open.map((target) => this.minNeed(target));
			const needs = open.map((target) => this.need(target));
			const minimum = mins.reduce((sum, pages) => sum + pages, 0);
			// Each target's step first; what is left is shared by what each needs beyond it.
			const extra = shareBudget(needs.map((pages, i) => Math.max(0, pages - mins[i])), Math.max(0, left - minimum));
			const target = open.shift() as Target;
			let pace = paced?.get(target);
			if (pace !== undefined && reached !== Infinity) {
				const own = this.paceOf(target);
				if (own) pace = Math.min(pace, pagesToReach(own, reached));
				if (pace === 0 && deferring) {
					later.push(target);
					continue;
				}
			}
			// The last one may use whatever is left (needs are estimates; a larger run only helps).
			const share =
				pace !== undefined
					? Math.max(1, Math.min(left, Math.max(mins[0], pace)))
					: open.length === 0
						? left
						: Math.max(1, Math.min(left, mins[0] + extra[0]));
			yield* this.readTarget(target, share, minimum - mins[0]);
			if (paced) reached = Math.min(reached, this.reachedBy(target));
		}
		if (later.length > 0 && all.every((target) => later.includes(target) || this.covered(target)) && this.input.pagesLeft() >= 1) {
			yield* this.readTargets(later, false);
		}
	}

	/** Event time up to which the runs read so far cover the target's window(s). */
	private reachedBy(target: Target): number {
		const runs = runsOf(this.pages, target.list);
		const upper = (window: Window) => Math.max(window.lo, ...runs.map((run) => coverageByRun(window, run)?.upper ?? -Infinity));
		if (target.completions) return upper(target.completions);
		return upper(target.window) + target.window.offset;
	}

	/**
	 * The event time every target reaches with `left` pages shared by pace (time undefined: all reach
	 * now, at `cost` pages); undefined when a pace is not known.
	 */
	private reach(targets: Target[], left: number): { time: number | undefined; cost: number } | undefined {
		const paces = targets.map((target) => this.paceOf(target));
		if (targets.length === 0 || paces.some((pace) => pace === undefined)) return undefined;
		const now = this.now as number;
		return { time: reachWith(paces as Pace[], left, now), cost: (paces as Pace[]).reduce((sum, pace) => sum + pagesToReach(pace, now + 1), 0) };
	}

	/**
	 * Where a target's window stands in event time, its pace (pages per ms of the list above its floor,
	 * from the list length now and `below`) and the pages it must read before it moves (one run for
	 * both session windows: the band between their floors). Undefined when not known.
	 */
	private paceOf(target: Target): Pace | undefined {
		const { total, perPage } = this.shape(target.list);
		const window = target.completions ?? target.window;
		if (total === undefined || window.below === undefined || this.now === undefined) return undefined;
		if (window.hiBelow !== undefined && window.hi > window.lo) {
			// A window with a known end (held sessions): its own items over its own span.
			const items = Math.max(0, window.hiBelow - window.below);
			return { start: window.lo + window.offset, perMs: items / (window.hi - window.lo) / perPage, fixed: 0, end: window.hi + window.offset };
		}
		// Up to the newest item of the list (not now: a quiet time at the top holds no pages).
		const first = this.latestOfPage(target.list, 1);
		const newest = (first ? topTime(first) : null) ?? this.now;
		const span = Math.min(this.now, newest) - window.lo;
		if (span <= 0) return undefined;
		const fixed = target.completions && target.window.below !== undefined ? Math.max(0, window.below - target.window.below) / perPage : 0;
		return { start: window.lo + (target.completions ? 0 : window.offset), perMs: Math.max(0, total - window.below) / span / perPage, fixed };
	}

	/** Shares of `left` pages that bring every target to one event time (undefined: a pace is not known). */
	private pacedShares(targets: Target[], left: number): Map<Target, number> | undefined {
		if (targets.length < 2) return undefined;
		const paces = targets.map((target) => this.paceOf(target));
		if (paces.some((pace) => pace === undefined)) return undefined;
		const time = reachWith(paces as Pace[], left, this.now as number);
		if (time === undefined) return undefined; // everything fits: no need to pace
		return new Map(targets.map((target, i) => [target, pagesToReach(paces[i] as Pace, time)]));
	}

	/** Reads the target within `share` pages, leaving `reserve` pages for the targets after it. */
	private *readTarget(target: Target, share: number, reserve = 0): Plan<void> {
		this.reserve = reserve;
		if (this.covered(target)) return;
		const list = target.list;
		const window = target.window;
		const isStop = stopOf(window);
		const { perPage } = this.shape(list);
		const end = this.openTopRunEnd(list);
		let bottom = this.bottomGuess(target);
		const index = this.stopIndexGuess(target);
		let stopOpensPage = index !== undefined && index > 0 && index % perPage === 0 && bottom === pageOf(index, perPage);
		if (target.fromTop) {
			if (bottom !== undefined && end > 0 && bottom - end <= share) return yield* this.extendRun(target, end + 1, share);
			if (bottom !== undefined && bottom <= share) return yield* this.extendRun(target, 1, share);
			if (bottom === undefined && end > 0) {
				// Where the floor is is not known: first the next pages from the top (a little more than a page
				// changed, the usual case), then a search.
				yield* this.extendRun(target, end + 1, Math.min(share, QUICK_PAGES), 0);
				if (this.covered(target)) return;
			}
		} else if (end > 0 && bottom !== undefined && bottom - end <= Math.min(share, this.need(target))) {
			// The run from page 1 is still open and reaches the horizon's floor as cheaply as a search would.
			return yield* this.extendRun(target, end + 1, share);
		}
		const before = this.pages.length;
		const left = () => Math.max(1, share - (this.pages.length - before));
		if (bottom === undefined) {
			// Where the floor is is not known: search for it, from the bound the last poll found if any.
			const { total, perPage: size } = this.shape(list);
			const guess =
				window.deeper !== undefined && total !== undefined
					? pageOf(total - window.deeper, size)
					: target.fromTop
						? (this.lastRead(list)?.page ?? 1) + 1
						: this.startGuess(window);
			bottom = yield* this.locate(list, isStop, guess);
			if (bottom === undefined || this.covered(target)) return;
			stopOpensPage = this.stopAtPageStart(list, bottom, isStop);
		}
		let start = 1;
		if (!target.fromTop) {
			start = Math.min(bottom, this.startGuess(window));
			// The window may fit: make sure the run starts above its top (the probe is the run's first page).
			if (bottom - start + 1 <= left()) {
				const found = yield* this.locateStart(list, window.hi, start, bottom);
				if (found === undefined || this.covered(target)) return;
				start = found;
			}
		}
		// Oldest part first: the affordable pages just above the floor (and, when the stop opens its page,
		// the page before it too). The run itself checks where the floor is: reading goes on to the stop.
		const last = stopOpensPage ? bottom - 1 : bottom;
		start = Math.max(1, start, Math.min(last, bottom - left() + 1));
		return yield* this.extendRun(target, start, Math.max(left(), bottom - start + 1));
	}

	/** Reads downward from `start` until the run reaches the target's stop, within `share` (+ slack) pages. */
	private *extendRun(target: Target, start: number, share: number, slack = SLACK_PAGES): Plan<void> {
		const list = target.list;
		let page = start;
		let read = 0;
		// The reads just made (a search's last probes, read downward) already run through `start`: go on.
		const run = this.currentRun(list);
		const last = run?.pages[run.pages.length - 1].page;
		if (run && last !== undefined && run.pages[0].page <= start && start <= last) page = last + 1;
		else {
			const request = this.read(list, page);
			if (!request) return;
			yield request;
			page++;
			read++;
		}
		while (!this.runStopped(target) && read < share + slack) {
			const request = this.read(list, page);
			if (!request) return;
			yield request;
			page++;
			read++;
		}
	}

	/**
	 * The page holding the first item for which `isStop` holds (the end of the list counts), in a list
	 * ordered so that it holds from some position on; found from a guess by galloping then bisecting.
	 * Pages already read in this poll are used without a call. Undefined when the budget ran out first.
	 */
	private *locate(list: ListName, isStop: StopTest, guess: number): Plan<number | undefined> {
		let above = 0;
		let below = Infinity;
		let step = 1;
		let page = Math.max(1, Math.min(guess, this.shape(list).lastPage));
		for (;;) {
			let observed = this.latestOfPage(list, page);
			if (!observed) {
				const request = this.read(list, page);
				if (!request) return undefined;
				yield request;
				observed = this.latestOfPage(list, page) as PageObservation;
			}
			const where = this.classify(observed, isStop);
			if (where === 'contains') return page;
			if (where === 'above') above = Math.max(above, page);
			else {
				if (page === 1) return 1;
				below = Math.min(below, page);
			}
			if (below === above + 1) return below;
			const { lastPage } = this.shape(list);
			if (above > 0 && below !== Infinity) page = Math.floor((above + below) / 2);
			else if (where === 'above') {
				const next = Math.min(lastPage, page + step);
				if (next <= page) return page;
				page = next;
				step *= 2;
			} else {
				page = Math.max(1, page - step);
				step *= 2;
			}
		}
	}

	/** The page holding the last item above `time` (where a downward run over (…, time] must start). */
	private *locateStart(list: ListName, time: number, guess: number, bottom: number): Plan<number | undefined> {
		const page = yield* this.locate(list, (at) => at <= time, Math.min(guess, bottom));
		if (page === undefined) return undefined;
		const observed = this.latestOfPage(list, page);
		const top = observed ? topTime(observed) : null;
		const start = top === null || top <= time ? Math.max(1, page - 1) : page;
		return Math.min(start, bottom);
	}

	/** Whether the stop sits at the very start of `page` (a run must then start on the page before). */
	private stopAtPageStart(list: ListName, page: number, isStop: StopTest): boolean {
		const observed = this.latestOfPage(list, page);
		const first = observed?.items.find((item) => sortTime(list, item) !== null);
		return page > 1 && first !== undefined && isStop(sortTime(list, first) as number, first);
	}

	private classify(page: PageObservation, isStop: StopTest): 'above' | 'contains' | 'below' {
		const dated = page.items.filter((item) => sortTime(page.list, item) !== null);
		if (dated.length === 0) return 'below';
		if (isStop(sortTime(page.list, dated[0]) as number, dated[0])) return 'below';
		if (dated.some((item) => isStop(sortTime(page.list, item) as number, item))) return 'contains';
		// All above: on the last page the boundary is the end of the list.
		return isLastPage(page, page.items.length, (page.page - 1) * page.perPage) ? 'contains' : 'above';
	}
}
