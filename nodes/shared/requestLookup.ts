/**
 * Booking requests for many completed sessions at once: read from the request list (up to 100 per
 * call) instead of one Get request each.
 *
 * Why: with Simplify, a booking made without a saved draft (a placeholder session, empty `data`) takes
 * its contact from its booking request, and with Include Booking Request every completion needs it.
 * One Get each drains a backlog of them at about one event per call (~30 per poll under n8n's 36 s
 * poll budget); a bulk import of 1,000 bookings would take more than half an hour to report.
 *
 * How: a booking request is created when its session completes, so the session's `updated_at` says
 * where the request is in the request list (newest first by `created_at`). From page 1, a galloping
 * search finds the first page that reaches back to the oldest wanted request; then the pages are read
 * upward (toward newer) so the oldest events, which are emitted first, are served first. The hint is
 * never trusted for correctness: a request is taken only by its id, and whatever this does not find
 * (the list moved between calls, a hint that is off, a sparse page) is left to Get request.
 */
import type { PageRead } from './transport/pageReader';
import type { BookingRequest } from './types';
import { timestampMs } from './utils';

/** A booking request to find, with its session's `updated_at` (ms) as the hint where it is. */
export interface WantedRequest {
	id: string;
	at: number | null;
}

export interface RequestListReader {
	/** One page of the request list; undefined when the budget is spent (nothing was sent). */
	read(page: number): Promise<PageRead<BookingRequest> | undefined>;
	/** Calls still affordable in this poll. */
	callsLeft(): number;
	/** Pages of the request list this poll has read already (their requests are not wanted). */
	known?: Array<PageRead<BookingRequest>>;
}

/** Below this many wanted requests, Get request is as cheap as a list read. */
export const LOOKUP_MIN_WANTED = 3;
/** How far a request's `created_at` may lie from its session's `updated_at` (they are one commit). */
export const HINT_SLACK_MS = 5_000;
/** Calls a lookup needs at least: page 1, a probe, a page of the range, one Get request. */
const MIN_CALLS = 4;
/** A page that brings fewer wanted requests than this is no cheaper than Get request. */
export const MIN_YIELD = 2;

/**
 * Calls of a poll's `budget` to keep for attaching booking requests, when `needing` of the `seen`
 * completions read first (page 1) need theirs: a few need one Get each; many, pages of the request list
 * (about 3 calls to find the page, then ~80 per call: other requests lie in between) in proportion to
 * the session pages the rest of the budget reads (100 sessions each).
 */
export function attachReserve(needing: number, seen: number, budget: number): number {
	if (needing < LOOKUP_MIN_WANTED) return needing;
	const share = Math.min(1, needing / Math.max(1, seen));
	const perSessionPage = (share * 100) / 80;
	const sessionPages = (budget - MIN_CALLS) / (1 + perSessionPage);
	return Math.min(needing, MIN_CALLS + Math.ceil(sessionPages * perSessionPage));
}

/**
 * Reads what it takes of the request list to find `wanted` (in the order the events need them) and
 * returns the requests found. Costs: 1 call when they are on page 1; else a few calls to find the page
 * of the oldest (interpolation on `created_at`, bisection when that does not narrow) plus one call per
 * 100 requests of the range. Skips the search when Get request would cost less, and while the first
 * wanted request is not found keeps one call for its Get, so every poll makes progress.
 */
export async function findInRequestList(wanted: WantedRequest[], reader: RequestListReader): Promise<BookingRequest[]> {
	const hints = wanted.filter((entry): entry is { id: string; at: number } => entry.at !== null);
	// page 1, a probe, a page of the range and the first one's Get must fit, or Get request is better
	if (hints.length < LOOKUP_MIN_WANTED || reader.callsLeft() < MIN_CALLS) return [];
	const head = wanted[0].id;
	const open = new Set(hints.map((entry) => entry.id));
	const found: BookingRequest[] = [];
	const pages = new Map<number, PageRead<BookingRequest>>((reader.known ?? []).map((page) => [page.page, page]));
	/** Wanted requests each page brought when it was read (pages the poll had read bring none). */
	const yields = new Map<number, number>();

	const read = async (page: number): Promise<PageRead<BookingRequest> | undefined> => {
		const known = pages.get(page);
		if (known) return known;
		if (reader.callsLeft() <= (open.has(head) ? 1 : 0)) return undefined;
		const result = await reader.read(page);
		if (!result) return undefined;
		pages.set(page, result);
		const before = found.length;
		for (const item of result.items) {
			if (!open.has(item.id)) continue;
			open.delete(item.id);
			found.push(item);
		}
		yields.set(page, found.length - before);
		return result;
	};

	const first = await read(1);
	if (!first || open.size === 0) return found;
	const left = hints.filter((entry) => open.has(entry.id)).map((entry) => entry.at);
	const oldest = Math.min(...left);
	const newest = Math.max(...left) + HINT_SLACK_MS;
	const lastPage = first.total !== undefined ? Math.max(1, Math.ceil(first.total / first.perPage)) : undefined;
	if (open.size <= searchCost(lastPage)) return found;

	const start = await firstPageReaching(oldest, { first, lastPage, read });
	if (start === undefined) return found;
	// A request created a little before its session's `updated_at` may lie on the page below.
	const olderEdge = (page: PageRead<BookingRequest>) => (oldestOf(page) ?? -Infinity) > oldest - HINT_SLACK_MS;
	const startPage = pages.get(start);
	if (open.has(head) && startPage && startPage.items.length === startPage.perPage && olderEdge(startPage)) await read(start + 1);

	// Upward from the oldest: stop at page 1, when nothing is left to find, past the newest hint, or
	// after two sparse pages in a row (Get request is then as cheap).
	let sparse = 0;
	for (let page = start; page >= 2 && open.size > 0; page--) {
		const result = await read(page);
		if (!result) break;
		sparse = (yields.get(page) ?? 0) < MIN_YIELD ? sparse + 1 : 0;
		if (sparse >= 2) break;
		const top = newestOf(result);
		if (top !== null && top > newest) break;
	}
	return found;
}

/** Calls the search may cost: not worth it for fewer wanted requests than this. */
export function searchCost(lastPage: number | undefined): number {
	return Math.min(8, Math.ceil(Math.log2(Math.max(2, lastPage ?? 256))));
}

export type Read = (page: number) => Promise<PageRead<BookingRequest> | undefined>;

/** A page read, with its number. */
export interface NumberedPage {
	no: number;
	page: PageRead<BookingRequest>;
}

/** Where a search reads: page 1 as read, the last page when the total says it, how to read another. */
export interface SearchSpace {
	first: PageRead<BookingRequest>;
	lastPage: number | undefined;
	read: Read;
	/** A page read that does not reach: the search goes below it (default page 1). */
	from?: NumberedPage;
}

/**
 * The first page (from the top, or below `from`, a page read that does not reach) whose oldest request
 * is at or before `at` — the page where the oldest wanted request is — or the last page when none
 * reaches back that far. Undefined when the budget runs
 * out. Probes are interpolated on `created_at` between the pages known not to reach and to reach (or
 * extrapolated at the pace of the list above); a probe that does not halve the bracket is followed by a
 * bisection (or a doubling while the end of the list is unknown), so it never takes more than about
 * 2·log2(pages) calls, and usually 2 or 3.
 */
export async function firstPageReaching(at: number, space: SearchSpace): Promise<number | undefined> {
	const { first, lastPage, read } = space;
	const from = space.from ?? { no: 1, page: first };
	const reaches = (page: PageRead<BookingRequest>) => page.items.length < page.perPage || (oldestOf(page) ?? -Infinity) <= at;
	if (reaches(from.page)) return from.no;
	const list = { perPage: first.perPage, topTime: newestOf(first) ?? at };
	let low = from; // read, does not reach
	let high: Bracket['high'] = { no: lastPage !== undefined ? lastPage + 1 : Infinity };
	// interpolated probes that did not halve the bracket, in a row: at 2, the next probe bisects
	let slow = 0;
	while (high.no - low.no > 1) {
		const before = high.no - low.no;
		let probe = slow < 2 ? estimatePage(at, { low, high }, list) : undefined;
		const bisect = probe === undefined;
		if (probe === undefined) probe = Number.isFinite(high.no) ? Math.floor((low.no + high.no) / 2) : low.no * 2;
		probe = Math.min(Math.max(probe, low.no + 1), high.no - 1);
		const page = await read(probe);
		if (!page) return undefined;
		if (!reaches(page)) low = { no: probe, page };
		else {
			high = { no: probe, page };
			// the page holds `at` itself: the page above cannot reach it
			if (page.items.length > 0 && (newestOf(page) ?? -Infinity) > at) return probe;
		}
		slow = bisect ? 0 : high.no - low.no > before / 2 ? slow + 1 : 0;
	}
	return high.page && high.page.items.length > 0 ? high.no : low.no;
}

/** The pages known not to reach (`low`) and to reach (`high`, not read when it is past the end). */
interface Bracket {
	low: NumberedPage;
	high: { no: number; page?: PageRead<BookingRequest> };
}

/** Where `at` is expected: between the two bracketing pages' times, or at the list's pace above (`topTime`: page 1's newest). */
function estimatePage(at: number, { low, high }: Bracket, { perPage, topTime }: { perPage: number; topTime: number }): number | undefined {
	const lowTime = oldestOf(low.page);
	if (lowTime === null) return undefined;
	const lowIndex = (low.no - 1) * perPage + low.page.items.length - 1;
	// the top of the page known to reach (it does not hold `at`, so its newest is at or before it)
	const highTime = high.page ? newestOf(high.page) : null;
	let index: number;
	if (high.page && highTime !== null && highTime < lowTime) {
		const highIndex = (high.no - 1) * perPage;
		index = lowIndex + ((lowTime - at) / (lowTime - highTime)) * (highIndex - lowIndex);
	} else {
		if (topTime <= lowTime) return undefined;
		index = lowIndex + (lowTime - at) * (lowIndex / (topTime - lowTime));
	}
	return Number.isFinite(index) ? Math.floor(index / perPage) + 1 : undefined;
}
/** The oldest and newest `created_at` on a page (null when it has none). */
function timesOf(page: PageRead<BookingRequest>): { oldest: number | null; newest: number | null } {
	const times = page.items.map((item) => timestampMs(item.created_at)).filter((time): time is number => time !== null);
	return times.length ? { oldest: Math.min(...times), newest: Math.max(...times) } : { oldest: null, newest: null };
}

export const oldestOf = (page: PageRead<BookingRequest>): number | null => timesOf(page).oldest;
export const newestOf = (page: PageRead<BookingRequest>): number | null => timesOf(page).newest;
