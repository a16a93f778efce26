/**
 * Which page to read next: a pure planner, driven page by page by the I/O loop (poll/engine.ts) or by the
 * in-memory list model of the tests. It never decides what is true — windows/coverage.ts proves that from the
 * runs actually read — it only makes the reading cheap and fits it into the poll budget:
 *
 * 1. Page 1 of each list (the top windows start there; it also gives `total` and the server's time).
 * 2. Each window not covered yet is a target. Windows at the top of a list (new requests, completed
 *    sessions) are read downward from page 1. The abandonment horizon, usually deep in the session list,
 *    is found by position — `below` (items under the window's floor counted from the end: stable when
 *    items are added at the top) and the checkpoints of earlier polls give a guess (listView.ts), the
 *    run's first read checks it, a galloping/binary search by timestamp corrects it (search.ts) — or,
 *    when it is near, by reading on from page 1.
 * 3. The pages the poll can still afford are shared (shares.ts): first every window's step of progress
 *    (no window emits past the one furthest behind), then the rest by need. A window that does not fit
 *    is read from its oldest part: from the page holding its floor, the affordable number of pages
 *    upward, then downward from there (windows/coverage.ts says why that is exact).
 */
import { listsFor, watchedRange, windowOffsets } from '../events';
import type { Rotation } from '../events/watched';
import { readRotation } from '../events/watched';
import type { TriggerMemory } from '../state/decoded';
import type { ListName, PageObservation, PageRequest, Plan } from '../model/pages';
import { pageOf, pollNow } from '../model/pages';
import type { TriggerSettings } from '../events';
import { KeySet } from '../state/keySet';
import { WINDOW_KINDS } from '../windows';
import { locatedBelow } from '../windows/advance';
import type { Window } from '../windows/window';
import { outcomesOf, windowsOf } from '../rules/evaluate';
import { ListView } from './listView';
import { evenShares, guessesStart, pagesToReach, densityOf, reach, shareBudget } from './shares';
import { locate, locateStart, stopAtPageStart } from './search';
import type { Target } from './targets';
import { covered, reachedBy, runStopped, stopOf } from './targets';
import { targetsOf } from './jointRuns';

export interface PlanInput {
	previous: TriggerMemory | undefined;
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
/** Pages the last target of a shared poll may read past its estimate of where the others got. */
const LAST_MARGIN_PAGES = 1;

export class Planner {
	/** The poll's now (set after the first pages). */
	now: number | undefined;
	/** The windows of this poll (undefined for a baseline). */
	windows: Window[] | undefined;
	/** Where the watched requests' rotation got to in this poll (undefined: it did not move). */
	rotation: Rotation | undefined;

	private readonly view: ListView;
	/** Pages kept for the targets still to be read (a search or a run of this one may not use them). */
	private reserve = 0;
	private readonly gate = (list: ListName, page: number): PageRequest | undefined =>
		this.input.pagesLeft() >= 1 + this.reserve ? { list, page } : undefined;

	constructor(private readonly input: PlanInput) {
		this.view = new ListView(input.pages, input.previous);
	}

	*reads(): Plan<void> {
		const { previous, settings } = this.input;
		const lists = listsFor(settings);
		// Requests first: the session list, read after, is then known up to at least the newest request
		// (a completion writes both), so neither list holds the other's events back (the frontier: rules/evaluate.ts).
		for (const list of ['requests', 'sessions'] as const) {
			if (!lists[list]) continue;
			const request = this.gate(list, 1);
			if (!request) return;
			yield request;
		}
		this.now = pollNow(this.input.pages, this.input.fallbackNow);
		if (!previous) {
			// Baseline: the rows of the edge at the top of each list (remembered by id: a row committed late
			// into it afterwards is new), and where each window deep in its list starts (the abandonment
			// horizon), so that the next polls can go straight there.
			const offsets = windowOffsets(settings);
			for (const kind of WINDOW_KINDS) {
				if (!lists[kind.list] || !kind.baselineFloor) continue;
				const floor = kind.baselineFloor(this.now, offsets[kind.name], this.input.pages);
				if (kind.atTop) yield* this.readTopDownTo(kind.list, floor);
				else if (locatedBelow(this.input.pages, kind.list, floor) === undefined) yield* locate({ view: this.view, read: this.gate, list: kind.list }, (at) => at <= floor, 2);
			}
		} else {
			this.windows = windowsOf(previous, settings, this.now);
			// Rows a window keeps in this process stand for its pages when they serve (its module says when:
			// windows/window.ts `serveRows`): such windows are read last, and only when their rows do not serve.
			const targets = targetsOf(this.windows.filter((window) => !window.rows), { view: this.view, pagesLeft: this.input.pagesLeft(), now: this.now });
			yield* this.readTargets(targets);
			// Shares are estimates (rows added at the top while the poll reads push a window's end down):
			// what the budget still affords extends the runs from page 1 that have not reached their stop
			// (without reading a page twice: a window read from its oldest part would start over).
			for (const target of targets) if (this.extendsTopRun(target) && !covered(this.view, target) && this.input.pagesLeft() >= 1) yield* this.readTarget(target, this.input.pagesLeft());
			// A window at the top read only by its oldest part (its share was an estimate) is covered up to
			// that part's first page, and the frontier stops there for every event: read again from page 1
			// down to its stop when the budget affords it.
			for (const target of targets) if (this.rereadsFromTop(target)) yield* this.extendRun(target, 1, this.input.pagesLeft());
			yield* this.readUnservedRows();
		}
		// The watched requests' older pages come last: the pages the windows read serve them too.
		const range = watchedRange(settings);
		if (range !== undefined) {
			this.reserve = 0;
			this.rotation = yield* readRotation(this.view, this.gate, range, previous?.rotation);
		}
	}

	/** The windows whose kept rows do not serve in this poll (rules/evaluate.ts `outcomesOf`), read as any other. */
	private *readUnservedRows(): Plan<void> {
		const windows = this.windows ?? [];
		if (!windows.some((window) => window.rows) || this.input.pagesLeft() < 1) return;
		const unserved = outcomesOf(windows, this.input.pages, this.input.fallbackNow).filter((outcome) => outcome.window.rows && !outcome.complete);
		if (unserved.length === 0) return;
		yield* this.readTargets(targetsOf(unserved.map((outcome) => outcome.window), { view: this.view, pagesLeft: this.input.pagesLeft(), now: this.now as number }));
	}

	private need(target: Target): number {
		const bottom = this.view.bottomGuess(target.list, target.window);
		if (target.fromTop) {
			const end = this.view.openTopRunEnd(target.list);
			return bottom === undefined ? 2 : Math.max(1, bottom - end);
		}
		if (bottom === undefined) return 4;
		return Math.max(1, bottom - Math.min(bottom, this.view.startGuess(target.window)) + 1) + 1;
	}

	/**
	 * Pages one step of progress on the target takes: no window moves past the one furthest behind, so
	 * every window gets its step before any gets more.
	 */
	private minNeed(target: Target): number {
		const index = this.view.stopIndexGuess(target.list, target.window);
		if (index === undefined) return QUICK_PAGES + 1;
		const { perPage } = this.view.shape(target.list);
		const end = this.view.openTopRunEnd(target.list);
		const bottom = pageOf(index, perPage);
		if (target.fromTop && end > 0 && bottom - end <= 2) return Math.max(1, bottom - end);
		return index > 0 && index % perPage === 0 ? 2 : 1;
	}

	private *readTargets(all: Target[], deferring = true): Plan<void> {
		const view = this.view;
		const now = this.now as number;
		const open = all.filter((target) => !covered(view, target));
		// A run from page 1 that ends within two more pages goes first (cheap, and page 1 is read already);
		// then the windows furthest behind.
		const quick = (target: Target) => Number(target.fromTop && view.openTopRunEnd(target.list) > 0 && this.need(target) <= 2);
		const behind = (target: Target) => target.window.floor + target.window.offset;
		open.sort((a, b) => quick(b) - quick(a) || behind(a) - behind(b));
		// When every window fits, a run from page 1 still open is extended before another window of its
		// list is read: read after it, the run would start again at page 1.
		const fit = reach(view, open, this.input.pagesLeft(), now);
		if (fit && fit.time === undefined) open.sort((a, b) => Number(this.extendsTopRun(b)) - Number(this.extendsTopRun(a)));
		// When every window's density is known, its share is what reaches one common event time: no window
		// reads past where the others get to (the frontier), so no page is read for nothing. The largest
		// share goes first; the others then read up to where it got.
		const even = evenShares(view, open, this.input.pagesLeft(), now);
		// A window whose first event lies beyond where the others get to this poll holds nobody back: not
		// read now. Densities are estimates: when the others are through with pages to spare, it comes after.
		const later: Target[] = [];
		if (even && deferring) for (let i = open.length - 1; i >= 0; i--) if (even.get(open[i]) === 0) later.push(...open.splice(i, 1));
		if (even) open.sort((a, b) => Number(guessesStart(view, a)) - Number(guessesStart(view, b)) || (even.get(b) as number) - (even.get(a) as number) || Number(b.list === 'sessions') - Number(a.list === 'sessions'));
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
			const evenShare = this.evenShareUpTo(target, even?.get(target), reached, open.length === 0);
			if (evenShare === 0 && deferring && reached !== Infinity) {
				later.push(target);
				continue;
			}
			// The pages kept for the others' steps are not this target's: a share past them would plan a run
			// (from its oldest part) that the gate cuts short of the floor, and the window would never move.
			const room = Math.max(1, left - (minimum - mins[0]));
			// The last one may use whatever is left (needs are estimates; a larger run only helps).
			const share =
				evenShare !== undefined
					? Math.min(room, Math.max(mins[0], evenShare))
					: open.length === 0
						? left
						: Math.max(1, Math.min(left, mins[0] + extra[0]));
			yield* this.readTarget(target, share, minimum - mins[0]);
			if (even) reached = Math.min(reached, reachedBy(view, target));
		}
		if (later.length > 0 && all.every((target) => later.includes(target) || covered(view, target)) && this.input.pagesLeft() >= 1) {
			yield* this.readTargets(later, false);
		}
	}

	/** A target's even share, no more than it takes to reach where the targets read before it got (`reached`). */
	private evenShareUpTo(target: Target, share: number | undefined, reached: number, last: boolean): number | undefined {
		if (share === undefined || reached === Infinity) return share;
		const own = densityOf(this.view, target, this.now as number);
		if (!own) return share;
		// The last target decides where the poll's frontier ends: with rows from its floor on (no quiet
		// time to misjudge), a page short of the others' reach leaves their last pages to be read again,
		// a page past it costs one call.
		const margin = last && (own.quietUntil ?? own.start) <= own.start ? LAST_MARGIN_PAGES : 0;
		return Math.min(share, pagesToReach(own, reached) + margin);
	}

	/** The run from page 1 of `list` read on until it reaches a row at or below `floor`, or the list's end. */
	private *readTopDownTo(list: ListName, floor: number): Plan<void> {
		const edge: Window = { name: list, list, floor, hi: Infinity, offset: 0, done: new KeySet() };
		for (let end = this.view.openTopRunEnd(list); end > 0 && !runStopped(this.view, { list, window: edge, fromTop: true }); end++) {
			const request = this.gate(list, end + 1);
			if (!request) return;
			yield request;
		}
	}

	/** Whether the target's window is at the top of its list, not covered, and its run from page 1 down to its stop (the list's end at most) fits in the pages left. */
	private rereadsFromTop(target: Target): boolean {
		if (!target.fromTop || covered(this.view, target)) return false;
		const { lastPage } = this.view.shape(target.list);
		return Math.min(lastPage, this.view.bottomGuess(target.list, target.window) ?? lastPage) <= this.input.pagesLeft();
	}

	/** Whether the target reaches the top of its list (read up to page 1) and the list's latest reads are a run from page 1. */
	private extendsTopRun(target: Target): boolean {
		return target.window.hi === Infinity && this.view.openTopRunEnd(target.list) > 0;
	}

	/** Reads the target within `share` pages, leaving `reserve` pages for the targets after it. */
	private *readTarget(target: Target, share: number, reserve = 0): Plan<void> {
		const view = this.view;
		this.reserve = reserve;
		if (covered(view, target)) return;
		const list = target.list;
		const window = target.window;
		const isStop = stopOf(window);
		const { perPage } = view.shape(list);
		const end = view.openTopRunEnd(list);
		let bottom = view.bottomGuess(list, window);
		const index = view.stopIndexGuess(list, window);
		let stopOpensPage = index !== undefined && index > 0 && index % perPage === 0 && bottom === pageOf(index, perPage);
		if (target.fromTop) {
			if (bottom !== undefined && end > 0 && bottom - end <= share) return yield* this.extendRun(target, end + 1, share);
			if (bottom !== undefined && bottom <= share) return yield* this.extendRun(target, 1, share);
			if (bottom === undefined && end > 0) {
				// Where the floor is is not known: first the next pages from the top (a little more than a page
				// changed, the usual case), then a search.
				yield* this.extendRun(target, end + 1, Math.min(share, QUICK_PAGES), 0);
				if (covered(view, target)) return;
			}
		} else if (end > 0 && bottom !== undefined && bottom - end <= Math.min(share, this.need(target))) {
			// The run from page 1 is still open and reaches the horizon's floor as cheaply as a search would.
			return yield* this.extendRun(target, end + 1, share);
		}
		const before = view.pages.length;
		const left = () => Math.max(1, share - (view.pages.length - before));
		if (bottom === undefined) {
			// Where the floor is is not known: search for it, from the bound the last poll found if any.
			const { total, perPage: size } = view.shape(list);
			const guess =
				window.deeper !== undefined && total !== undefined
					? pageOf(total - window.deeper, size)
					: target.fromTop
						? (view.lastRead(list)?.page ?? 1) + 1
						: view.startGuess(window);
			bottom = yield* locate({ view, read: this.gate, list }, isStop, guess);
			if (bottom === undefined || covered(view, target)) return;
			stopOpensPage = stopAtPageStart(view, list, bottom, isStop);
		}
		let start = 1;
		if (!target.fromTop) {
			start = Math.min(bottom, view.startGuess(window));
			// The window may fit: make sure the run starts above its top (the probe is the run's first page).
			if (bottom - start + 1 <= left()) {
				const found = yield* locateStart({ view, read: this.gate, list }, window.hi, { guess: start, bottom });
				if (found === undefined || covered(view, target)) return;
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
		const run = this.view.currentRun(list);
		const last = run?.pages[run.pages.length - 1].page;
		if (run && last !== undefined && run.pages[0].page <= start && start <= last) page = last + 1;
		else {
			const request = this.gate(list, page);
			if (!request) return;
			yield request;
			page++;
			read++;
		}
		while (!runStopped(this.view, target) && read < share + slack) {
			const request = this.gate(list, page);
			if (!request) return;
			yield request;
			page++;
			read++;
		}
	}
}

