/**
 * What Booking Session → Get Many costs under each sandbox choice that changes the pages: sessions
 * without `updated_at` listed first or last (the contract does not say), pages answered below the
 * size asked, ties in another order, the kind world. n8n-core's real execution against the sandbox over
 * HTTP, on a month of activity (600 sessions, 2 of them without `updated_at`).
 *
 * The expected counts are computed from the sandbox's own data and choices (its rows and the page size
 * it answers), never from the code under test: Return All costs the session pages + 1 (the check of the
 * top); with Include Booking Request the pages of both lists + 3 at most, the session list still its
 * pages + 1. For test time the sandbox runs with an 8 ms rate gap and the client paces to match (the
 * real 1 s limit is the bench's: bench/funnelRows.ts).
 */
import { playBookingActivity } from '../../../../../harness/bookingActivity';
import { createHarness, type Harness } from '../../../../../harness/inProcessN8n';
import { GAP_MS, setPacingGapForTests } from '../../../../../harness/limiterSettings';
import { hashKey, startSandbox, type ChoicesInput, type Sandbox } from '../../../../../sandbox';
import { pacing429s, withoutOwn429s } from '../../../../support/pacing429';

jest.setTimeout(120_000);

beforeAll(() => setPacingGapForTests(10));
afterAll(() => setPacingGapForTests(GAP_MS));

const SESSIONS = 600;
const NULL_SESSIONS = 2;

/** The settings whose pages differ (the others leave a still list's pages as they are). */
const SETTINGS: Array<[string, ChoicesInput | 'kind']> = [
	['the defaults (nulls first)', {}],
	['nulls last', { nulls: 'last' }],
	['nulls first, 50 a page answered for 100 asked', { maxPerPage: { sessions: 50, requests: 50 } }],
	['nulls first, ties reshuffled at every change', { ties: 'reshuffled' }],
	['the kind world', 'kind'],
];

interface World {
	sandbox: Sandbox;
	harness: Harness;
	sessionPages: number;
	requestPages: number;
}

async function world(choices: ChoicesInput | 'kind'): Promise<World> {
	const sandbox = await startSandbox({ sizes: { requests: 0, sessions: 0 }, minGapMs: 8, choices });
	playBookingActivity(sandbox, { sessions: SESSIONS });
	// two legacy rows: sessions without updated_at (written into the sandbox's live storage)
	const abandoned = sandbox.workspace().sessions.filter((session) => session.request_id === null);
	for (let i = 1; i <= NULL_SESSIONS; i++) abandoned[Math.floor((i * abandoned.length) / (NULL_SESSIONS + 1))].updated_at = null;
	const ws = sandbox.workspace();
	const pagesOf = (rows: number, max: number) => Math.ceil(rows / Math.min(100, max));
	return {
		sandbox,
		harness: createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url }),
		sessionPages: pagesOf(ws.sessions.length, sandbox.choices().maxPerPage.sessions),
		requestPages: pagesOf(ws.requests.length, sandbox.choices().maxPerPage.requests),
	};
}

// The calls the API served: its own 429s left out (a stall of this busy process can bring a paced call
// in short of the last one's 8 ms); noPacing429s judges whether the pacing caused any.
const served = (sandbox: Sandbox) => withoutOwn429s(sandbox.log);
const noPacing429s = (sandbox: Sandbox) => expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo), 8)).toEqual([]);
const count = (sandbox: Sandbox, test: (path: string) => boolean) => served(sandbox).filter((entry) => test(entry.path)).length;
const sessionCalls = (sandbox: Sandbox) => count(sandbox, (path) => path === '/api/v1/abandoned-sessions');

describe.each(SETTINGS)('Get Many sessions, Return All: %s', (_name, choices) => {
	let w: World;
	beforeAll(async () => {
		w = await world(choices);
	});
	afterAll(async () => await w.sandbox.close());
	beforeEach(() => w.sandbox.clearLog());

	test('every session once, at the session pages + 1', async () => {
		const result = await w.harness.runAction({ resource: 'bookingSession', operation: 'getAll', returnAll: true, simplify: false });
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.id).sort()).toEqual(w.sandbox.workspace().sessions.map((session) => session.id).sort());
		expect(served(w.sandbox)).toHaveLength(w.sessionPages + 1);
		noPacing429s(w.sandbox);
	});

	test('Status Completed: the completed sessions, at the session pages + 1', async () => {
		const result = await w.harness.runAction({ resource: 'bookingSession', operation: 'getAll', returnAll: true, filters: { status: 'completed' } });
		const completed = w.sandbox.workspace().sessions.filter((session) => session.request_id !== null);
		expect(result.items.map((item) => item.json.id).sort()).toEqual(completed.map((session) => session.id).sort());
		expect(served(w.sandbox)).toHaveLength(w.sessionPages + 1);
		noPacing429s(w.sandbox);
	});

	test('Include Booking Request: every completed session its request, at most the pages of both lists + 3', async () => {
		const result = await w.harness.runAction({ resource: 'bookingSession', operation: 'getAll', returnAll: true, simplify: false, options: { includeRequest: true } });
		expect(result.error).toBeUndefined();
		const requests = new Map(w.sandbox.workspace().requests.map((request) => [request.id, JSON.parse(JSON.stringify(request)) as unknown]));
		const attached = result.items.filter((item) => typeof item.json.request_id === 'string');
		expect(attached).toHaveLength(w.sandbox.workspace().sessions.filter((session) => session.request_id !== null).length);
		for (const { json } of attached) expect(json.request).toEqual(requests.get(json.request_id as string));
		expect(sessionCalls(w.sandbox)).toBe(w.sessionPages + 1);
		expect(count(w.sandbox, (path) => path === '/api/v1/requests')).toBeLessThanOrEqual(w.requestPages);
		expect(served(w.sandbox).length).toBeLessThanOrEqual(w.sessionPages + w.requestPages + 3);
		noPacing429s(w.sandbox);
	});

	test('Updated After: the sessions active after the date, wherever the ones without updated_at are listed', async () => {
		const dated = w.sandbox.ordered('sessions').filter((session) => session.updated_at !== null);
		const after = dated[150].updated_at as string;
		const expected = dated.filter((session) => (session.updated_at as string) > after).map((session) => session.id);
		const result = await w.harness.runAction({ resource: 'bookingSession', operation: 'getAll', returnAll: true, filters: { updatedAfter: after } });
		expect(result.items.map((item) => item.json.id).sort()).toEqual([...expected].sort());
		// the pages down to the first older session (below the ones without updated_at when they are listed first), + 1
		const perPage = Math.min(100, w.sandbox.choices().maxPerPage.sessions);
		const above = w.sandbox.ordered('sessions').findIndex((session) => session.updated_at !== null && session.updated_at <= after);
		expect(served(w.sandbox)).toHaveLength(Math.floor(above / perPage) + 1 + 1);
		noPacing429s(w.sandbox);
	});
});
