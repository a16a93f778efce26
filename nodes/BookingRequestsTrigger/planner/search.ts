/**
 * Finding a place in a list by timestamp without reading everything above it: a galloping search from
 * a guess, then bisection. Pages already read in this poll are used without a call.
 */
import { isLastPage } from '../../shared/pages';
import type { ListItem, ListName, PageObservation, Plan, ReadGate } from '../model/pages';
import { sortTime, topTime } from '../model/pages';
import type { ListView } from './listView';

export type StopTest = (time: number, item: ListItem) => boolean;

/** A search of one list: what the poll read of it, and the gate that asks for more. */
export interface ListSearch {
	view: ListView;
	read: ReadGate;
	list: ListName;
}

function classify(page: PageObservation, isStop: StopTest): 'above' | 'contains' | 'below' {
	const dated = page.items.filter((item) => sortTime(page.list, item) !== null);
	if (dated.length === 0) return 'below';
	if (isStop(sortTime(page.list, dated[0]) as number, dated[0])) return 'below';
	if (dated.some((item) => isStop(sortTime(page.list, item) as number, item))) return 'contains';
	// All above: on the last page the boundary is the end of the list.
	return isLastPage(page, page.items.length, (page.page - 1) * page.perPage) ? 'contains' : 'above';
}

/**
 * The page holding the first item for which `isStop` holds (the end of the list counts), in a list
 * ordered so that it holds from some position on; found from a guess by galloping then bisecting.
 * Undefined when the budget ran out first.
 */
export function* locate(search: ListSearch, isStop: StopTest, guess: number): Plan<number | undefined> {
	const { view, read, list } = search;
	let above = 0;
	let below = Infinity;
	let step = 1;
	let page = Math.max(1, Math.min(guess, view.shape(list).lastPage));
	for (;;) {
		let observed = view.latestOfPage(list, page);
		if (!observed) {
			const request = read(list, page);
			if (!request) return undefined;
			yield request;
			observed = view.latestOfPage(list, page) as PageObservation;
		}
		const where = classify(observed, isStop);
		if (where === 'contains') return page;
		if (where === 'above') above = Math.max(above, page);
		else {
			if (page === 1) return 1;
			below = Math.min(below, page);
		}
		if (below === above + 1) return below;
		const { lastPage } = view.shape(list);
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
export function* locateStart(search: ListSearch, time: number, range: { guess: number; bottom: number }): Plan<number | undefined> {
	const { bottom } = range;
	const page = yield* locate(search, (at) => at <= time, Math.min(range.guess, bottom));
	if (page === undefined) return undefined;
	const observed = search.view.latestOfPage(search.list, page);
	const top = observed ? topTime(observed) : null;
	const start = top === null || top <= time ? Math.max(1, page - 1) : page;
	return Math.min(start, bottom);
}

/** Whether the stop sits at the very start of `page` (a run must then start on the page before). */
export function stopAtPageStart(view: ListView, list: ListName, page: number, isStop: StopTest): boolean {
	const observed = view.latestOfPage(list, page);
	const first = observed?.items.find((item) => sortTime(list, item) !== null);
	return page > 1 && first !== undefined && isStop(sortTime(list, first) as number, first);
}
