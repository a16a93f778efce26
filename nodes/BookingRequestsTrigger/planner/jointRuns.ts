/**
 * The targets of a poll: one per window, or a list's two windows (the completions and the horizon) as
 * one run when that reads less.
 */
import type { ListName } from '../model/pages';
import type { Window } from '../windows/window';
import type { ListView } from './listView';
import { reach } from './shares';
import type { Target } from './targets';
import { covered } from './targets';

const LISTS: readonly ListName[] = ['requests', 'sessions'];

/** Two windows of a list are read as one run when the band between them is at most 1/this of the pages left. */
const ONE_RUN_FACTOR = 3;

/** What the poll affords now, and what it read. */
export interface PlanSnapshot {
	view: ListView;
	pagesLeft: number;
	now: number;
}

/**
 * Whether a window at the top of a list (the completions) and one deep in it (the horizon) are read as
 * one run: when the band between their floors (a delay's worth of sessions, read by both) is small
 * against the pages this poll affords, one run moves both windows further than two runs that split
 * the pages (each page is then read once, not once per window). With a band that large the windows
 * are read apart.
 */
function oneRun(top: Window, deep: Window, snapshot: PlanSnapshot): boolean {
	if (top.below === undefined || deep.below === undefined) return false;
	const { perPage } = snapshot.view.shape(top.list);
	const band = Math.ceil(Math.max(0, top.below - deep.below) / perPage);
	return band * ONE_RUN_FACTOR <= snapshot.pagesLeft;
}

/**
 * The targets with a list's top window and its deep window (not one over held items only) as one
 * target, when that reads less; else as they are.
 */
function joinedIn(targets: Target[], list: ListName, snapshot: PlanSnapshot): Target[] {
	const top = targets.find((target) => target.list === list && target.fromTop);
	const deep = targets.find((target) => target.list === list && !target.fromTop && !target.window.only);
	if (!top || !deep || !oneRun(top.window, deep.window, snapshot)) return targets;
	// One read of the list serves both windows: a run from the deep window's floor upward, as far as the
	// poll affords (its oldest part first, like any window that does not fit).
	// The run starts at the lower floor of the two: the top window's, when it lags behind the horizon (the
	// horizon passes the completed sessions above the frontier, the top window's floor stops at it).
	const base = top.window.floor < deep.window.floor ? top.window : deep.window;
	const both: Target = { list, window: { ...base, hi: Infinity }, fromTop: false, top: top.window };
	const merged = [...targets.filter((target) => target !== top && target !== deep), both];
	// With every density known: the reading that brings all windows further in this poll, or, when both
	// fit, the cheaper one. Otherwise the windows are read apart.
	const { view, pagesLeft: left, now } = snapshot;
	const apart = reach(view, targets.filter((target) => !covered(view, target)), left, now);
	const together = reach(view, merged.filter((target) => !covered(view, target)), left, now);
	if (!apart || !together) return targets;
	if (apart.time === undefined && together.time === undefined) return together.cost <= apart.cost ? merged : targets;
	return (together.time ?? Infinity) >= (apart.time ?? Infinity) ? merged : targets;
}

/**
 * One target per window. The completions and the horizon of the session list are read separately
 * even when they touch: drained from their oldest parts, they sit a whole delay apart in the list,
 * and reading the band between them would cost pages that no event needs. A run from page 1 that
 * is still open serves the horizon too when extending it is cheaper (the planner's readTarget).
 */
export function targetsOf(windows: Window[], snapshot: PlanSnapshot): Target[] {
	const targets: Target[] = windows.filter((window) => window.hi > window.floor).map((window) => ({ list: window.list, window, fromTop: window.hi === Infinity }));
	return LISTS.reduce((joined, list) => joinedIn(joined, list, snapshot), targets);
}
