import { createHarness } from '../../../../harness/inProcessN8n';
import { acceptedGaps } from '../../../../harness/sandboxGaps';
import type { Sandbox } from '../../../../sandbox';
import { hashKey, sortRequests, startSandbox } from '../../../../sandbox';
import { API_PATHS } from '../../../../nodes/shared/constants';
import { paginate } from '../../../../nodes/shared/transport/paginate';
import type { BookingRequest, BookingSession } from '../../../../nodes/shared/types';
import { pacing429s, withoutOwn429s } from '../../../support/pacing429';
import { printFigures } from '../../../support/figures';

let sandbox: Sandbox;
const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);

beforeAll(async () => {
	sandbox = await startSandbox({ sizes: { requests: 260, sessions: 320, profiles: 120 } });
});
afterAll(async () => await sandbox.close());
beforeEach(() => {
	sandbox.setFaults({});
	sandbox.clearLog();
});

const context = (apiKey = sandbox.keys.demo) => createHarness({ apiKey, baseUrl: sandbox.url }).context();

describe('paginate', () => {
	test('Return All of 260 requests: 3 calls of 100, exact set, no 429 the pacing caused', async () => {
		const started = Date.now();
		const result = await paginate<BookingRequest>(context(), API_PATHS.requests);
		const seconds = (Date.now() - started) / 1000;
		expect(ids(result.items)).toEqual(ids(sortRequests(sandbox.workspace().requests)));
		expect(result.calls).toBe(3);
		// The API's own 429s left out (a stall of this busy process can bring a paced call in short of the
		// last one's second); pacing429s judges whether the pacing caused any.
		expect(withoutOwn429s(sandbox.log).map((entry) => entry.query.per_page)).toEqual(['100', '100', '100']);
		const gaps = acceptedGaps(sandbox.log, hashKey(sandbox.keys.demo));
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
		// How close to the limit this is, is measured by the benchmark (bench/), not asserted here.
		printFigures(`pacing: 260 requests, ${result.calls} calls, ${seconds.toFixed(2)} s, gaps ${gaps.map((g) => g.toFixed(0)).join('/')} ms, 429s 0`);
	});

	test('a limit fetches only the pages needed, with a page size that fits', async () => {
		const fifty = await paginate<BookingRequest>(context(), API_PATHS.requests, { limit: 50 });
		expect(fifty.items).toHaveLength(50);
		expect(fifty.calls).toBe(1);
		sandbox.clearLog();
		const oneFifty = await paginate<BookingRequest>(context(), API_PATHS.requests, { limit: 150 });
		expect(ids(oneFifty.items)).toEqual(ids(sortRequests(sandbox.workspace().requests)).slice(0, 150));
		expect(oneFifty.calls).toBe(2);
	});

	test("profiles: the server's per_page (50) is trusted, the last page is not followed by an empty one", async () => {
		const result = await paginate(context(), API_PATHS.profiles);
		const profiles = sandbox.workspace().profiles;
		expect(result.items).toHaveLength(120);
		expect(new Set(ids(result.items))).toEqual(new Set(ids(profiles)));
		// 120 profiles at the sandbox's 50 per page: 3 calls, and no 4th empty page
		expect(result.calls).toBe(3);
		expect(withoutOwn429s(sandbox.log).map((entry) => entry.query.page)).toEqual(['1', '2', '3']);
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	});

	test('stopAt ends the listing at the first item past the range', async () => {
		const requests = sortRequests(sandbox.workspace().requests);
		const boundary = Date.parse(requests[120].created_at);
		const result = await paginate<BookingRequest>(context(), API_PATHS.requests, {
			stopAt: (request) => Date.parse(request.created_at) <= boundary,
		});
		expect(result.items.every((request) => Date.parse(request.created_at) > boundary)).toBe(true);
		expect(result.items.length).toBe(requests.filter((request) => Date.parse(request.created_at) > boundary).length);
		expect(result.calls).toBe(2);
	});

	test('new submissions between pages shift items: deduplicated, none missing', async () => {
		const before = ids(sortRequests(sandbox.workspace().requests));
		const ctx = context();
		const pending = paginate<BookingRequest>(ctx, API_PATHS.requests);
		// let page 1 be read, then submit 5 new requests
		await new Promise((resolve) => setTimeout(resolve, 300));
		for (let i = 0; i < 5; i++) sandbox.addRequest();
		const result = await pending;
		const got = ids(result.items);
		expect(new Set(got).size).toBe(got.length);
		for (const id of before) expect(got).toContain(id);
	});

	test('sessions churning while paging: every session that existed at the start, exactly once', async () => {
		const before = ids(sandbox.workspace().sessions);
		sandbox.setFaults({ churnSessionsPerPage: 5 });
		const result = await paginate<BookingSession>(context(), API_PATHS.sessions, { movesToTopBy: (session) => session.updated_at });
		const got = ids(result.items);
		expect(new Set(got).size).toBe(got.length);
		expect(got.filter((id) => before.includes(id)).sort()).toEqual([...before].sort());
		// 4 pages + a catch-up pass of the top
		expect(result.calls).toBeGreaterThanOrEqual(5);
	});

	test('without the catch-up pass the same churn loses sessions (the test can fail)', async () => {
		const before = ids(sandbox.workspace().sessions);
		sandbox.setFaults({ churnSessionsPerPage: 5 });
		const result = await paginate<BookingSession>(context(), API_PATHS.sessions);
		const got = new Set(ids(result.items));
		expect(before.filter((id) => !got.has(id)).length).toBeGreaterThan(0);
	});

	test('a page without items is a clear error', async () => {
		sandbox.setFaults({ malformed: 'noItems' });
		await expect(paginate(context(), API_PATHS.forms)).rejects.toThrow(/has no "items" list/);
	});

	test('pagination numbers sent as strings are read as numbers', async () => {
		sandbox.setFaults({ malformed: 'wrongTypes' });
		const result = await paginate<BookingRequest>(context(), API_PATHS.requests);
		expect(result.calls).toBe(3);
		expect(ids(result.items)).toEqual(ids(sortRequests(sandbox.workspace().requests)));
	});

	test('a wrong or missing total: pages until a short page, nothing lost', async () => {
		sandbox.setFaults({ malformed: 'missingTotal' });
		const missing = await paginate<BookingRequest>(context(), API_PATHS.requests);
		expect(ids(missing.items)).toEqual(ids(sortRequests(sandbox.workspace().requests)));
		sandbox.setFaults({ malformed: 'wrongTotal' });
		const wrong = await paginate<BookingRequest>(context(), API_PATHS.requests);
		expect(new Set(ids(wrong.items)).size).toBe(wrong.items.length);
	});
});
