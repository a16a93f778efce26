/**
 * The one join of completed sessions to their booking requests, for the trigger (Session Completed)
 * and the action node (Booking Session → Get Many with Include Booking Request).
 *
 * A booking request is created when its session completes, so the session's `updated_at` (the hint)
 * says where the request is in the request list (newest first by `created_at`). Pages of that list
 * (up to 100 requests per call) are read where they bring more than one wanted request each; every
 * wanted request they do not bring is asked for by id (Get request; a 404 gives null). The hint is
 * never trusted for correctness: a request is taken from a page only by its id, so a hint that is off
 * or a list that moved between calls costs a Get request, never a wrong or a missing request.
 *
 * Two ways to read the list, by what the caller must serve first:
 * - oldest first (the trigger, whose poll has a budget and emits its events oldest first): find the
 *   page of the oldest wanted request and read upward (requestLookup.ts);
 * - from the top (a caller that wants every request and has no budget): page 1 downward while the
 *   pages bring wanted requests, jumping over a stretch of the list that holds none. Reading downward
 *   sees a request that new submissions pushed down between two calls twice rather than never.
 */
import type { PageRead } from './transport/pageReader';
import { isLastPage } from './transport/pageReader';
import type { NumberedPage, Read, RequestListReader, WantedRequest } from './requestLookup';
import { findInRequestList, firstPageReaching, HINT_SLACK_MS, LOOKUP_MIN_WANTED, MIN_YIELD, newestOf, oldestOf, searchCost } from './requestLookup';
import type { BookingRequest } from './types';

export type { RequestListReader, WantedRequest };

/** Get request by id: null when the API answers 404; undefined when the caller's budget is spent (nothing was sent). */
export type GetRequest = (id: string) => Promise<BookingRequest | null | undefined>;

export interface JoinOptions {
	/**
	 * Serve the oldest wanted requests first (the trigger: `wanted` is in event order, oldest first, and
	 * its reader's budget may run out). Default: read from the top, for a caller that wants them all.
	 */
	oldestFirst?: boolean;
}

/**
 * The booking request of each wanted id: the request, or null when the API has none (404). Ids are
 * served in the order of `wanted`: when `getRequest` gives undefined (budget spent), that id and the
 * ids after it that no page brought are left out of the map, so the ids served are a prefix of
 * `wanted` plus any later ones the pages brought.
 *
 * Costs: pages of the request list `reader.known` already holds are free; then about one call per 100
 * wanted requests for the pages that span them (none when fewer than 3 have a hint), plus one Get
 * request per wanted request not found on them.
 */
export async function joinRequests(
	wanted: WantedRequest[],
	reader: RequestListReader,
	getRequest: GetRequest,
	options: JoinOptions = {},
): Promise<Map<string, BookingRequest | null>> {
	const unique = new Map<string, WantedRequest>();
	for (const entry of wanted) if (!unique.has(entry.id)) unique.set(entry.id, entry);
	const joined = new Map<string, BookingRequest | null>();
	for (const page of reader.known ?? []) for (const item of page.items) if (unique.has(item.id)) joined.set(item.id, item);

	const rest = [...unique.values()].filter((entry) => !joined.has(entry.id));
	const inList = options.oldestFirst ? await findInRequestList(rest, reader) : await readFromTop(rest, reader);
	for (const request of inList) joined.set(request.id, request);

	for (const id of unique.keys()) {
		if (joined.has(id)) continue;
		const request = await getRequest(id);
		if (request === undefined) break;
		joined.set(id, request);
	}
	return joined;
}

/**
 * The pages readFromTop reads: each at most once, at most as many as there are wanted requests with
 * a hint, and what each brought (the wanted requests, and whether any id not read before).
 */
class TopPages {
	/** Wanted requests not found yet, by id, with their hint (ms). */
	readonly open = new Map<string, number>();
	readonly found: BookingRequest[] = [];
	readonly yields = new Map<number, { wanted: number; fresh: boolean }>();
	private readonly pages: Map<number, PageRead<BookingRequest>>;
	private readonly seen = new Set<string>();
	private reads = 0;
	private readonly maxReads: number;

	constructor(
		wanted: WantedRequest[],
		private readonly reader: RequestListReader,
	) {
		for (const { id, at } of wanted) if (at !== null) this.open.set(id, at);
		this.maxReads = this.open.size;
		this.pages = new Map((reader.known ?? []).map((page) => [page.page, page]));
	}

	readonly read: Read = async (no) => {
		const known = this.pages.get(no);
		if (known) return known;
		if (this.reads >= this.maxReads || this.reader.callsLeft() < 1) return undefined;
		const page = await this.reader.read(no);
		if (!page) return undefined;
		this.reads++;
		this.pages.set(no, page);
		let brought = 0;
		let fresh = false;
		for (const item of page.items) {
			if (!this.seen.has(item.id)) fresh = true;
			this.seen.add(item.id);
			if (!this.open.delete(item.id)) continue;
			this.found.push(item);
			brought++;
		}
		this.yields.set(no, { wanted: brought, fresh });
		return page;
	};
}

/** Where readFromTop is: page 1, the last page when known, the page read last, the sparse pages in a row. */
interface TopPosition {
	first: PageRead<BookingRequest>;
	lastPage: number | undefined;
	current: NumberedPage;
	sparse: number;
}

/**
 * The page to read after `current`: the next one while it is expected to bring at least MIN_YIELD
 * wanted requests and the last two pages did not both bring fewer; else the page of the newest wanted
 * request still below (`jumped`), when more are left there than the search may cost. Undefined: stop.
 */
async function nextFromTop(top: TopPages, at: TopPosition): Promise<{ no: number; jumped: boolean } | undefined> {
	const { current, first, lastPage } = at;
	const edge = oldestOf(current.page);
	if (edge === null) return undefined;
	// Hints above the page's bottom were due on the pages read: those requests are not where their
	// hint says (Get request finds them); only the ones below decide whether to read on.
	const below = [...top.open.values()].filter((hint) => hint <= edge + HINT_SLACK_MS);
	if (below.length === 0) return undefined;
	const span = Math.max(0, (newestOf(current.page) ?? edge) - edge);
	const expected = below.filter((hint) => hint >= edge - span - HINT_SLACK_MS).length;
	const next = current.no + 1;
	if (expected >= MIN_YIELD && at.sparse < 2) return { no: next, jumped: false };
	if (below.length <= searchCost(lastPage)) return undefined;
	const newestBelow = below.reduce((newest, hint) => Math.max(newest, hint), -Infinity);
	const to = await firstPageReaching(newestBelow + HINT_SLACK_MS, { first, lastPage, read: top.read, from: current });
	return to === undefined ? undefined : { no: Math.max(next, to), jumped: true };
}

/**
 * Reads the request list from page 1 downward and returns the wanted requests its pages bring. It
 * steps to the next page while that page is expected to bring at least MIN_YIELD wanted requests (the
 * hints within one page's time span below) and the last two pages did not both bring fewer; otherwise
 * it jumps to the page of the newest wanted request still below (the interpolated search of
 * requestLookup.ts) when more are left there than the search may cost, and stops when fewer are (Get
 * request is then as cheap). It stops at the list's end, when no wanted request is left below the
 * page read, and never reads more pages than there are wanted requests with a hint.
 */
async function readFromTop(wanted: WantedRequest[], reader: RequestListReader): Promise<BookingRequest[]> {
	const top = new TopPages(wanted, reader);
	if (top.open.size < LOOKUP_MIN_WANTED) return [];
	const first = await top.read(1);
	if (!first) return top.found;
	const lastPage = first.total !== undefined ? Math.max(1, Math.ceil(first.total / first.perPage)) : undefined;
	const at: TopPosition = { first, lastPage, current: { no: 1, page: first }, sparse: 0 };
	while (top.open.size > 0 && !isLastPage(at.current.page, at.current.page.items.length, (at.current.no - 1) * at.current.page.perPage)) {
		const next = await nextFromTop(top, at);
		if (next === undefined) break;
		const page = await top.read(next.no);
		if (!page || page.items.length === 0) break;
		const brought = top.yields.get(next.no);
		if (brought && !brought.fresh) break; // only ids read before: the server may ignore `page`
		at.sparse = (brought?.wanted ?? 0) < MIN_YIELD ? (next.jumped ? 0 : at.sparse) + 1 : 0;
		at.current = { no: next.no, page };
	}
	return top.found;
}
