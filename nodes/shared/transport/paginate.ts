import type { IDataObject } from 'n8n-workflow';

import { MAX_PAGES, MAX_PER_PAGE } from '../constants';
import { toNodeApiError } from './errors';
import type { ApiContext } from './request';
import { apiRequest, resolveTarget } from './request';

/**
 * The one paginator. Lists are `{ items, pagination: { page, per_page, total } }`; to read everything,
 * increase `page` until `items` is empty or `page * per_page >= total` (contract). The server's
 * `per_page` and `total` are trusted (the profiles endpoint's maximum is not in the contract), so the
 * last page is known without fetching an extra empty one.
 */

export interface ApiItem {
	id: string;
	[key: string]: unknown;
}

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
	 * began is returned exactly once.
	 */
	movesToTopBy?: (item: T) => string | null;
	/** Client-side filter: only accepted items are returned and count towards `limit`. */
	accept?: (item: T) => boolean;
}

export interface PaginateResult<T> {
	items: T[];
	calls: number;
	/** Server clock (`Date` header) of the first page. */
	serverDate?: number;
}

interface Page<T> {
	items: T[];
	perPage: number;
	total: number | undefined;
	serverDate?: number;
}

const MAX_CATCH_UP_PASSES = 5;

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function fetchPage<T extends ApiItem>(
	ctx: ApiContext,
	path: string,
	page: number,
	perPage: number,
	options: PaginateOptions<T>,
): Promise<Page<T>> {
	const { body, serverDate } = await apiRequest<unknown>(ctx, path, {
		qs: { ...options.qs, page, per_page: perPage },
		itemIndex: options.itemIndex,
	});
	const malformed = async (detail: string) => {
		const target = await resolveTarget(ctx, options.itemIndex ?? 0);
		return toNodeApiError(ctx.getNode(), { kind: 'malformed', detail }, { ...target, itemIndex: options.itemIndex });
	};
	if (!isRecord(body) || !Array.isArray(body.items)) {
		throw await malformed(`page ${page} of ${path} has no "items" list`);
	}
	for (const item of body.items) {
		if (!isRecord(item) || typeof item.id !== 'string' || item.id === '') {
			throw await malformed(`page ${page} of ${path} holds an item without a string "id"`);
		}
	}
	const pagination = isRecord(body.pagination) ? body.pagination : {};
	const serverPerPage = Number(pagination.per_page);
	const total = Number(pagination.total);
	return {
		items: body.items as T[],
		perPage: Number.isInteger(serverPerPage) && serverPerPage > 0 ? serverPerPage : perPage,
		total: Number.isInteger(total) && total >= 0 ? total : undefined,
		serverDate,
	};
}

/**
 * Collects items by id: a repeated id (shifted by new activity between pages) keeps the newest copy.
 * `seen` counts every id received, accepted or not, to tell progress from a repeated page.
 */
class ItemCollector<T extends ApiItem> {
	private readonly index = new Map<string, number>();
	private readonly seen = new Set<string>();
	readonly items: T[] = [];

	constructor(private readonly accept?: (item: T) => boolean) {}

	/** Returns whether the id was new. */
	add(item: T): boolean {
		const isNew = !this.seen.has(item.id);
		this.seen.add(item.id);
		const at = this.index.get(item.id);
		if (at !== undefined) {
			this.items[at] = item;
		} else if (!this.accept || this.accept(item)) {
			this.index.set(item.id, this.items.length);
			this.items.push(item);
		}
		return isNew;
	}

	get size() {
		return this.items.length;
	}

	get received() {
		return this.seen.size;
	}
}

/** Reads pages from page 1 until the end, the limit, or `until` says to stop. */
async function readPass<T extends ApiItem>(
	ctx: ApiContext,
	path: string,
	options: PaginateOptions<T>,
	collector: ItemCollector<T>,
	perPage: number,
	until: ((item: T) => boolean) | undefined,
	onPage: (page: Page<T>, number: number) => void,
): Promise<{ pages: number; added: number }> {
	let added = 0;
	for (let pageNumber = 1; pageNumber <= MAX_PAGES; pageNumber++) {
		const page = await fetchPage(ctx, path, pageNumber, perPage, options);
		onPage(page, pageNumber);
		let addedHere = 0;
		let ended = false;
		for (const item of page.items) {
			if (until?.(item)) {
				ended = true;
				break;
			}
			if (collector.add(item)) addedHere++;
			if (options.limit !== undefined && collector.size >= options.limit) {
				ended = true;
				break;
			}
		}
		added += addedHere;
		if (ended || page.items.length === 0) return { pages: pageNumber, added };
		const readSoFar = pageNumber * page.perPage;
		// A `total` below what was already received is wrong; then page until a short or empty page.
		const totalIsPlausible = page.total !== undefined && page.total >= collector.received;
		if (totalIsPlausible && readSoFar >= (page.total as number)) return { pages: pageNumber, added };
		if (!totalIsPlausible && page.items.length < page.perPage) return { pages: pageNumber, added };
		if (addedHere === 0 && !until) {
			const target = await resolveTarget(ctx, options.itemIndex ?? 0);
			throw toNodeApiError(
				ctx.getNode(),
				{ kind: 'malformed', detail: `page ${pageNumber} of ${path} repeated only items of earlier pages; the server may ignore the "page" parameter` },
				{ ...target, itemIndex: options.itemIndex },
			);
		}
	}
	return { pages: MAX_PAGES, added };
}

function timeOf(value: string | null | undefined): number {
	const parsed = value ? Date.parse(value) : NaN;
	return Number.isFinite(parsed) ? parsed : -Infinity;
}

export async function paginate<T extends ApiItem>(ctx: ApiContext, path: string, options: PaginateOptions<T> = {}): Promise<PaginateResult<T>> {
	if (options.limit !== undefined && options.limit <= 0) return { items: [], calls: 0 };
	// With a limit and no client-side filter, a smaller page avoids transferring items that are cut off;
	// the number of calls is the same minimum either way.
	const perPage =
		options.limit !== undefined && !options.accept ? Math.min(MAX_PER_PAGE, Math.max(1, options.limit)) : MAX_PER_PAGE;
	const collector = new ItemCollector<T>(options.accept);
	let calls = 0;
	let serverDate: number | undefined;
	let passTop: number | undefined;

	const main = await readPass(ctx, path, options, collector, perPage, options.stopAt, (page, number) => {
		calls++;
		if (number === 1) {
			serverDate = page.serverDate;
			if (options.movesToTopBy && page.items.length > 0) passTop = timeOf(options.movesToTopBy(page.items[0]));
		}
	});

	// A single page is one answer of the server, a consistent snapshot; only multi-page listings of a
	// moving list can miss an item that jumped above the pages already read.
	const moving = options.movesToTopBy;
	if (moving && options.limit === undefined && main.pages > 1 && passTop !== undefined) {
		for (let pass = 0; pass < MAX_CATCH_UP_PASSES; pass++) {
			const since = passTop as number;
			let nextTop: number | undefined;
			const caught = await readPass(
				ctx,
				path,
				options,
				collector,
				perPage,
				(item) => timeOf(moving(item)) < since || (options.stopAt?.(item) ?? false),
				(page, number) => {
					calls++;
					if (number === 1 && page.items.length > 0) nextTop = timeOf(moving(page.items[0]));
				},
			);
			// A pass that ended inside its first page read the whole moved region in one answer: done.
			if (caught.pages === 1) break;
			passTop = nextTop ?? since;
		}
	}
	return { items: collector.items, calls, serverDate };
}
