import type { IDataObject } from 'n8n-workflow';

import { LATE_COMMIT_MS, MAX_PER_PAGE } from '../constants';
import { timestampMs } from '../utils';
import type { ApiItem, PageRead } from './pageReader';
import { PageSequence } from './pageReader';
import type { ApiContext } from './request';

export type { ApiItem, ListPage } from './pageReader';
export { parseListPage } from './pageReader';

/**
 * Return All: reads a list from page 1 to its end (or a limit, or a `stopAt` item) through the page
 * reader (pageReader.ts: one validated page at a time, one set of end rules), and for lists whose
 * items jump to the top when they change, reads the top again for the items that moved above the
 * pages already read ("catch-up passes").
 */

export interface PaginateOptions<T extends ApiItem> {
	qs?: IDataObject;
	itemIndex?: number;
	/** Stop after this many items; `undefined` reads everything. Only the pages needed are fetched. */
	limit?: number;
	/**
	 * For ordered lists: the first item for which this is true, and everything after it, is past the
	 * wanted range, so paging stops there ("Created After" on newest-first requests).
	 */
	stopAt?: (item: T) => boolean;
	/**
	 * For lists where an item jumps to the top when it changes (sessions, by `updated_at`): returns the
	 * item's sort timestamp. After a multi-page listing, the paginator reads the top of the list again
	 * for items that moved above the pages already read, so every item that existed when the listing
	 * began is returned exactly once. Items without a sort time have no place in that order (the API
	 * may list them first or last): they neither mark the top nor end a pass. An item saved while the
	 * list is read may be stamped a little before the top read first (committed late: LATE_COMMIT_MS),
	 * so a pass reads that far below the top.
	 */
	movesToTopBy?: (item: T) => string | null;
	/**
	 * Client-side filter, applied to the copy that is returned (the newest one read): only accepted
	 * items are returned and count towards `limit`.
	 */
	accept?: (item: T) => boolean;
}

export interface PaginateResult<T> {
	items: T[];
	calls: number;
	/** Server clock (`Date` header) of the first page. */
	serverDate?: number;
}

const MAX_CATCH_UP_PASSES = 5;

/**
 * Collects items by id. A repeated id (shifted by new activity between pages) keeps the newest copy,
 * and the filter is decided on that copy: an item accepted on an older copy that no longer matches
 * (a session that completed while the list was read) is dropped, and one that matches only now is kept.
 * Items keep the position of their first appearance.
 */
class ItemCollector<T extends ApiItem> {
	private readonly order: string[] = [];
	private readonly latest = new Map<string, { item: T; accepted: boolean }>();
	private acceptedCount = 0;

	constructor(private readonly accept?: (item: T) => boolean) {}

	/** Returns whether the id was new. */
	add(item: T): boolean {
		const accepted = !this.accept || this.accept(item);
		const known = this.latest.get(item.id);
		if (known) this.acceptedCount -= known.accepted ? 1 : 0;
		else this.order.push(item.id);
		this.latest.set(item.id, { item, accepted });
		this.acceptedCount += accepted ? 1 : 0;
		return !known;
	}

	/** Items whose newest copy is accepted, in order of first appearance. */
	get items(): T[] {
		const out: T[] = [];
		for (const id of this.order) {
			const entry = this.latest.get(id) as { item: T; accepted: boolean };
			if (entry.accepted) out.push(entry.item);
		}
		return out;
	}

	get size() {
		return this.acceptedCount;
	}
}

/** What one pass reads with and into. */
interface Pass<T extends ApiItem> {
	options: PaginateOptions<T>;
	collector: ItemCollector<T>;
	perPage: number;
	/** The first item for which this is true ends the pass (it is not collected). */
	until?: (item: T) => boolean;
}

/**
 * One pass from page 1 downward until the end of the list, the limit, or `until` says to stop.
 * Returns the pages read and the first page.
 */
async function readPass<T extends ApiItem>(ctx: ApiContext, path: string, pass: Pass<T>): Promise<{ pages: number; first?: PageRead<T> }> {
	const { options, collector, perPage, until } = pass;
	const sequence = new PageSequence<T>(ctx, path, { qs: options.qs, perPage, itemIndex: options.itemIndex });
	let pages = 0;
	let first: PageRead<T> | undefined;
	for (let page = await sequence.next(); page; page = await sequence.next()) {
		pages++;
		first ??= page;
		for (const item of page.items) {
			if (until?.(item)) return { pages, first };
			collector.add(item);
			if (options.limit !== undefined && collector.size >= options.limit) return { pages, first };
		}
	}
	return { pages, first };
}

/**
 * The top of a page in a list ordered by `sortTime`: its newest sort time, or undefined when no item
 * has one. Items without one are skipped, wherever the API puts them (first or last): taking one as
 * the top would make every later pass read the whole list again.
 */
function topOf<T extends ApiItem>(page: PageRead<T> | undefined, sortTime: (item: T) => string | null): number | undefined {
	let top: number | undefined;
	for (const item of page?.items ?? []) {
		const time = timestampMs(sortTime(item));
		if (time !== null && (top === undefined || time > top)) top = time;
	}
	return top;
}

/** Whether `item` sorts below `since` (older); an item without a sort time never does. */
function olderThan<T extends ApiItem>(item: T, since: number, sortTime: (item: T) => string | null): boolean {
	const time = timestampMs(sortTime(item));
	return time !== null && time < since;
}

export async function paginate<T extends ApiItem>(ctx: ApiContext, path: string, options: PaginateOptions<T> = {}): Promise<PaginateResult<T>> {
	if (options.limit !== undefined && options.limit <= 0) return { items: [], calls: 0 };
	// With a limit and no client-side filter, a smaller page avoids transferring items that are cut off;
	// the number of calls is the same minimum either way.
	const perPage =
		options.limit !== undefined && !options.accept ? Math.min(MAX_PER_PAGE, Math.max(1, options.limit)) : MAX_PER_PAGE;
	const collector = new ItemCollector<T>(options.accept);

	const main = await readPass(ctx, path, { options, collector, perPage, until: options.stopAt });
	let calls = main.pages;
	const serverDate = main.first?.serverDate;

	// A single page is one answer of the server, a consistent snapshot; only multi-page listings of a
	// moving list can miss an item that jumped above the pages already read.
	const moving = options.movesToTopBy;
	if (!moving || options.limit !== undefined || main.pages <= 1) return { items: collector.items, calls, serverDate };
	let since = topOf(main.first, moving);
	for (let pass = 0; pass < MAX_CATCH_UP_PASSES && since !== undefined; pass++) {
		const top = since;
		const until = (item: T) => olderThan(item, top - LATE_COMMIT_MS, moving) || (options.stopAt?.(item) ?? false);
		const caught = await readPass(ctx, path, { options, collector, perPage, until });
		calls += caught.pages;
		// A pass that ended inside its first page read the whole moved region in one answer: done.
		if (caught.pages === 1) break;
		since = topOf(caught.first, moving) ?? top;
	}
	return { items: collector.items, calls, serverDate };
}
