/**
 * A target: one window (or two of a list as one run: jointRuns.ts) to bring up to date in this
 * poll, and what the poll's reads already prove about it (windows/coverage.ts).
 */
import type { ListName } from '../model/pages';
import { runsOf } from '../model/pages';
import { coverageByRun, isStop } from '../windows/coverage';
import type { Window } from '../windows/window';
import type { ListView } from './listView';
import type { StopTest } from './search';

export interface Target {
	list: ListName;
	window: Window;
	/** Read from page 1 downward (windows at the top of the list). */
	fromTop: boolean;
	/** One run for two windows of the list (jointRuns.ts): the window at the top it also serves. */
	top?: Window;
}

/** The stop of a window as a search tests it (windows/coverage.ts `isStop`). */
export function stopOf(window: Window): StopTest {
	return (time, item) => isStop(window, time, item);
}

/** Whether the target's window is covered by what was read. */
export function covered(view: ListView, target: Target): boolean {
	const runs = runsOf(view.pages, target.list);
	const { window } = target;
	return window.hi <= window.floor || runs.some((run) => coverageByRun(window, run)?.complete === true);
}

/** Whether the current run of the target's list reached the window's stop. */
export function runStopped(view: ListView, target: Target): boolean {
	const run = view.currentRun(target.list);
	return run !== undefined && (target.window.hi <= target.window.floor || coverageByRun(target.window, run) !== undefined);
}

/** Event time up to which the runs read so far cover the target's window(s). */
export function reachedBy(view: ListView, target: Target): number {
	const runs = runsOf(view.pages, target.list);
	const upper = (window: Window) => Math.max(window.floor, ...runs.map((run) => coverageByRun(window, run)?.upper ?? -Infinity));
	if (target.top) return upper(target.top);
	return upper(target.window) + target.window.offset;
}
