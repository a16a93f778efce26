/**
 * Reading for the trigger. Every call goes through the shared `apiRequest` (rate limiter, retries,
 * clear errors); this module only decides which pages to ask for.
 *
 * Lists are read newest first, 100 per page, until the first item below the floor the diff asks for
 * (diff.ts `sessionsFloor` / `requestsFloor`), or the end of the list. When more changed than a page
 * holds, paging goes on: the cursor never moves past something that was not read. Items that move
 * between pages while the pages are read only ever move up (a widget save, a new submission); an item
 * that moved above the pages already read has a newer timestamp than the new cursor and is read on the
 * next poll, so nothing is lost; an item read twice is kept once (the diff keeps the freshest copy).
 */

import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { API_PATHS, MAX_PER_PAGE } from '../shared/constants';
import { toNodeApiError } from '../shared/transport/errors';
import { parseListPage } from '../shared/transport/paginate';
import { apiRequest, resolveTarget } from '../shared/transport/request';
import type { BookingRequest, BookingSession } from '../shared/types';
import { isUuid } from '../shared/validation';
import type { Fetched, FetchedList, TriggerSettings } from './diff';
import { activityOf, listsFor, requestSortTime, requestsFloor, sessionSortTime, sessionsFloor } from './diff';
import type { TriggerState } from './state';
import { serverNow } from './state';

/** A poll that needs more pages than this (100,000 changed items) fails instead of running for hours. */
export const MAX_PAGES_PER_POLL = 1_000;

/** The poll's "now": fixed by the first answer of the poll (its `Date` header). */
export class PollClock {
	private value: number | undefined;
	private skew: number | undefined;

	constructor(
		private readonly previousSkewMs: number | undefined,
		private readonly localNow: () => number = Date.now,
	) {}

	observe(serverDate: number | undefined): void {
		if (this.value !== undefined) return;
		const local = this.localNow();
		this.value = serverNow(serverDate, local, this.previousSkewMs);
		if (serverDate !== undefined) this.skew = serverDate - local;
	}

	get now(): number {
		if (this.value === undefined) this.observe(undefined);
		return this.value as number;
	}

	get skewMs(): number | undefined {
		return this.skew;
	}
}

export interface ListRead<T> extends FetchedList<T> {
	calls: number;
}

interface ReadOptions<T> {
	path: string;
	qs: IDataObject;
	/** Position of an item in the list's order; null when the order does not place it. */
	sortTime: (item: T) => number | null;
	/** Highest time on the first page, passed to `floor`. */
	topTime: (item: T) => number | null;
	/** Read down to the first item whose sort time is below this. */
	floor: (now: number, top: number | null) => number;
	/** Read only the first page (samples). */
	firstPageOnly?: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function malformed(ctx: IPollFunctions, detail: string): Promise<NodeApiError> {
	const target = await resolveTarget(ctx);
	return toNodeApiError(ctx.getNode(), { kind: 'malformed', detail }, target);
}

/** Reads one list newest first down to the floor. */
export async function readList<T extends { id: string }>(ctx: IPollFunctions, clock: PollClock, options: ReadOptions<T>): Promise<ListRead<T>> {
	const items: T[] = [];
	let lowest: number | null = null;
	let floor = -Infinity;
	let previousIds = '';
	for (let page = 1; page <= MAX_PAGES_PER_POLL; page++) {
		const { body, serverDate } = await apiRequest<unknown>(ctx, options.path, {
			qs: { ...options.qs, page, per_page: MAX_PER_PAGE },
		});
		clock.observe(serverDate);
		// The same contract checks as the paginator: ids once per page, ISO (or epoch-ms) timestamps.
		const parsed = parseListPage<T>(body, `page ${page} of ${options.path}`);
		if ('problem' in parsed) throw await malformed(ctx, parsed.problem);
		const typed = parsed.items;
		const ids = typed.map((item) => item.id).join(',');
		if (page > 1 && typed.length > 0 && ids === previousIds) {
			throw await malformed(ctx, `page ${page} of ${options.path} repeated page ${page - 1}; the server may ignore the "page" parameter`);
		}
		previousIds = ids;
		if (page === 1) {
			let top: number | null = null;
			for (const item of typed) {
				const at = options.topTime(item);
				if (at !== null && (top === null || at > top)) top = at;
			}
			floor = options.floor(clock.now, top);
		}
		items.push(...typed);
		let reachedFloor = false;
		for (const item of typed) {
			const at = options.sortTime(item);
			if (at === null) continue; // not placed by the order (null timestamp): never a reason to stop
			if (lowest === null || at < lowest) lowest = at;
			if (at < floor) reachedFloor = true;
		}
		const perPage = parsed.perPage ?? MAX_PER_PAGE;
		// A total below what this page already shows is wrong: then only a short or empty page ends the list.
		const serverTotal = parsed.total;
		const total = serverTotal !== undefined && serverTotal >= (page - 1) * perPage + typed.length ? serverTotal : undefined;
		const exhausted = typed.length === 0 || typed.length < perPage || (total !== undefined && page * perPage >= total);
		if (exhausted || reachedFloor || options.firstPageOnly) {
			return { items, exhausted, lowest, calls: page };
		}
	}
	throw new NodeOperationError(ctx.getNode(), `More than ${MAX_PAGES_PER_POLL * MAX_PER_PAGE} items changed since the last poll`, {
		description:
			'The trigger reads every change since its last poll before it moves on, and stopped here to keep one poll from running for hours. Narrow the trigger with a Form, or deactivate and activate the workflow to take a new baseline.',
	});
}

export interface FetchResult {
	fetched: Fetched;
	calls: { sessions: number; requests: number };
}

/** Reads what changed since `previous` (or the baseline when there is no previous state). */
export async function fetchChanges(
	ctx: IPollFunctions,
	previous: TriggerState | undefined,
	settings: TriggerSettings,
	formId: string | undefined,
	options: { firstPageOnly?: boolean; localNow?: () => number } = {},
): Promise<FetchResult> {
	const clock = new PollClock(previous?.skewMs, options.localNow);
	const qs: IDataObject = formId ? { form_id: formId } : {};
	const lists = listsFor(settings);
	const fetched: Fetched = { now: 0 };
	const calls = { sessions: 0, requests: 0 };
	if (lists.sessions) {
		const read = await readList<BookingSession>(ctx, clock, {
			path: API_PATHS.sessions,
			qs,
			sortTime: sessionSortTime,
			topTime: activityOf,
			floor: (now, top) => sessionsFloor(previous, settings, now, top),
			firstPageOnly: options.firstPageOnly,
		});
		calls.sessions = read.calls;
		fetched.sessions = { items: read.items, exhausted: read.exhausted, lowest: read.lowest };
	}
	if (lists.requests) {
		const read = await readList<BookingRequest>(ctx, clock, {
			path: API_PATHS.requests,
			qs,
			sortTime: requestSortTime,
			topTime: requestSortTime,
			floor: (_now, top) => requestsFloor(previous, top),
			firstPageOnly: options.firstPageOnly,
		});
		calls.requests = read.calls;
		fetched.requests = { items: read.items, exhausted: read.exhausted, lowest: read.lowest };
	}
	fetched.now = clock.now;
	if (clock.skewMs !== undefined) fetched.skewMs = clock.skewMs;
	return { fetched, calls };
}

/**
 * Get request, for "Include Booking Request". A request that no longer exists (404) gives null so
 * one missing request does not block the trigger; any other failure fails the poll (and the cursor
 * stays where it was, so the events come again on the next poll).
 */
export async function fetchRequest(ctx: IPollFunctions, id: string): Promise<BookingRequest | null> {
	if (!isUuid(id)) return null;
	try {
		const { body } = await apiRequest<BookingRequest>(ctx, `${API_PATHS.requests}/${id}`, { resourceLabel: `booking request ${id}` });
		return isRecord(body) ? body : null;
	} catch (error) {
		if (error instanceof NodeApiError && String(error.httpCode) === '404') return null;
		throw error instanceof NodeApiError || error instanceof NodeOperationError ? error : new NodeApiError(ctx.getNode(), { message: String(error) });
	}
}
