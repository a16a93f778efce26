/**
 * Request Updated's reads: the watched range is the newest "Watch the Newest (Requests)"
 * requests. Page 1 is read every poll (it is shared with New Request); the older pages of the range in
 * rotation, at most WATCH_PAGES_PER_POLL calls a poll, downward from where the last poll stopped and
 * wrapping to page 2. A page this poll has already read (a New Request backlog) costs nothing again.
 *
 * Where the rotation stands is kept as a RANK (the place counted from the end of the list): requests
 * are only added at the top, so a rank does not move, and reading downward from it never skips one.
 */
import type { Plan, ReadGate } from '../../model/pages';
import { pageOf } from '../../model/pages';
import type { OwnReads } from '../kind';

/** Calls a poll spends at most on the older pages of the watched range (docs/booking-requests-trigger.md: how often each request is checked). */
export const WATCH_PAGES_PER_POLL = 10;

export interface WatchedReads {
	/** Rank where the next poll's rotation starts (undefined: at page 2). */
	cursor: number | undefined;
}

/**
 * Reads the older pages of the watched range; returns where the next poll goes on, or undefined when
 * the rotation did not move (nothing to read beyond page 1, or no call left).
 */
export function* readWatched(view: Pick<OwnReads<unknown>, 'latestOfPage'>, gate: ReadGate, watchNewest: number, cursor: number | undefined): Plan<WatchedReads | undefined> {
	const first = view.latestOfPage('requests', 1);
	if (!first || first.total === undefined) return undefined;
	const { perPage, total } = first;
	const last = Math.ceil(Math.min(watchNewest, total) / perPage);
	if (last < 2) return undefined;
	let page = cursor === undefined ? 2 : pageOf(total - 1 - cursor, perPage);
	if (page < 2 || page > last) page = 2;
	let calls = 0;
	let visited = 0;
	let reached: number | undefined;
	while (calls < WATCH_PAGES_PER_POLL && visited < last - 1) {
		if (page > last) page = 2;
		if (!view.latestOfPage('requests', page)) {
			const request = gate('requests', page);
			if (!request) break;
			yield request;
			calls++;
		}
		visited++;
		reached = page;
		page++;
	}
	if (reached === undefined) return undefined;
	const read = view.latestOfPage('requests', reached);
	if (reached >= last || !read || read.total === undefined) return { cursor: undefined };
	const next = read.total - reached * read.perPage - 1;
	return { cursor: next < read.total - watchNewest ? undefined : next };
}
