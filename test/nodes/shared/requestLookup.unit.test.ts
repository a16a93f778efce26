/**
 * findInRequestList: booking requests found in pages of the request list instead of one Get each.
 * A model list (newest first by created_at, 100 per page) counts the calls; nothing here waits.
 */
import type { BookingRequest } from '../../../nodes/shared/types';
import { attachReserve, findInRequestList, HINT_SLACK_MS, LOOKUP_MIN_WANTED } from '../../../nodes/shared/requestLookup';
import type { WantedRequest } from '../../../nodes/shared/requestLookup';
import { ModelList } from '../../support/requestListModel';

const T0 = Date.parse('2026-11-01T00:00:00.000Z');

const want = (requests: BookingRequest[]): WantedRequest[] => requests.map((request) => ({ id: request.id, at: Date.parse(request.created_at) }));
const ids = (requests: BookingRequest[]) => requests.map((request) => request.id).sort();
const log2 = (n: number) => Math.ceil(Math.log2(n));

/** findInRequestList on the model list; every request it returns is a wanted one. */
async function lookup(list: ModelList, wanted: WantedRequest[]): Promise<BookingRequest[]> {
	const found = await findInRequestList(wanted, list.reader());
	const wantedIds = new Set(wanted.map((entry) => entry.id));
	expect(found.filter((request) => !wantedIds.has(request.id))).toEqual([]);
	return found;
}

describe('findInRequestList', () => {
	test(`fewer than ${LOOKUP_MIN_WANTED} wanted: nothing is read (Get request is as cheap)`, async () => {
		const list = new ModelList();
		const all = list.addMany(500, T0);
		expect(await findInRequestList(want(all.slice(0, LOOKUP_MIN_WANTED - 1)), list.reader())).toEqual([]);
		expect(list.calls).toBe(0);
	});

	test('a backlog of 6,000 in the middle of 20,000: found in pages, about one call per 100', async () => {
		const list = new ModelList();
		const all = list.addMany(20_000, T0);
		const wanted = all.slice(5_000, 11_000); // pages 91..150 from the top
		const found = await findInRequestList(want(wanted), list.reader());
		expect(ids(found)).toEqual(ids(wanted));
		// page 1, the search (gallop + bisection over 200 pages), then the 60 pages of the range
		expect(list.calls).toBeLessThanOrEqual(1 + 2 * log2(200) + 61);
		expect(list.calls).toBeLessThan(wanted.length / 50);
		// every returned object is the list's request (taken by id, never by position)
		for (const request of found) expect(request).toEqual(all.find((candidate) => candidate.id === request.id));
	});

	test('within a small budget, the oldest wanted are found first (the events are emitted oldest first)', async () => {
		const list = new ModelList();
		const all = list.addMany(20_000, T0);
		const wanted = all.slice(5_000, 11_000);
		let left = 25;
		const reader = list.reader(() => left);
		const found = await findInRequestList(want(wanted), { ...reader, read: async (page) => (left--, reader.read(page)) });
		expect(left).toBe(0);
		// the oldest 100 · (pages read upward) are all there: a prefix in event order
		const served = new Set(found.map((request) => request.id));
		const prefix = wanted.findIndex((request) => !served.has(request.id));
		expect(prefix).toBeGreaterThanOrEqual(500);
	});

	test('sparse wanted (one per page): stops after two sparse pages, the rest is left to Get request', async () => {
		const list = new ModelList();
		const all = list.addMany(10_000, T0);
		await lookup(list, want(all.filter((_, i) => i % 100 === 7).slice(0, 60)));
		expect(list.calls).toBeLessThanOrEqual(1 + 2 * log2(100) + 2);
	});

	test('a few wanted far down the list: no search (Get request costs less), only page 1 is read', async () => {
		const list = new ModelList();
		const all = list.addMany(100_000, T0);
		const wanted = all.slice(100, 105);
		const found = await findInRequestList(want(wanted), list.reader());
		expect(found).toEqual([]);
		expect(list.calls).toBe(1);
	});

	test('bursty timestamps (bulk imports of one created_at between quiet hours): bisection bounds the search', async () => {
		const list = new ModelList();
		let at = T0;
		for (let burst = 0; burst < 40; burst++) {
			for (let i = 0; i < 250; i++) list.add(at);
			at += (burst % 7) * 3_600_000 + 1000;
		}
		await lookup(list, want(list.requests.slice(3_100, 3_400)));
		expect(list.calls).toBeLessThanOrEqual(1 + 2 * log2(100) + 8);
	});

	test('hints that are wrong or missing never give a wrong request: only ids are matched', async () => {
		const list = new ModelList();
		const all = list.addMany(3_000, T0);
		const wanted = all.slice(1_000, 1_300).map((request, i) => ({ id: request.id, at: i % 3 === 0 ? null : T0 + 10 * 24 * 3_600_000 }));
		const found = await findInRequestList(wanted, list.reader());
		const wantedIds = new Set(wanted.map((entry) => entry.id));
		for (const request of found) expect(wantedIds.has(request.id)).toBe(true);
		expect(new Set(found.map((request) => request.id)).size).toBe(found.length);
	});

	test('requests arriving between the calls (the list moves down): found ones are right, most are found', async () => {
		const list = new ModelList({ beforeRead: (self) => self.addMany(7, T0 + 10_000_000 + self.calls * 10_000) });
		const all = list.addMany(5_000, T0);
		const wanted = all.slice(2_000, 3_000);
		const found = await findInRequestList(want(wanted), list.reader());
		const wantedIds = new Set(wanted.map((entry) => entry.id));
		for (const request of found) expect(wantedIds.has(request.id)).toBe(true);
		// reading upward, the requests pushed from a page to the one below it since that one was read are
		// skipped (7 per call here, an extreme rate at 1 call/s): those are left to Get request
		expect(found.length).toBeLessThan(wanted.length);
		expect(found.length).toBeGreaterThan(wanted.length * 0.8);
	});

	test.each([
		['wanted among the newest 100: one call finds them all', {}, 1_000, -60, -20, 1],
		['40 wanted far down 1,000 pages: the interpolated search finds their page in a few calls', {}, 100_000, 30_000, 30_040, 6],
		['a server without pagination.total: the galloping search still finds the range', { sendTotal: false }, 8_000, 1_000, 2_000, 1 + 2 * log2(80) + 11],
		['the oldest requests of a list that ends on a page boundary: its end is not read past', {}, 1_000, 0, 300, 10],
	])('%s', async (_name, options, size, from, to, maxCalls) => {
		const list = new ModelList(options);
		const wanted = list.addMany(size, T0).slice(from, to);
		expect(ids(await lookup(list, want(wanted)))).toEqual(ids(wanted));
		expect(list.calls).toBeLessThanOrEqual(maxCalls);
		expect(list.readPages).not.toContain(Math.ceil(size / 100) + 1);
	});

	test(`a request created up to ${HINT_SLACK_MS / 1000} s before its session's updated_at is still found`, async () => {
		const list = new ModelList();
		const all = list.addMany(3_000, T0);
		const wanted = all.slice(500, 800).map((request) => ({ id: request.id, at: Date.parse(request.created_at) + HINT_SLACK_MS - 1 }));
		const found = await findInRequestList(wanted, list.reader());
		expect(found.length).toBe(300);
	});

	test('a budget spent before the first call: nothing read, nothing found', async () => {
		const list = new ModelList();
		const all = list.addMany(1_000, T0);
		expect(await findInRequestList(want(all.slice(0, 50)), list.reader(() => 0))).toEqual([]);
		expect(list.calls).toBe(0);
	});
});

describe('attachReserve: calls a poll keeps for booking requests', () => {
	test('a few: one Get each', () => {
		expect(attachReserve(0, 100, 30)).toBe(0);
		expect(attachReserve(LOOKUP_MIN_WANTED - 1, 100, 30)).toBe(LOOKUP_MIN_WANTED - 1);
	});

	test('every session needs one: the budget is shared so pages of sessions and of requests match', () => {
		// 26 calls after the search: ~11.6 session pages (1,156 sessions) and ~14.4 request pages (80 each)
		expect(attachReserve(100, 100, 30)).toBe(19);
	});

	test('one in ten: a few pages', () => {
		expect(attachReserve(10, 100, 30)).toBe(7);
	});

	test('never more than one call per wanted request', () => {
		expect(attachReserve(5, 5, 300)).toBe(5);
	});
});

