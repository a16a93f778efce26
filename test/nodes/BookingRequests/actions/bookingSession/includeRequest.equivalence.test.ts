/**
 * Include Booking Request through the join (pages of the request list, Get request for the rest)
 * gives item for item what one Get request per completed session gives, over generated workspaces:
 * n8n-core's real execution (harness/inProcessN8n.ts) against the sandbox over HTTP, while customers
 * complete sessions, book without a draft and new requests arrive during the read, with requests
 * deleted before it (404) and placeholder sessions among the completed ones.
 *
 * The reference is taken after each run, for the items the run returned: one Get request per
 * completed session (the node's own Get operation; 404: null), with the same Simplify. Nothing
 * changes a request in these worlds, so a Get after the run answers what a Get during it would.
 * For CI time the sandbox runs with an 8 ms rate gap and the client paces to match; the real 1 s
 * limit is the bench's (bench/README.md, "Include Booking Request").
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { createHarness, type Harness } from '../../../../../harness/inProcessN8n';
import { simplifyRequest } from '../../../../../nodes/shared/output/request';
import { GAP_MS, setPacingGapForTests } from '../../../../../harness/limiterSettings';
import type { BookingRequest as ApiRequest } from '../../../../../nodes/shared/types';
import { hashKey, startSandbox, sortSessions, type Sandbox, type Session } from '../../../../../sandbox';
import { pacing429s, withoutOwn429s } from '../../../../support/pacing429';
import { printFigures } from '../../../../support/figures';

jest.setTimeout(900_000);

const SANDBOX_GAP_MS = 8;
const CLIENT_GAP_MS = 10;
const GET_PATH = /^\/api\/v1\/requests\/[^/]+$/;

beforeAll(() => setPacingGapForTests(CLIENT_GAP_MS));
afterAll(() => setPacingGapForTests(GAP_MS));

interface Variant {
	name: string;
	parameters: (sandbox: Sandbox) => INodeParameters;
}

const VARIANTS: Variant[] = [
	{ name: 'Return All, Simplify on', parameters: () => ({ returnAll: true }) },
	{ name: 'Return All, Status Completed, Simplify off', parameters: () => ({ returnAll: true, filters: { status: 'completed' }, simplify: false }) },
	{ name: 'Limit 10, Status Completed', parameters: () => ({ limit: 10, filters: { status: 'completed' } }) },
	{ name: 'Limit 250', parameters: () => ({ limit: 250 }) },
	{
		name: 'Return All, Form filter',
		parameters: (sandbox) => ({ returnAll: true, filters: { formId: { __rl: true, mode: 'id', value: busiestForm(sandbox) } } }),
	},
	{
		name: 'Return All, Updated After the 150th session',
		parameters: (sandbox) => ({ returnAll: true, filters: { updatedAfter: sortSessions(sandbox.workspace().sessions)[150].updated_at as string } }),
	},
];

/** The form with the most sessions (a filter that keeps many). */
function busiestForm(sandbox: Sandbox): string {
	const counts = new Map<string, number>();
	for (const session of sandbox.workspace().sessions) counts.set(session.form_id, (counts.get(session.form_id) ?? 0) + 1);
	return [...counts].sort((a, b) => b[1] - a[1])[0][0];
}

/** What the world did during one run: the ids it created. */
interface Activity {
	completedDuring: Set<string>;
	requestsDuring: Set<string>;
	placeholdersDuring: Set<string>;
}

/**
 * Customers act while the node reads: after the 2nd answer some complete their drafts, one books
 * without a draft and direct requests arrive (all on top of both lists: the session paginator's
 * catch-up pass meets the completions); at the first read of the request list more complete and more
 * requests arrive (the request list moves down under the join).
 */
function actDuringRun(sandbox: Sandbox, seed: number): { stop: () => Activity } {
	const activity: Activity = { completedDuring: new Set(), requestsDuring: new Set(), placeholdersDuring: new Set() };
	const open = () => sortSessions(sandbox.workspace().sessions).filter((s) => s.request_id === null && s.created_at !== null);
	const complete = (n: number, offset: number) => {
		for (const session of open().slice(offset, offset + n)) {
			const { request } = sandbox.completeSession(session.id);
			activity.completedDuring.add(session.id);
			activity.requestsDuring.add(request.id);
		}
	};
	const direct = (n: number) => {
		for (let i = 0; i < n; i++) activity.requestsDuring.add(sandbox.addRequest().id);
	};
	let step = 0;
	const timer = setInterval(() => {
		const answered = sandbox.log.filter((entry) => entry.status !== 0);
		if (step === 0 && answered.length >= 2) {
			step = 1;
			sandbox.clock.advance(60_000);
			complete(4, seed % 5);
			const { session, request } = sandbox.bookWithoutDraft();
			activity.placeholdersDuring.add(session.id);
			activity.requestsDuring.add(request.id);
			direct(6);
		}
		if (step === 1 && answered.some((entry) => entry.path === '/api/v1/requests')) {
			step = 2;
			sandbox.clock.advance(60_000);
			complete(3, 0);
			direct(9);
		}
	}, 2);
	return {
		stop: () => {
			clearInterval(timer);
			return activity;
		},
	};
}

/**
 * One Get request per completed session, after the run: the node's Booking Request → Get in the same
 * n8n-core (Simplify off), one input item per id, Continue On Fail (a 404 is its "Not found" item:
 * null here); shaped by the package's simplifier when the run had Simplify on. Nothing changes a
 * request in these worlds, so each id is asked for once per world (`asked`).
 */
async function referenceRequests(harness: Harness, ids: string[], simplify: boolean, asked: Map<string, IDataObject | null>): Promise<Map<string, IDataObject | null>> {
	const missing = [...new Set(ids)].filter((id) => !asked.has(id));
	if (missing.length > 0) {
		const result = await harness.runAction(
			{ resource: 'bookingRequest', operation: 'get', requestId: '={{ $json.id }}', simplify: false },
			{ input: missing.map((id) => ({ id })), continueOnFail: true },
		);
		expect(result.items).toHaveLength(missing.length);
		result.items.forEach((item, index) => {
			const error = item.json.error;
			if (error !== undefined) expect(String(error)).toMatch(/^Not found: /);
			asked.set(missing[index], error === undefined ? item.json : null);
		});
	}
	return new Map(
		ids.map((id) => {
			const raw = asked.get(id) ?? null;
			return [id, raw && simplify ? simplifyRequest(raw as unknown as ApiRequest) : raw];
		}),
	);
}

/** minutes_to_book as the docs define it, from the sandbox's session and the reference request. */
function expectedMinutes(session: Session, request: IDataObject | null): number | null {
	const placeholder = session.step === 'confirm' && Object.keys(session.data).length === 0;
	if (!request || placeholder || session.created_at === null) return null;
	const minutes = (Date.parse(String(request.created_at)) - Date.parse(session.created_at)) / 60_000;
	return minutes < 0 ? null : Math.floor(minutes);
}

const totals = { cases: 0, items: 0, completed: 0, deleted: 0, placeholders: 0, completedDuring: 0, requestsCreatedDuring: 0, listReads: 0, gets: 0, oneGetEach: 0 };
const table: string[] = [];

/** A generated workspace: the seed's sessions and requests, more drafts completed at other times, requests deleted. */
async function world(seed: number): Promise<{ sandbox: Sandbox; deleted: string[] }> {
	const sandbox = await startSandbox({ seed, minGapMs: SANDBOX_GAP_MS, sizes: { requests: 250 + (seed % 4) * 100, sessions: 300 + (seed % 3) * 120, forms: 3 } });
	// customers today: drafts, some completed minutes later, some booked without a draft, direct requests
	for (let i = 0; i < 40 + (seed % 7) * 10; i++) {
		const session = sandbox.startSession();
		sandbox.clock.advance(((seed * 7 + i * 13) % 17) * 60_000);
		if (i % 3 === 0) sandbox.completeSession(session.id);
		if (i % 11 === 5) sandbox.bookWithoutDraft();
		if (i % 4 === 1) sandbox.addRequest();
	}
	// requests deleted since (their sessions still name them): a recent one and an older one
	const completed = sortSessions(sandbox.workspace().sessions).filter((s) => s.request_id !== null);
	const deleted = [completed[2 + (seed % 5)], completed[40 + (seed % 30)]].map((session) => sandbox.deleteRequest(session.request_id as string).id);
	return { sandbox, deleted };
}

describe.each([11, 23, 37, 52])('world %i', (seed) => {
	let sandbox: Sandbox;
	let deleted: string[];
	const asked = new Map<string, IDataObject | null>();
	beforeAll(async () => {
		({ sandbox, deleted } = await world(seed));
	});
	afterAll(async () => await sandbox.close());

	test.each(VARIANTS.map((variant) => [variant.name, variant] as const))('%s: item for item as one Get request per completed session', async (_name, variant) => {
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const parameters: INodeParameters = { resource: 'bookingSession', operation: 'getAll', ...variant.parameters(sandbox), options: { includeRequest: true } };
		const simplify = parameters.simplify !== false;
		sandbox.clearLog();
		const acting = actDuringRun(sandbox, seed);
		const result = await harness.runAction(parameters);
		const activity = acting.stop();
		expect(result.error).toBeUndefined();
		// The API's own 429s left out (a stall of this busy process can bring a paced call in short of the
		// last one's gap); pacing429s judges whether the pacing caused any.
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo), SANDBOX_GAP_MS)).toEqual([]);
		const calls = withoutOwn429s(sandbox.log).filter((entry) => entry.keyHash === hashKey(sandbox.keys.demo));
		const listReads = calls.filter((entry) => entry.path === '/api/v1/requests').length;
		const gets = calls.filter((entry) => GET_PATH.test(entry.path)).length;

		const sessions = new Map(sandbox.workspace().sessions.map((session) => [session.id, session]));
		const items = result.items.map((item) => item.json);
		const completedIds = items.flatMap((item) => (typeof item.request_id === 'string' ? [item.request_id] : []));
		const reference = await referenceRequests(harness, completedIds, simplify, asked);
		for (const item of items) {
			const requestId = typeof item.request_id === 'string' ? item.request_id : null;
			if (requestId === null) {
				expect(item).not.toHaveProperty('request');
				expect(item).not.toHaveProperty('minutes_to_book');
				continue;
			}
			const session = sessions.get(String(item.id))!;
			expect({ session: item.id, request: item.request }).toEqual({ session: item.id, request: reference.get(requestId) });
			expect({ session: item.id, minutes: item.minutes_to_book }).toEqual({ session: item.id, minutes: expectedMinutes(session, reference.get(requestId) ?? null) });
			if (deleted.includes(requestId)) totals.deleted++;
			if (session.step === 'confirm' && Object.keys(session.data).length === 0) totals.placeholders++;
			if (activity.completedDuring.has(session.id)) totals.completedDuring++;
			if (activity.requestsDuring.has(requestId)) totals.requestsCreatedDuring++;
		}
		const completed = completedIds.length;
		// never more calls for the requests than one Get each
		expect(listReads + gets).toBeLessThanOrEqual(completed + 1);
		totals.cases++;
		totals.items += items.length;
		totals.completed += completed;
		totals.listReads += listReads;
		totals.gets += gets;
		totals.oneGetEach += completed;
		table.push(`seed ${seed}, ${variant.name}: ${items.length} items, ${completed} completed; request list reads ${listReads} + Gets ${gets} (one Get each: ${completed})`);
	});
});

// declared last, so it runs after every case above (jest runs tests in declaration order)
test('the worlds reached every case the comparison is about', () => {
	printFigures(`[include request equivalence]\n${table.join('\n')}\ntotals: ${JSON.stringify(totals)}`);
	expect(totals.cases).toBe(4 * VARIANTS.length);
	expect(totals.deleted).toBeGreaterThan(0);
	expect(totals.placeholders).toBeGreaterThan(0);
	expect(totals.completedDuring).toBeGreaterThan(0);
	expect(totals.requestsCreatedDuring).toBeGreaterThan(0);
	// and the join did what it is for: far fewer calls than one Get each
	expect(totals.listReads + totals.gets).toBeLessThan(totals.oneGetEach / 5);
});
