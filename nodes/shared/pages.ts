/**
 * A page of a list as read, and when it is the last one: pure (no HTTP), so that the trigger's pure
 * core can use the one set of end rules without loading the request code. transport/pageReader.ts
 * reads pages and re-exports these.
 */

/** One page as read: validated items, the page size the server used, its total and its clock. */
export interface PageRead<T> {
	/** The page number asked for. */
	page: number;
	items: T[];
	/** The server's `per_page` (the one asked for when the server did not say). */
	perPage: number;
	/** The server's `total`, when it sent a readable one. */
	total?: number;
	/** The server's clock at the answer (HTTP `Date` header), when it sent one. */
	serverDate?: number;
}

/**
 * Whether `page` is the last page of the list (the one set of end rules):
 * - an empty page;
 * - with a plausible `total` (not below what was already received): `page * per_page` reached it AND as
 *   many distinct ids as `total` were received — counting the pages above the first one read as full
 *   (`above`) — so a `per_page` the server misreports, or items that shifted, cost at most one more
 *   call instead of silently missing items;
 * - without a plausible `total`: a short page.
 */
export function isLastPage(page: PageRead<unknown>, distinctReceived: number, above = 0): boolean {
	if (page.items.length === 0) return true;
	const received = above + distinctReceived;
	const total = page.total !== undefined && page.total >= received ? page.total : undefined;
	if (total !== undefined) return page.page * page.perPage >= total && received >= total;
	return page.items.length < page.perPage;
}
