/**
 * What the poll has read of each list so far, and where the saved state says a timestamp lies in it:
 * the planner's view of the lists. Pure reads of the poll's pages and the previous state; no decision.
 */
import type { TriggerMemory } from '../state/decoded';
import type { ListName, PageObservation, Run } from '../model/pages';
import { pageOf, runsOf } from '../model/pages';
import type { Window } from '../windows/window';

export interface ListShape {
	total: number | undefined;
	perPage: number;
	lastPage: number;
}

export class ListView {
	constructor(
		/** Every page read in this poll, in order (the driver appends each answer). */
		readonly pages: PageObservation[],
		private readonly previous: TriggerMemory | undefined,
	) {}

	lastRead(list: ListName): PageObservation | undefined {
		for (let i = this.pages.length - 1; i >= 0; i--) if (this.pages[i].list === list) return this.pages[i];
		return undefined;
	}

	latestOfPage(list: ListName, page: number): PageObservation | undefined {
		for (let i = this.pages.length - 1; i >= 0; i--) if (this.pages[i].list === list && this.pages[i].page === page) return this.pages[i];
		return undefined;
	}

	shape(list: ListName): ListShape {
		const last = this.lastRead(list);
		const perPage = last?.perPage ?? 100;
		const total = last?.total;
		return { total, perPage, lastPage: total === undefined ? Infinity : Math.max(1, Math.ceil(total / perPage)) };
	}

	/** The run that the next page of `list` would extend (the latest reads of the list, consecutive). */
	currentRun(list: ListName): Run | undefined {
		return runsOf(this.pages, list).at(-1);
	}

	/** The page of the first page-1 run still being extended, or 0. */
	openTopRunEnd(list: ListName): number {
		const run = this.currentRun(list);
		return run && run.pages[0].page === 1 ? run.pages[run.pages.length - 1].page : 0;
	}

	/**
	 * Where `time` sits in the session list, counted from the end: interpolated between the checkpoints
	 * around it (a checkpoint [t, n]: every session at or before t is at most n from the end).
	 */
	fromEndAt(time: number): number | undefined {
		const checkpoints = [...(this.previous?.sessions?.checkpoints ?? [])].sort((a, b) => a[0] - b[0]);
		const after = checkpoints.find((checkpoint) => checkpoint[0] > time);
		if (!after) return undefined;
		const before = checkpoints.filter((checkpoint) => checkpoint[0] <= time).at(-1);
		if (!before || after[0] === before[0]) return after[1];
		const share = (time - before[0]) / (after[0] - before[0]);
		return Math.round(before[1] + share * Math.max(0, after[1] - before[1]));
	}

	/** Guess of the index (in the list now) of a window's stop: the first item at or below its floor. */
	stopIndexGuess(list: ListName, window: Window): number | undefined {
		const { total } = this.shape(list);
		if (total === undefined) return undefined;
		if (window.below !== undefined) return Math.max(0, total - window.below);
		// Interpolated between checkpoints, unless the last poll saw the floor is deeper than that.
		const estimate = list === 'sessions' ? this.fromEndAt(window.floor) : undefined;
		if (estimate === undefined || (window.deeper !== undefined && estimate > window.deeper)) return undefined;
		return Math.max(0, total - estimate);
	}

	/** Guess of the page holding a window's stop. */
	bottomGuess(list: ListName, window: Window): number | undefined {
		const index = this.stopIndexGuess(list, window);
		if (index === undefined) return undefined;
		const { perPage, lastPage } = this.shape(list);
		return Math.min(lastPage, pageOf(index, perPage));
	}

	/** Guess of the page holding the newest item at or below a window's top. */
	startGuess(window: Window): number {
		const { total, perPage } = this.shape(window.list);
		const fromEnd = window.hiBelow ?? this.fromEndAt(window.hi);
		if (total === undefined || fromEnd === undefined) return 1;
		const index = total - fromEnd - 1;
		return index < 0 ? 1 : pageOf(index, perPage);
	}
}
