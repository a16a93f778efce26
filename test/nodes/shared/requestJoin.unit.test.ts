/**
 * joinRequests: the request of each wanted id from pages of the request list where they bring more
 * than one each, by Get request for the rest (404: null). A model list (newest first by created_at,
 * 100 per page) counts the list reads and the Gets; nothing here waits.
 */
import { joinRequests, type WantedRequest } from '../../../nodes/shared/requestJoin';
import { HINT_SLACK_MS, LOOKUP_MIN_WANTED } from '../../../nodes/shared/requestLookup';
import type { BookingRequest } from '../../../nodes/shared/types';
import { ModelList, MODEL_PER_PAGE } from '../../support/requestListModel';

const T0 = Date.parse('2026-11-01T00:00:00.000Z');

/** Wanted as a completed session names its request: the hint is the request's created_at (one commit). */
const want = (requests: BookingRequest[], shiftMs = 0): WantedRequest[] => requests.map((request) => ({ id: request.id, at: Date.parse(request.created_at) + shiftMs }));

/** Pages of the list as it is now from the page holding the newest of `requests` to the one holding the oldest. */
function pagesSpanned(list: ModelList, requests: BookingRequest[]): number {
	const ids = new Set(requests.map((request) => request.id));
	const positions = list
		.newestFirst()
		.map((request, index) => (ids.has(request.id) ? index : -1))
		.filter((index) => index >= 0);
	return Math.floor(Math.max(...positions) / MODEL_PER_PAGE) - Math.floor(Math.min(...positions) / MODEL_PER_PAGE) + 1;
}

/** The join is right: every wanted id maps to the list's request as Get request gives it now, or null. */
async function expectRight(list: ModelList, wanted: WantedRequest[], joined: Map<string, BookingRequest | null>): Promise<void> {
	const truth = new Map(list.requests.map((request) => [request.id, request]));
	expect([...joined.keys()].sort()).toEqual([...new Set(wanted.map((entry) => entry.id))].sort());
	for (const [id, request] of joined) expect(request).toEqual(truth.get(id) ?? null);
}

/** joinRequests on the model list, checked to be right. */
async function join(list: ModelList, wanted: WantedRequest[], options: { oldestFirst?: boolean } = {}) {
	const joined = await joinRequests(wanted, list.reader(), async (id) => await list.get(id), options);
	await expectRight(list, wanted, joined);
	return joined;
}

describe('joinRequests from the top (Get Many sessions)', () => {
	test(`fewer than ${LOOKUP_MIN_WANTED} with a hint: one Get each, no list read`, async () => {
		const list = new ModelList();
		const all = list.addMany(300, T0);
		const wanted = [...want(all.slice(-2)), { id: all[5].id, at: null }, { id: all[6].id, at: null }];
		await join(list, wanted);
		expect({ reads: list.calls, gets: list.gets }).toEqual({ reads: 0, gets: 4 });
	});

	test('ten completed sessions among the newest requests (a Limit of 10): one list read, no Get', async () => {
		const list = new ModelList();
		const all = list.addMany(5_000, T0);
		const wanted = want(all.filter((_, i) => i % 7 === 0).slice(-10));
		await join(list, wanted);
		expect({ reads: list.calls, gets: list.gets }).toEqual({ reads: 1, gets: 0 });
	});

	test('a month of completions (3 of every 4 requests came through a session): exactly the pages that span them', async () => {
		const list = new ModelList();
		list.addMany(2_000, T0 - 40 * 86_400_000); // last month: not wanted
		const month = list.addMany(4_000, T0);
		const sessionsRead = month.slice(1_000); // the sessions read reach back to here
		const completed = sessionsRead.filter((_, i) => i % 4 !== 1);
		const wanted = want(completed).reverse(); // the session list is newest first
		await join(list, wanted);
		expect(list.gets).toBe(0);
		expect(list.calls).toBe(pagesSpanned(list, completed));
		expect(list.readPages).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
	});

	test('hints up to the slack after or before the request: still found on the pages read', async () => {
		for (const shift of [HINT_SLACK_MS - 1, -(HINT_SLACK_MS - 1)]) {
			const list = new ModelList();
			const all = list.addMany(3_000, T0);
			const completed = all.slice(1_000);
			const wanted = want(completed, shift).reverse();
			await join(list, wanted);
			expect(list.gets).toBe(0);
			expect(list.calls).toBeLessThanOrEqual(pagesSpanned(list, completed) + 1);
		}
	});

	test('a deleted request (404) gives null by its Get; the others come from the pages', async () => {
		const list = new ModelList();
		const all = list.addMany(1_000, T0);
		const wanted = want(all.slice(400)).reverse();
		list.remove(all[700].id);
		list.remove(all[400].id); // the oldest wanted one
		const joined = await join(list, wanted);
		expect(joined.get(all[700].id)).toBeNull();
		expect(joined.get(all[400].id)).toBeNull();
		expect(list.gets).toBe(2);
		expect(list.calls).toBeLessThanOrEqual(pagesSpanned(list, all.slice(401)) + 1);
	});

	test('a session saved again after it completed (its hint is later than its request): found by Get request', async () => {
		const list = new ModelList();
		const all = list.addMany(2_000, T0);
		const wanted = want(all.slice(1_000)).reverse();
		wanted[500] = { ...wanted[500], at: T0 + 5_000_000 };
		wanted[600] = { ...wanted[600], at: T0 - 5_000_000 }; // and one whose hint is far too old
		await join(list, wanted);
		expect(list.gets).toBeLessThanOrEqual(2);
		expect(list.calls).toBeLessThanOrEqual(pagesSpanned(list, all.slice(1_000)) + 1);
	});

	test('new requests arriving between the calls (the list moves down): each found once, nothing missed, nothing wrong', async () => {
		let arriving = T0 + 10_000_000;
		const list = new ModelList({ beforeRead: (self) => self.addMany(7, (arriving += 10_000)) });
		const all = list.addMany(3_000, T0);
		const wanted = want(all.slice(500)).reverse();
		await join(list, wanted);
		// reading downward, a request pushed to the next page is read twice, never skipped
		expect(list.gets).toBe(0);
		expect(list.calls).toBeLessThanOrEqual(pagesSpanned(list, all.slice(500)) + 1);
	});

	test('a stretch of the list without wanted requests (a bulk import between the completions): jumped over', async () => {
		const list = new ModelList();
		const older = list.addMany(1_000, T0);
		list.addMany(5_000, T0 + 2_000_000); // imported: no session
		const newer = list.addMany(1_000, T0 + 8_000_000);
		const completed = [...older.slice(200), ...newer];
		const wanted = want(completed).reverse();
		await join(list, wanted);
		expect(list.gets).toBe(0);
		// 10 pages of the newer, the search across the 50 pages of the import, 8 (+1) of the older
		expect(list.calls).toBeLessThanOrEqual(10 + 9 + 8);
	});

	test('a few wanted far below the rest: left to Get request, not read through', async () => {
		const list = new ModelList();
		const all = list.addMany(20_000, T0);
		const completed = [...all.slice(1_000, 1_003), ...all.slice(-300)];
		const wanted = want(completed).reverse();
		await join(list, wanted);
		expect(list.gets).toBe(3);
		expect(list.calls).toBeLessThanOrEqual(4);
	});

	test('sparse wanted (one per page): never more list reads than Gets would cost', async () => {
		const list = new ModelList();
		const all = list.addMany(10_000, T0);
		const completed = all.filter((_, i) => i % 100 === 7);
		const wanted = want(completed).reverse();
		await join(list, wanted);
		expect(list.calls + list.gets).toBeLessThanOrEqual(completed.length + 3);
	});

	test('a server that ignores `page` (page 1 again and again): stops after one repeat, the rest by Get', async () => {
		const list = new ModelList({ ignorePage: true });
		const all = list.addMany(1_000, T0);
		const wanted = want(all.slice(500)).reverse();
		await join(list, wanted);
		expect(list.calls).toBe(2);
		expect(list.gets).toBe(400);
	});

	test('a server without pagination.total: the list end is the short page', async () => {
		const list = new ModelList({ sendTotal: false });
		const all = list.addMany(950, T0);
		const wanted = want(all).reverse();
		await join(list, wanted);
		expect({ reads: list.calls, gets: list.gets }).toEqual({ reads: 10, gets: 0 });
	});

	test('an id wanted twice (two sessions name one request) is read or asked for once', async () => {
		const list = new ModelList();
		const all = list.addMany(200, T0);
		const wanted = [...want([all[10], all[10], all[11]]), { id: 'r-gone', at: null }, { id: 'r-gone', at: null }];
		await join(list, wanted);
		expect(list.gets).toBe(3); // all[10] and all[11] (fewer than 3 with a hint: no list read) and r-gone, once each
	});
});

describe('joinRequests: either way of reading', () => {
	test('known pages are free, and a Get the budget cannot pay for ends the Gets: a prefix is served', async () => {
		const list = new ModelList();
		const all = list.addMany(1_000, T0);
		const wanted = [{ id: all[999].id, at: null }, { id: all[5].id, at: null }, { id: all[6].id, at: null }, { id: all[7].id, at: null }];
		let gets = 0;
		const joined = await joinRequests(
			wanted,
			{ ...list.reader(), known: [list.page(1)] },
			async (id) => (++gets > 2 ? undefined : await list.get(id)),
		);
		expect([...joined.keys()]).toEqual([all[999].id, all[5].id, all[6].id]);
		expect(list.calls).toBe(0);
	});

	test('generated lists, wanted sets and hints: every wanted id gets its request or null, both ways, never more calls than one Get each + 1', async () => {
		let seed = 20261127;
		const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
		let cases = 0;
		for (let round = 0; round < 120; round++) {
			const list = new ModelList();
			let at = T0;
			const all: BookingRequest[] = [];
			for (let i = 0; i < 200 + Math.floor(random() * 2_500); i++) {
				at += random() < 0.1 ? 0 : Math.floor(random() * (random() < 0.05 ? 3_600_000 : 60_000));
				all.push(list.add(at));
			}
			const density = random();
			const from = Math.floor(random() * all.length);
			const wanted: WantedRequest[] = all
				.slice(from)
				.filter(() => random() < density)
				.map((request) => ({ id: request.id, at: random() < 0.05 ? null : Date.parse(request.created_at) + (random() < 0.05 ? (random() - 0.5) * 7_200_000 : (random() - 0.5) * 2 * HINT_SLACK_MS) }))
				.reverse();
			for (const entry of wanted) if (random() < 0.02) list.remove(entry.id);
			for (const oldestFirst of [false, true]) {
				list.calls = 0;
				list.gets = 0;
				await join(list, wanted, { oldestFirst });
				if (!oldestFirst) expect(list.calls + list.gets).toBeLessThanOrEqual(wanted.length + 1);
				cases++;
			}
		}
		expect(cases).toBe(240);
	});
});
