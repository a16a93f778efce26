/**
 * The targets of a poll: one per window, or both session windows as one run when that reads less.
 */
import type { Window } from '../model/windows';
import type { ListView } from './listView';
import { reach } from './shares';
import type { Target } from './targets';
import { covered } from './targets';

/** The session windows are read as one run when the band between them is at most 1/this of the pages left. */
const ONE_RUN_FACTOR = 3;

/** What the poll affords now, and what it read. */
export interface PlanSnapshot {
	view: ListView;
	pagesLeft: number;
	now: number;
}

/**
 * Whether the completions and the horizon are read as one run of the session list: when the band
 * between their floors (a delay's worth of sessions, read by both) is small against the pages this
 * poll affords, one run moves both windows further than two runs that split the pages (each page is
 * then read once, not once per window). With a band that large the windows are read apart.
 */
function oneSessionRun(completions: Window, horizon: Window, snapshot: PlanSnapshot): boolean {
	if (completions.below === undefined || horizon.below === undefined || completions.floor < horizon.floor) return false;
	const { perPage } = snapshot.view.shape('sessions');
	const band = Math.ceil(Math.max(0, completions.below - horizon.below) / perPage);
	return band * ONE_RUN_FACTOR <= snapshot.pagesLeft;
}

/**
 * One target per window. The completions and the horizon of the session list are read separately
 * even when they touch: drained from their oldest parts, they sit a whole delay apart in the list,
 * and reading the band between them would cost pages that no event needs. A run from page 1 that
 * is still open serves the horizon too when extending it is cheaper (the planner's readTarget).
 */
export function targetsOf(windows: Window[], snapshot: PlanSnapshot): Target[] {
	const { view, pagesLeft: left, now } = snapshot;
	const targets: Target[] = windows.filter((window) => window.hi > window.floor).map((window) => ({ list: window.list, window, fromTop: window.hi === Infinity }));
	const completions = targets.find((target) => target.window.name === 'completions');
	const horizon = targets.find((target) => target.window.name === 'horizon');
	if (!completions || !horizon || !oneSessionRun(completions.window, horizon.window, snapshot)) return targets;
	// One read of the session list serves both windows: a run from the horizon's floor upward, as far
	// as the poll affords (its oldest part first, like any window that does not fit).
	const both: Target = { list: 'sessions', window: { ...horizon.window, hi: Infinity }, fromTop: false, completions: completions.window };
	const merged = [...targets.filter((target) => target !== completions && target !== horizon), both];
	// With every density known: the reading that brings all windows further in this poll, or, when both
	// fit, the cheaper one. Otherwise the windows are read apart.
	const apart = reach(view, targets.filter((target) => !covered(view, target)), left, now);
	const together = reach(view, merged.filter((target) => !covered(view, target)), left, now);
	if (!apart || !together) return targets;
	if (apart.time === undefined && together.time === undefined) return together.cost <= apart.cost ? merged : targets;
	return (together.time ?? Infinity) >= (apart.time ?? Infinity) ? merged : targets;
}
