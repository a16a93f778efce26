/**
 * Issue 8, server answers that break the contract: through the action node, each one is either handled
 * (the exact set comes out; see docs/troubleshooting.md) or fails with a clear error.
 * Never an endless loop, never a partial or silently wrong list.
 */
import type { INodeParameters } from 'n8n-workflow';

import { createHarness } from '../../harness/inProcessN8n';
import type { Harness } from '../../harness/inProcessN8n';
import { withSandbox } from '../support/sandboxSuite';
import type { MalformedKind, Sandbox } from '../../sandbox';
import { sortDefaultFirst, sortRequests, sortSessions } from '../../sandbox';
import { EXACT, idsOf, setDiff } from './helpers';
import { pacing429s, withoutOwn429s } from '../support/pacing429';
import type { Stub } from './stub';
import { contractPage, startStub } from './stub';

let sandbox: Sandbox;
let harness: Harness;

// 2 pages of each list (profiles: 50 per page) are enough to break page 2 and to cross a page boundary.
withSandbox({ sizes: { requests: 150, sessions: 150, forms: 3, profiles: 60 } }, (started, ready) => {
	sandbox = started;
	harness = ready;
});

const returnAll = (resource: string, extra: INodeParameters = {}): INodeParameters => ({
	resource,
	operation: 'getAll',
	returnAll: true,
	simplify: false,
	...extra,
});

// The calls the API served: its own 429s left out (a stall of this busy process can bring a paced call
// in short of the last one's second); pacing429s judges beside it whether the pacing caused any.
const served = () => withoutOwn429s(sandbox.log);

const RESOURCES = {
	requests: { resource: 'bookingRequest', path: '/api/v1/requests', expected: () => sortRequests(sandbox.workspace().requests) },
	sessions: { resource: 'bookingSession', path: '/api/v1/abandoned-sessions', expected: () => sortSessions(sandbox.workspace().sessions) },
	profiles: { resource: 'businessProfile', path: '/api/v1/profiles', expected: () => sortDefaultFirst(sandbox.workspace().profiles) },
} as const;
type ResourceName = keyof typeof RESOURCES;
const ALL: ResourceName[] = ['requests', 'sessions', 'profiles'];

describe('answers that fail with a clear error (and nothing reaches the workflow)', () => {
	const FAILING: Array<[MalformedKind, RegExp, RegExp]> = [
		['html', /^The server answered 200 with an HTML page instead of the API's JSON$/, /points at a website, a proxy or a login page/],
		['truncated', /^The server answered 200 with a body that is not JSON instead of the API's JSON$/, /cut off on the way/],
		['noItems', /^The API's answer does not match the Booking Requests API contract: page \d of \S+ has no "items" list$/, /no partial or wrong data/],
		[
			'duplicateIds',
			/^The API's answer does not match the Booking Requests API contract: page \d of \S+ lists the id "[0-9a-f-]{36}" twice$/,
			/no partial or wrong data/,
		],
		[
			'errorBody200',
			/^The API's answer does not match the Booking Requests API contract: a 200 answer carried the error "internal_server_error"$/,
			/no partial or wrong data/,
		],
	];

	test.each(FAILING)('%s on page 1 of requests: a clear error after 1 call', async (kind, message, description) => {
		sandbox.setFaults({ malformed: kind });
		const result = await harness.runAction(returnAll('bookingRequest'));
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(message);
		expect(result.error?.description).toMatch(description);
		expect(served()).toHaveLength(1);
		expect(pacing429s(sandbox.log)).toEqual([]);
	});

	test.each(FAILING.filter(([kind]) => kind !== 'truncated' && kind !== 'errorBody200'))('%s on page 2 of sessions: the whole listing fails, no partial list', async (kind, message) => {
		sandbox.setFaults({ malformed: kind, malformedEvery: 2 });
		const result = await harness.runAction(returnAll('bookingSession'));
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(message);
		expect(served()).toHaveLength(2);
		expect(pacing429s(sandbox.log)).toEqual([]);
	});

	test('an HTML 502 page from a proxy is retried like any 5xx; the HTML page that follows fails clearly', async () => {
		sandbox.setFaults({ malformed: 'html' });
		await harness.runAction(returnAll('businessProfile')); // the 1st HTML answer is a 200, the 2nd a 502
		sandbox.clearLog();
		const result = await harness.runAction(returnAll('businessProfile'));
		// The API's own 429s left out: a stall of this busy process can bring the retry in short of the
		// limit (the server's 429, retried); whether the pacing caused one is pacing429s' judgement.
		expect(pacing429s(sandbox.log)).toEqual([]);
		expect(withoutOwn429s(sandbox.log).map((entry) => entry.status)).toEqual([502, 200]);
		expect(result.error?.message).toBe("The server answered 200 with an HTML page instead of the API's JSON");
	});
});

describe('answers that are handled: exactly the sandbox set', () => {
	const HANDLED: Array<[MalformedKind, ResourceName, number]> = [];
	// Calls: 2 pages of 100 (profiles: 50), the sessions' catch-up read of the top, and for a total that
	// is too high one empty page. (A missing total on the other lists: see the stub cases below.)
	for (const name of ALL) {
		const calls = name === 'sessions' ? 3 : 2;
		HANDLED.push(['wrongTotal', name, calls + 1], ['oversizedPage', name, calls], ['wrongTypes', name, calls]);
	}
	HANDLED.push(['missingTotal', 'requests', 2]);

	test.each(HANDLED)('%s on %s', async (kind, name, maxCalls) => {
		const { resource, path, expected } = RESOURCES[name];
		sandbox.setFaults({ malformed: kind });
		const result = await harness.runAction(returnAll(resource));
		expect(result.error).toBeUndefined();
		const want = expected();
		expect(setDiff(idsOf(result.items), want.map((item) => item.id))).toEqual(EXACT);
		// The records themselves, in API order: wrongTypes' epoch-ms created_at comes back as the ISO string.
		expect(result.items.map((item) => item.json)).toEqual(want);
		expect(served().length).toBeLessThanOrEqual(maxCalls);
		expect(pacing429s(sandbox.log)).toEqual([]);
		expect(sandbox.log.every((entry) => entry.path === path)).toBe(true);
	});

	test('wrongTypes + Created After: the requests after the date, not an empty or a full list', async () => {
		const all = sortRequests(sandbox.workspace().requests);
		const after = all[30].created_at;
		const expected = all.filter((request) => Date.parse(request.created_at) > Date.parse(after)).map((request) => request.id);
		expect(expected.length).toBeGreaterThanOrEqual(29);
		sandbox.setFaults({ malformed: 'wrongTypes' });
		const result = await harness.runAction(returnAll('bookingRequest', { filters: { createdAfter: after } }));
		expect(result.error).toBeUndefined();
		expect(idsOf(result.items)).toEqual(expected);
		expect(result.items.every((item) => typeof item.json.created_at === 'string')).toBe(true);
		expect(served()).toHaveLength(1);
		expect(pacing429s(sandbox.log)).toEqual([]);
	});

	test('wrongTypes + Limit: the first items, timestamps as ISO strings', async () => {
		sandbox.setFaults({ malformed: 'wrongTypes' });
		const result = await harness.runAction({ resource: 'bookingSession', operation: 'getAll', limit: 7 });
		expect(idsOf(result.items)).toEqual(sortSessions(sandbox.workspace().sessions).slice(0, 7).map((session) => session.id));
		for (const item of result.items) expect(item.json.created_at === null || typeof item.json.created_at === 'string').toBe(true);
	});
});

describe('breaks the sandbox cannot produce (a loopback stub server)', () => {
	let stub: Stub;
	const records = () => sortRequests(sandbox.workspace().requests) as unknown as Array<Record<string, unknown>>;
	const pages = () => Math.ceil(records().length / 100);
	const stubHarness = () => createHarness({ apiKey: sandbox.keys.second, baseUrl: stub.url });

	beforeAll(async () => {
		stub = await startStub({ records: [] });
	});
	afterAll(async () => await stub.close());
	beforeEach(() => {
		stub.log.length = 0;
		stub.list = { records: records() };
	});

	test('a server that ignores `page`: stopped with a clear error after the 2nd page, not followed for ever', async () => {
		stub.list.answer = (_page, perPage, all) => contractPage(1, perPage, all);
		const result = await stubHarness().runAction(returnAll('bookingRequest'));
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(/page 2 of \/api\/v1\/requests repeated only items of earlier pages; the server may ignore the "page" parameter/);
		expect(stub.log).toHaveLength(2);
	});

	test('… also with Created After older than every request (paging would otherwise only end at the date)', async () => {
		stub.list.answer = (_page, perPage, all) => contractPage(1, perPage, all);
		const result = await stubHarness().runAction(returnAll('bookingRequest', { filters: { createdAfter: '2000-01-01T00:00:00Z' } }));
		expect(result.error?.message).toMatch(/repeated only items of earlier pages/);
		expect(stub.log).toHaveLength(2);
	});

	test('`per_page` reported larger than the page really is: paging goes on until every id of `total` arrived', async () => {
		stub.list.answer = (page, perPage, all) => ({ ...contractPage(page, perPage, all), pagination: { page, per_page: 1000, total: all.length } });
		const result = await stubHarness().runAction(returnAll('bookingRequest'));
		expect(result.error).toBeUndefined();
		expect(setDiff(idsOf(result.items), records().map((r) => String(r.id)))).toEqual(EXACT);
		expect(stub.log).toHaveLength(pages());
	});

	test('`total` lower than what was received: paging goes on until a short page', async () => {
		stub.list.answer = (page, perPage, all) => ({ ...contractPage(page, perPage, all), pagination: { page, per_page: perPage, total: 10 } });
		const result = await stubHarness().runAction(returnAll('bookingRequest'));
		expect(setDiff(idsOf(result.items), records().map((r) => String(r.id)))).toEqual(EXACT);
		expect(stub.log).toHaveLength(pages());
	});

	test('`pagination` missing altogether: paging goes on until a short page', async () => {
		stub.list.answer = (page, perPage, all) => ({ items: contractPage(page, perPage, all).items });
		const result = await stubHarness().runAction(returnAll('bookingRequest'));
		expect(setDiff(idsOf(result.items), records().map((r) => String(r.id)))).toEqual(EXACT);
		expect(stub.log).toHaveLength(pages());
	});

	test.each([
		['epoch seconds', 1_790_000_000],
		['a date that does not parse', 'yesterday'],
		['an object', { $date: '2026-11-01' }],
		['a boolean', true],
	])('created_at as %s: a clear error naming the item and the field', async (_label, value) => {
		stub.list.answer = (page, perPage, all) => {
			const body = contractPage(page, perPage, all);
			body.items = body.items.map((item, index) => (index === 3 ? { ...item, created_at: value } : item));
			return body;
		};
		const result = await stubHarness().runAction(returnAll('bookingRequest'));
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(/page 1 of \/api\/v1\/requests: item "[0-9a-f-]{36}" has created_at = .+; the contract says an ISO 8601 timestamp$/);
		expect(stub.log).toHaveLength(1);
	});

	test('an item that is not an object, or has no id: a clear error', async () => {
		stub.list.answer = (page, perPage, all) => ({ ...contractPage(page, perPage, all), items: [...contractPage(page, perPage, all).items.slice(0, 5), 'x'] });
		const result = await stubHarness().runAction(returnAll('bookingRequest'));
		expect(result.error?.message).toMatch(/holds an item without a string "id"/);
	});
});
