/**
 * Sharing a poll's pages between windows by their density: each window's pages per millisecond of its
 * list above its floor, so that every window reaches one common event time and none reads past where
 * the others get to (the frontier, rules/evaluate.ts): no page is read for nothing.
 */
import { isCompleted } from '../../shared/output/session';
import { isLastPage } from '../../shared/pages';
import { sortTime, topTime } from '../model/pages';
import type { ListView } from './listView';
import type { Target } from './targets';

/** Where a window stands in event time, its density (pages per ms above its floor), and pages it reads before it moves. */
export interface Density {
	start: number;
	perMs: number;
	fixed: number;
	/** Event time at which the window is read through (the held window ends at its newest session). */
	end?: number;
	/** Event time up to which the list holds nothing above the floor (an estimate: the density only). */
	quietUntil?: number;
}

/** The share of the oldest completions read left out of where the request list's backlog begins (a density estimate only). */
const LATE_BOOKINGS_SHARE = 0.05;

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

/** Pages a window reads to cover up to event time `time` (the partly read page at each end included). */
export function pagesToReach(density: Density, time: number): number {
	const until = Math.min(time, density.end ?? Infinity);
	const from = Math.max(density.start, density.quietUntil ?? -Infinity);
	return time > density.start ? Math.ceil(density.fixed + Math.max(0, until - from) * density.perMs) + 1 : 0;
}

/** The event time all windows reach with `left` pages (undefined when all of them fit up to `now`). */
export function reachWith(densities: Density[], left: number, now: number): number | undefined {
	const cost = (time: number) => densities.reduce((sum, density) => sum + pagesToReach(density, time), 0);
	let low = Math.min(...densities.map((density) => density.start));
	let high = now + 1;
	if (cost(high) <= left) return undefined;
	for (let i = 0; i < 50; i++) {
		const middle = (low + high) / 2;
		if (cost(middle) <= left) low = middle;
		else high = middle;
	}
	return low;
}

/**
 * Where a target's window stands in event time, its density (pages per ms of the list above its floor,
 * from the list length now and `below`) and the pages it must read before it moves (one run for
 * both session windows: the band between their floors). Undefined when not known.
 */
export function densityOf(view: ListView, target: Target, now: number | undefined): Density | undefined {
	const { total, perPage } = view.shape(target.list);
	const window = target.top ?? target.window;
	if (total === undefined || window.below === undefined || now === undefined) return undefined;
	if (window.hiBelow !== undefined && window.hi > window.floor) {
		// A window with a known end (held sessions): its own items over its own span.
		const items = Math.max(0, window.hiBelow - window.below);
		return { start: window.floor + window.offset, perMs: items / (window.hi - window.floor) / perPage, fixed: 0, end: window.hi + window.offset };
	}
	// Up to the newest item of the list (not now: a quiet time at the top holds no pages).
	const first = view.latestOfPage(target.list, 1);
	const newest = (first ? topTime(first) : null) ?? now;
	const top = Math.min(now, newest);
	if (top <= window.floor) return undefined;
	const fixed = target.top && target.window.below !== undefined ? Math.max(0, window.below - target.window.below) / perPage : 0;
	// The request list's rows spread over the time since its first booking, not since the floor, when the
	// session pages read show the backlog began later (a quiet time just above the floor holds no pages).
	const from = target.list === 'requests' ? Math.min(newest - 1, firstBookingAbove(view, window.floor) ?? window.floor) : window.floor;
	const offset = target.top ? 0 : window.offset;
	return {
		start: window.floor + offset,
		perMs: Math.max(0, total - window.below) / Math.max(1, top - from) / perPage,
		fixed,
		// Nothing lies above the list's newest item: the window is read through at its event time.
		end: top + offset,
		quietUntil: from + offset,
	};
}

/**
 * The oldest completion (a session with a booking request) that this poll's session pages show above
 * `floor`, when they also reach down to the floor (so no older one lies between); undefined otherwise.
 * Only a density estimate: windows/coverage.ts proves what is read.
 */
function firstBookingAbove(view: ListView, floor: number): number | undefined {
	const times: number[] = [];
	let reachesFloor = false;
	for (const page of view.pages) {
		if (page.list !== 'sessions') continue;
		if (isLastPage(page, page.items.length, (page.page - 1) * page.perPage)) reachesFloor = true; // the list's end
		for (const item of page.items) {
			const at = sortTime('sessions', item);
			if (at === null) continue;
			if (at <= floor) reachesFloor = true;
			else if (isCompleted(item)) times.push(at);
		}
	}
	if (!reachesFloor || times.length === 0) return undefined;
	// Not the very oldest: bookings committed late are stamped up to a few seconds early, into the quiet
	// time before the backlog began, and would spread the request list's rows over a longer time.
	times.sort((a, b) => a - b);
	const start = times[Math.floor(times.length * LATE_BOOKINGS_SHARE)];
	// Bookings from the floor on (no quiet time above it, as mid-backlog): the rows begin at the floor.
	return times[0] - floor <= start - times[0] ? floor : start;
}

/**
 * Whether the target's density guesses where its list's backlog begins: the request list's, before this
 * poll's session pages reach down to its floor (firstBookingAbove). Read after the session list, it is
 * measured instead.
 */
export function guessesStart(view: ListView, target: Target): boolean {
	return target.list === 'requests' && firstBookingAbove(view, target.window.floor) === undefined;
}

/**
 * The event time every target reaches with `left` pages shared by density (time undefined: all reach
 * now, at `cost` pages); undefined when a density is not known.
 */
export function reach(view: ListView, targets: Target[], left: number, now: number): { time: number | undefined; cost: number } | undefined {
	const densities = targets.map((target) => densityOf(view, target, now));
	if (targets.length === 0 || densities.some((density) => density === undefined)) return undefined;
	return { time: reachWith(densities as Density[], left, now), cost: (densities as Density[]).reduce((sum, density) => sum + pagesToReach(density, now + 1), 0) };
}

/** Shares of `left` pages that bring every target to one event time (undefined: a density is not known, or all fit). */
export function evenShares(view: ListView, targets: Target[], left: number, now: number): Map<Target, number> | undefined {
	if (targets.length < 2) return undefined;
	const known = targets.map((target) => densityOf(view, target, now));
	if (known.some((density) => density === undefined)) return undefined;
	const densities = withSessionStart(view, targets, known as Density[]);
	const time = reachWith(densities, left, now);
	if (time === undefined) return undefined; // everything fits: no need to share
	return new Map(targets.map((target, i) => [target, pagesToReach(densities[i], time)]));
}

/**
 * The densities with a guessed request-list start (guessesStart) moved up to where the session windows
 * begin, when that is later: the bookings behind both lists' rows lie above the session windows' floors,
 * and a quiet time between the two floors, spread over as rows, gave the request list the larger share.
 * Only the shares move: the request list is read after the session list and measured then.
 */
function withSessionStart(view: ListView, targets: Target[], densities: Density[]): Density[] {
	// In row time (a booking's request row is stamped as its session's completion), not event time: the
	// abandonment horizon's event time lies its delay past its rows.
	const starts = targets.filter((target) => target.list === 'sessions').map((target) => (target.top ?? target.window).floor);
	if (starts.length === 0) return densities;
	const from = Math.max(...starts);
	return densities.map((density, i) => {
		const quiet = density.quietUntil ?? density.start;
		if (!guessesStart(view, targets[i]) || density.end === undefined || from <= quiet || from >= density.end) return density;
		const pages = density.perMs * (density.end - quiet);
		return { ...density, quietUntil: from, perMs: pages / (density.end - from) };
	});
}
