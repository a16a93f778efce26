/**
 * The watched requests: the newest N booking requests (N: the largest "Watch the Newest (Requests)" of
 * the selected events that watch requests, events/*: `watches`), one service they share. Page 1 is read
 * every poll (with New Request); the older pages of the range in rotation, at most WATCH_PAGES_PER_POLL
 * calls a poll, downward from where the last poll stopped and wrapping to page 2. A page this poll has
 * already read (a New Request backlog) costs nothing again.
 *
 * Where the rotation stands is its memory, kept as a RANK (the place counted from the end of the list):
 * requests are only added at the top, so a rank does not move, and reading downward from it never skips
 * one. Each event reads the requests within its own range from the pages the poll read.
 */
import type { BookingRequest } from '../../shared/types';
import type { ListName, PageObservation, Plan, ReadGate } from '../model/pages';
import { EDGE_WINDOW_MS, pageOf, sortTime } from '../model/pages';

/** Calls a poll spends at most on the older pages of the watched range (docs/booking-requests-trigger.md: how often each request is checked). */
export const WATCH_PAGES_PER_POLL = 10;

export interface Rotation {
	/** Rank where the next poll's rotation starts (undefined: at page 2). */
	cursor: number | undefined;
}

/**
 * Reads the older pages of the watched range; returns where the next poll goes on, or undefined when
 * the rotation did not move (nothing to read beyond page 1, or no call left).
 */
export function* readRotation(view: { latestOfPage(list: ListName, page: number): PageObservation | undefined }, gate: ReadGate, watchNewest: number, cursor: number | undefined): Plan<Rotation | undefined> {
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

export interface WatchedRead {
	request: BookingRequest;
	/** Place counted from the end of the list (undefined when the page gave no total). */
	rank: number | undefined;
	/** Read within EDGE_WINDOW_MS of the server's clock: rows committed late may still land below it (its rank grows). */
	edge: boolean;
}

/**
 * Whether a request read on this page may still get rows below it: one committed after the read is
 * stamped at most EDGE_WINDOW_MS before it, so it lands below only a request created that recently (the
 * page's `Date` header is at or before the read: the test errs towards the edge).
 */
function inEdge(page: PageObservation, request: BookingRequest, now: number): boolean {
	const created = sortTime('requests', request);
	return created !== null && created >= (page.serverDate ?? now) - EDGE_WINDOW_MS;
}

/** The watched requests of an event's range, as this poll read them. */
export interface WatchedRequests {
	/** The newest reading of each request within the range when read, by id. */
	readings: ReadonlyMap<string, WatchedRead>;
	/** The lowest rank in the range (from the newest page read that gives the list's length). */
	lowest: number | undefined;
}

/** The watched requests of the newest `watchNewest`, as this poll's pages give them. */
export function watchedRequests(pages: PageObservation[], watchNewest: number, now: number): WatchedRequests {
	return { readings: watchedReadings(pages, watchNewest, now), lowest: lowestWatchedRank(pages, watchNewest) };
}

/** The newest reading of each request that was within the watched range when read. */
function watchedReadings(pages: PageObservation[], watchNewest: number, now: number): Map<string, WatchedRead> {
	const readings = new Map<string, WatchedRead>();
	for (const page of [...pages].filter((p) => p.list === 'requests').sort((a, b) => a.seq - b.seq)) {
		for (const [i, item] of page.items.entries()) {
			const index = (page.page - 1) * page.perPage + i;
			if (index >= watchNewest) {
				readings.delete(item.id);
				continue;
			}
			const request = item as unknown as BookingRequest;
			readings.set(item.id, { request, rank: page.total === undefined ? undefined : page.total - 1 - index, edge: inEdge(page, request, now) });
		}
	}
	return readings;
}

/** The lowest rank still watched: from the newest page read that gives the list's length. */
function lowestWatchedRank(pages: PageObservation[], watchNewest: number): number | undefined {
	const latest = [...pages].filter((p) => p.list === 'requests' && p.total !== undefined).sort((a, b) => b.seq - a.seq)[0];
	return latest ? latest.total! - watchNewest : undefined;
}
