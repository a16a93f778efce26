/**
 * Where a poll's pages and booking requests come from: the API through n8n's helpers (the shared page
 * reader: rate limiter, retries, contract checks), or the in-memory model of the tests.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { API_PATHS, MAX_PER_PAGE } from '../../shared/constants';
import { isDeadlineReached } from '../../shared/transport/deadline';
import { asNodeError } from '../../shared/transport/errors';
import type { PageRead } from '../../shared/transport/pageReader';
import { malformed, readPage, repeatedPageProblem } from '../../shared/transport/pageReader';
import { getRequestById } from '../../shared/transport/requestById';
import type { BookingRequest } from '../../shared/types';
import { isRecord } from '../../shared/utils';
import { isUuid } from '../../shared/validation';
import type { ListItem, ListName } from '../model/pages';

export interface PageSource {
	/** One validated page; undefined when the poll's budget is spent (nothing was sent). */
	readPage(list: ListName, page: number): Promise<PageRead<ListItem> | undefined>;
	/** A booking request by id; null when it does not exist (404); undefined when the budget is spent. */
	fetchRequest(id: string): Promise<BookingRequest | null | undefined>;
}

/**
 * Get request, for completed sessions. A request that no longer exists (404) gives null so one
 * missing request does not block the trigger; any other failure fails the poll (and nothing advances,
 * so the events come again on the next poll).
 */
export async function fetchRequest(ctx: IPollFunctions, id: string, options: { deadline?: number } = {}): Promise<BookingRequest | null> {
	if (!isUuid(id)) return null;
	const body = await getRequestById(ctx, id, { nullIfNotFound: true, deadline: options.deadline });
	return isRecord(body) ? (body as BookingRequest) : null;
}

/** A call that ran out of budget (deadline.ts) gives undefined; every other failure fails the poll. */
function undefinedPastDeadline(ctx: IPollFunctions): (error: unknown) => undefined {
	return (error) => {
		if (isDeadlineReached(error)) return undefined;
		throw asNodeError(ctx.getNode(), error);
	};
}

/** The API as a page source for one poll: every call within `deadline`. */
export function apiSource(ctx: IPollFunctions, formId: string | undefined, options: { deadline?: number; requestsOfEveryForm?: boolean } = {}): PageSource {
	const { deadline } = options;
	const filtered: IDataObject = formId ? { form_id: formId } : {};
	// Skip Customers Who Booked counts bookings on any form: the request list is then read unfiltered.
	const query: Record<ListName, IDataObject> = { sessions: filtered, requests: options.requestsOfEveryForm ? {} : filtered };
	// The ids of the pages read one after the other downward in each list (the page reader's rule: a
	// page that brings only ids already read just before it means the server ignores `page`).
	const runs: Record<ListName, { page: number; ids: Set<string> } | undefined> = { sessions: undefined, requests: undefined };
	return {
		readPage: async (list, page) => {
			const read = await readPage<ListItem>(ctx, API_PATHS[list], { qs: query[list], page, perPage: MAX_PER_PAGE, deadline }).catch(undefinedPastDeadline(ctx));
			if (!read) return undefined;
			const run = runs[list]?.page === page - 1 ? runs[list] : undefined;
			if (run && read.items.length > 0 && read.items.every((item) => run.ids.has(item.id))) {
				throw await malformed(ctx, undefined, repeatedPageProblem(API_PATHS[list], page));
			}
			const ids = run?.ids ?? new Set<string>();
			for (const item of read.items) ids.add(item.id);
			runs[list] = { page, ids };
			return read;
		},
		fetchRequest: async (id) => await fetchRequest(ctx, id, { deadline }).catch(undefinedPastDeadline(ctx)),
	};
}
