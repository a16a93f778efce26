import type { IDataObject } from 'n8n-workflow';

import { MAX_PAGES, MAX_PER_PAGE } from '../constants';
import { toNodeApiError } from './errors';
import type { ApiContext } from './request';
import { apiRequest, resolveTarget } from './request';
import { isRecord, timestampMs } from '../utils';

/**
 * The one paginator. Lists are `{ items, pagination: { page, per_page, total } }`; to read everything,
 * increase `page` until `items` is empty or `page * per_page >= total` (contract). The server's
 * `per_page` and `total` are used (the profiles endpoint's maximum is not in the contract), so the
 * last page is known without fetching an extra empty one — as long as the distinct ids received add
 * up to `total`; when they do not (items shifted, or a wrong `per_page`), one more page is read.
 * Every page is checked by `parseListPage` before any of it is used.
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

/** Contract: timestamps are ISO 8601 strings (or null where noted). These are the list items' timestamp fields. */
const TIMESTAMP_FIELDS = ['created_at', 'updated_at', 'completed_at'] as const;
/** A number in this range (2000-01-01 … 2100-01-01 as epoch ms) is read as epoch milliseconds. */
const EPOCH_MS_MIN = Date.UTC(2000, 0, 1);
const EPOCH_MS_MAX = Date.UTC(2100, 0, 1);

function shown(value: unknown): string {
	let text: string;
	try {
		text = JSON.stringify(value) ?? String(value);
	} catch {
		text = String(value);
	}
	return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * A timestamp field as the contract has it: an ISO string, null, or absent. An epoch-milliseconds
 * number is converted to the ISO string of the same instant (handled, see README); anything else is
 * a contract break that would make date filters and ordering silently wrong.
 */
function normaliseTimestamp(value: unknown): { ok: true; value: unknown } | { ok: false } {
	if (value === null || value === undefined) return { ok: true, value };
	if (typeof value === 'string') return Number.isFinite(Date.parse(value)) ? { ok: true, value } : { ok: false };
	if (typeof value === 'number' && Number.isInteger(value) && value >= EPOCH_MS_MIN && value < EPOCH_MS_MAX) {
		return { ok: true, value: new Date(value).toISOString() };
	}
	return { ok: false };
}

export interface ListPage<T> {
	items: T[];
	/** `pagination.per_page` when it is a positive whole number (a numeric string is accepted). */
	perPage?: number;
	/** `pagination.total` when it is a whole number >= 0 (a numeric string is accepted). */
	total?: number;
}

/**
 * Checks one list answer against the contract, without I/O, so every reader of lists (the paginator
 * and the trigger) applies the same rules:
 * - `items` must be a list of objects with a non-empty string `id`, each id at most once per page (one
 *   page is one answer of the server: a repeated id there is not an item that shifted between pages,
 *   and it usually stands in for an item that is then missing);
 * - `created_at` / `updated_at` / `completed_at` must be ISO strings or null; epoch-ms numbers are
 *   converted to ISO strings (the item is copied, never changed in place);
 * - `pagination.per_page` / `total` are read leniently (numeric strings accepted, anything else ignored).
 * Returns the page, or `{ problem }` describing the first breach (`where` names the page in it).
 */
export function parseListPage<T extends ApiItem>(body: unknown, where: string): ListPage<T> | { problem: string } {
	if (!isRecord(body) || !Array.isArray(body.items)) return { problem: `${where} has no "items" list` };
	const items: T[] = [];
	const ids = new Set<string>();
	for (const raw of body.items as unknown[]) {
		if (!isRecord(raw) || typeof raw.id !== 'string' || raw.id === '') {
			return { problem: `${where} holds an item without a string "id"` };
		}
		if (ids.has(raw.id)) return { problem: `${where} lists the id ${shown(raw.id)} twice` };
		ids.add(raw.id);
		let item = raw;
		for (const field of TIMESTAMP_FIELDS) {
			if (!(field in raw)) continue;
			const checked = normaliseTimestamp(raw[field]);
			if (!checked.ok) {
				return {
					problem: `${where}: item ${shown(raw.id)} has ${field} = ${shown(raw[field])}; the contract says an ISO 8601 timestamp`,
				};
			}
			if (checked.value !== raw[field]) {
				if (item === raw) item = { ...raw };
				item[field] = checked.value;
			}
		}
		items.push(item as T);
	}
	const pagination = isRecord(body.pagination) ? body.pagination : {};
	const wholeNumber = (value: unknown, min: number): number | undefined => {
		if (typeof value !== 'number' && typeof value !== 'string') return undefined;
		if (typeof value === 'string' && value.trim() === '') return undefined;
		const number = Number(value);
		return Number.isInteger(number) && number >= min ? number : undefined;
	};
	return { items, perPage: wholeNumber(pagination.per_page, 1), total: wholeNumber(pagination.total, 0) };
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
	const parsed = parseListPage<T>(body, `page ${page} of ${path}`);
	if ('problem' in parsed) throw await malformed(ctx, options, parsed.problem);
	return { items: parsed.items, perPage: parsed.perPage ?? perPage, total: parsed.total, serverDate };
}

async function malformed(ctx: ApiContext, options: { itemIndex?: number }, detail: string) {
	const target = await resolveTarget(ctx, options.itemIndex ?? 0);
	return toNodeApiError(ctx.getNode(), { kind: 'malformed', detail }, { ...target, itemIndex: options.itemIndex });
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

/**
 * Reads pages from page 1 until the end, the limit, or `until` says to stop.
 *
 * The end: an empty page; or, with a plausible `total`, when `page * per_page` reached it AND as many
 * distinct ids as `total` were received (so a `per_page` the server misreports, or items that shifted,
 * cost at most one more call instead of silently missing items); without a plausible `total`, a short
 * page. A server that ignores `page` is caught, never followed for ever: in the main pass a page that
 * brings no new id, in a catch-up pass a page with exactly the ids of the page before.
 */
async function readPass<T extends ApiItem>(
	ctx: ApiContext,
	path: string,
	options: PaginateOptions<T>,
	collector: ItemCollector<T>,
	perPage: number,
	until: ((item: T) => boolean) | undefined,
	catchUp: boolean,
	onPage: (page: Page<T>, number: number) => void,
): Promise<{ pages: number; added: number }> {
	let added = 0;
	let previousIds = '';
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
		const total = page.total !== undefined && page.total >= collector.received ? page.total : undefined;
		if (total !== undefined && readSoFar >= total && collector.received >= total) return { pages: pageNumber, added };
		if (total === undefined && page.items.length < page.perPage) return { pages: pageNumber, added };
		const ids = page.items.map((item) => item.id).join(',');
		if (pageNumber > 1 && (catchUp ? ids === previousIds : addedHere === 0)) {
			throw await malformed(
				ctx,
				options,
				`page ${pageNumber} of ${path} repeated only items of earlier pages; the server may ignore the "page" parameter`,
			);
		}
		previousIds = ids;
	}
	return { pages: MAX_PAGES, added };
}

/** Sort time of an item; a missing or unreadable timestamp sorts as oldest. */
function timeOf(value: string | null | undefined): number {
	return timestampMs(value) ?? -Infinity;
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

	const main = await readPass(ctx, path, options, collector, perPage, options.stopAt, false, (page, number) => {
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
				true,
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
