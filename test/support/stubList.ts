/**
 * A stub of n8n's request helper serving lists from memory, for unit tests of the page reader and
 * the paginator (the shared transport and limiter are the real ones). `onRequest` runs before each
 * answer is computed, so a test can change the list between page reads.
 */
import type { IPollFunctions } from 'n8n-workflow';

let instance = 0;

export interface StubCall {
	path: string;
	page: number;
	perPage: number;
}

export interface StubList<T> {
	ctx: IPollFunctions;
	calls: StubCall[];
}

export function stubListServer<T extends { id: string }>(
	list: () => T[],
	options: {
		onRequest?: (call: StubCall, index: number) => void;
		/** Overrides the answer body of a call. */
		answer?: (call: StubCall, items: T[], total: number) => unknown;
		date?: () => number | undefined;
		maxPerPage?: number;
	} = {},
): StubList<T> {
	instance++;
	const calls: StubCall[] = [];
	const ctx = {
		getCredentials: async () => ({ apiKey: `brk_${'cd'.repeat(16)}`, baseUrl: `https://stub-list-${instance}.example.com` }),
		getNode: () => ({ id: 'node', name: 'Node', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} }),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, request: { url: string; qs: { page: number; per_page: number } }) => {
				const perPage = Math.min(Number(request.qs.per_page), options.maxPerPage ?? 100);
				const call = { path: request.url, page: Number(request.qs.page), perPage };
				calls.push(call);
				options.onRequest?.(call, calls.length - 1);
				const all = list();
				const items = all.slice((call.page - 1) * perPage, call.page * perPage).map((item) => structuredClone(item));
				const body = options.answer?.(call, items, all.length) ?? { items, pagination: { page: call.page, per_page: perPage, total: all.length } };
				const date = options.date?.();
				return { statusCode: 200, headers: date === undefined ? {} : { date: new Date(date).toUTCString() }, body: JSON.stringify(body) };
			},
		},
	} as unknown as IPollFunctions;
	return { ctx, calls };
}
