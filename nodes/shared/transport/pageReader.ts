/**
 * The one page reader. Every list the package reads (Return All and its catch-up passes, the
 * trigger's windows) goes through `readPage` (one validated page) and, when it reads pages one after
 * the other, through `PageSequence` (one set of end rules).
 *
 * Lists are `{ items, pagination: { page, per_page, total } }` (contract). `parseListPage` checks a
 * page before any of it is used, so every reader applies the same contract checks.
 */
import type { IDataObject } from 'n8n-workflow';

import { MAX_PAGES } from '../constants';
import type { PageRead } from '../pages';
import { isLastPage } from '../pages';
import { isRecord } from '../utils';
import { toNodeApiError } from './errors';
import type { ApiContext } from './request';
import { apiRequest, resolveTarget } from './request';

// The page shape and the end rules are pure (shared/pages.ts); readers import them from here too.
export type { PageRead } from '../pages';
export { isLastPage } from '../pages';

export interface ApiItem {
	id: string;
	[key: string]: unknown;
}

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
 * number is converted to the ISO string of the same instant (handled, see docs/troubleshooting.md); anything else is
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
 * Checks one list answer against the contract, without I/O:
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

export interface PageReadOptions {
	/** Time budget (Date.now() clock): see deadline.ts. */
	deadline?: number;
	itemIndex?: number;
}

export async function malformed(ctx: ApiContext, itemIndex: number | undefined, detail: string) {
	const target = await resolveTarget(ctx, itemIndex ?? 0);
	return toNodeApiError(ctx.getNode(), { kind: 'malformed', detail }, { ...target, itemIndex });
}

/** Which page of a list to read: its number, the page size asked for, the list's filters. */
export interface PageAt extends PageReadOptions {
	page: number;
	perPage: number;
	qs?: IDataObject;
}

/** Reads and validates one page of a list. */
export async function readPage<T extends ApiItem>(ctx: ApiContext, path: string, at: PageAt): Promise<PageRead<T>> {
	const { page, perPage, itemIndex } = at;
	const { body, serverDate } = await apiRequest<unknown>(ctx, path, {
		qs: { ...(at.qs ?? {}), page, per_page: perPage },
		itemIndex,
		deadline: at.deadline,
	});
	const parsed = parseListPage<T>(body, `page ${page} of ${path}`);
	if ('problem' in parsed) throw await malformed(ctx, itemIndex, parsed.problem);
	return { page, items: parsed.items, perPage: parsed.perPage ?? perPage, total: parsed.total, serverDate };
}

/** The problem of a page that brings only ids the pages read just before it already had. */
export function repeatedPageProblem(path: string, page: number): string {
	return `page ${page} of ${path} repeated only items of earlier pages; the server may ignore the "page" parameter`;
}

export interface PageSequenceOptions extends PageReadOptions {
	qs?: IDataObject;
	perPage: number;
	/** First page to read (default 1). Pages are read from there downward: startPage, startPage + 1, … */
	startPage?: number;
	/** At most this many pages (default MAX_PAGES: a safety net, not a budget). */
	maxPages?: number;
}

/**
 * Reads a list page after page, downward from a start page, and says when the list ended.
 *
 * Reading downward (increasing page numbers) never skips an item that stays in the list's order:
 * between two reads items are only inserted at the top or jump to the top, which moves the rest
 * down (read twice, never missed). A page that brings no id this sequence has not seen already
 * (after the first page) means the server ignores `page`: a clear error, never an endless loop.
 */
export class PageSequence<T extends ApiItem> {
	private readonly seen = new Set<string>();
	private nextPage: number;
	private pagesRead = 0;
	/** Why the sequence ended: the list's end, or the page cap. */
	endedBy: 'end' | 'cap' | undefined;

	constructor(
		private readonly ctx: ApiContext,
		private readonly path: string,
		private readonly options: PageSequenceOptions,
	) {
		this.nextPage = Math.max(1, options.startPage ?? 1);
	}

	get ended(): boolean {
		return this.endedBy !== undefined;
	}

	/** Distinct ids received by this sequence. */
	get received(): number {
		return this.seen.size;
	}

	/** The next page, or undefined once the list ended (or the cap was reached). */
	async next(): Promise<PageRead<T> | undefined> {
		if (this.ended) return undefined;
		const number = this.nextPage;
		const { qs, perPage, deadline, itemIndex } = this.options;
		const page = await readPage<T>(this.ctx, this.path, { qs, page: number, perPage, deadline, itemIndex });
		this.pagesRead++;
		let fresh = 0;
		for (const item of page.items) {
			if (!this.seen.has(item.id)) {
				this.seen.add(item.id);
				fresh++;
			}
		}
		const above = (Math.max(1, this.options.startPage ?? 1) - 1) * page.perPage;
		if (isLastPage(page, this.seen.size, above)) this.endedBy = 'end';
		else if (this.pagesRead > 1 && fresh === 0) {
			throw await malformed(this.ctx, this.options.itemIndex, repeatedPageProblem(this.path, number));
		} else if (this.pagesRead >= (this.options.maxPages ?? MAX_PAGES)) this.endedBy = 'cap';
		this.nextPage = number + 1;
		return page;
	}
}
