/**
 * Issue 8, fault matrix: Return All of requests, sessions and profiles through the action node (n8n's
 * real WorkflowExecute) against the sandbox with injected faults returns exactly the sandbox's set;
 * and a server that always fails ends in a clear error within a bounded time.
 */
import type { INodeParameters } from 'n8n-workflow';

import { createHarness } from '../../harness/inProcessN8n';
import type { ActionResult, Harness } from '../../harness/inProcessN8n';
import type { Sandbox } from '../../sandbox';
import { hashKey, sortDefaultFirst, sortRequests, startSandbox } from '../../sandbox';
import { setRetryRulesForTests } from '../../harness/limiterSettings';
import { EXACT, FAULT_MATRIX, SIZES, idsOf, setDiff } from './helpers';
import { longestStallMs, pacing429s, withoutOwn429s } from '../support/pacing429';
import { printFigures } from '../support/figures';

let sandbox: Sandbox;
let demo: Harness;
let second: Harness;

beforeAll(async () => {
	sandbox = await startSandbox({ sizes: SIZES });
	demo = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
	second = createHarness({ apiKey: sandbox.keys.second, baseUrl: sandbox.url });
});
afterAll(async () => await sandbox.close());
beforeEach(() => {
	sandbox.setFaults({});
	sandbox.clearLog();
});

const returnAll = (resource: string): INodeParameters => ({ resource, operation: 'getAll', returnAll: true, simplify: false });

describe('fault matrix: Return All returns exactly the sandbox set', () => {
	test.each(FAULT_MATRIX)('%s', async (label, faults) => {
		const ws = sandbox.workspace();
		const sessionsBefore = ws.sessions.map((session) => session.id);
		sandbox.setFaults(faults);
		const started = Date.now();

		// Two keys of the workspace, as two workflows would: requests then profiles on one, sessions on the other.
		let requests!: ActionResult;
		let profiles!: ActionResult;
		const [sessions] = await Promise.all([
			second.runAction(returnAll('bookingSession')),
			(async () => {
				requests = await demo.runAction(returnAll('bookingRequest'));
				profiles = await demo.runAction(returnAll('businessProfile'));
			})(),
		]);
		const seconds = (Date.now() - started) / 1000;

		for (const result of [requests, sessions, profiles]) expect(result.error).toBeUndefined();

		// Requests and profiles do not move: the exact records, in API order.
		const expectedRequests = sortRequests(ws.requests);
		expect(setDiff(idsOf(requests.items), expectedRequests.map((r) => r.id))).toEqual(EXACT);
		expect(requests.items.map((item) => item.json)).toEqual(expectedRequests);
		const expectedProfiles = sortDefaultFirst(ws.profiles);
		expect(setDiff(idsOf(profiles.items), expectedProfiles.map((p) => p.id))).toEqual(EXACT);
		expect(profiles.items.map((item) => item.json)).toEqual(expectedProfiles);
		// Sessions may move while paged (churn): the same set, each once.
		expect(ws.sessions.map((session) => session.id).sort()).toEqual([...sessionsBefore].sort());
		expect(setDiff(idsOf(sessions.items), sessionsBefore)).toEqual(EXACT);

		// The faults really happened, and the retries never broke the 1 request per second limit.
		const injected = (name: string) => sandbox.log.filter((entry) => entry.fault === name).length;
		if (faults.every429) expect(injected('every429')).toBeGreaterThan(0);
		if (faults.every500) expect(injected('every500')).toBeGreaterThan(0);
		if (faults.dropEvery) expect(injected('drop')).toBeGreaterThan(0);
		for (const key of [sandbox.keys.demo, sandbox.keys.second]) {
			expect(pacing429s(sandbox.log, hashKey(key))).toEqual([]);
		}
		const faultsSeen = sandbox.log.filter((entry) => entry.fault).length;
		printFigures(`[faults] ${label}: ${sandbox.log.length} calls (${faultsSeen} faulted), ${seconds.toFixed(1)} s`);
	});
});

describe('retries stay bounded', () => {
	test('a server that always answers 500: a clear error after 5 attempts', async () => {
		sandbox.setFaults({ always: 500 });
		const result = await demo.runAction(returnAll('bookingRequest'));
		expect(result.items).toEqual([]);
		expect(result.error?.description).toMatch(/did not recover from within the retries/);
		// The bound: 5 attempts (backoff 0.5 + 1 + 2 + 4 s plus the pacing, about 12 s on a quiet machine).
		// The API's own 429s left out (a stall of this busy process can bring a paced retry in short of the
		// last one's second: the server's 429, retried after Retry-After, and counted among the attempts the
		// message reports); pacing429s judges whether the pacing caused any.
		expect(withoutOwn429s(sandbox.log)).toHaveLength(5);
		expect(result.error?.message).toBe(`The Booking Requests API failed with 500 internal_server_error after ${sandbox.log.length} attempt(s)`);
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	});

	test('a server that always answers 429: retried, slower and slower, until no request was accepted for the stall time (2 min; 5 s here), then a clear error that names the shared-key cause', async () => {
		sandbox.setFaults({ always: 429 });
		setRetryRulesForTests({ stallMs: 5000 });
		const started = Date.now();
		const result = await demo.runAction(returnAll('bookingSession')).finally(() => setRetryRulesForTests(undefined));
		const ms = Date.now() - started;
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe('Rate limit: no request with this API key was accepted for 5 s (429 rate_limited)');
		expect(result.error?.description).toMatch(/Another client is using the same API key/);
		expect(sandbox.log.length).toBeGreaterThanOrEqual(2);
		// every retry waited the Retry-After second (at the server: less any stall of this process, which
		// stamps one arrival late and the next gap short, as pacing429s allows)
		for (let i = 1; i < sandbox.log.length; i++) expect(sandbox.log[i].at - sandbox.log[i - 1].at).toBeGreaterThanOrEqual(1000 - longestStallMs());
		expect(ms).toBeGreaterThanOrEqual(5000);
		// It gives up at the stall time: retries at least a second apart (slower and slower) fit 5 s only
		// a few times (a busy machine spaces them more, never less).
		expect(sandbox.log.length).toBeLessThanOrEqual(6);
	});

	test('a server that drops every connection: a clear network error after 5 attempts', async () => {
		sandbox.setFaults({ dropEvery: 1 });
		const result = await demo.runAction(returnAll('businessProfile'));
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(`Could not reach the Booking Requests API at ${sandbox.url}`);
		// The bound: 5 attempts (backoff 0.5 + 1 + 2 + 4 s plus the pacing, about 12 s on a quiet machine).
		// The API's own 429s left out (a stall of this busy process can bring a paced retry in short of the
		// last one's second: the server's 429, retried after Retry-After, and counted among the times the
		// description reports); pacing429s judges whether the pacing caused any.
		expect(withoutOwn429s(sandbox.log)).toHaveLength(5);
		expect(result.error?.description).toMatch(new RegExp(`^Network error ECONNRESET; tried ${sandbox.log.length} time\\(s\\) with backoff`));
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	});

	test('a failure on page 2 of 3 fails the whole listing: no partial list reaches the workflow', async () => {
		// Page 1 is answered, then the server fails for good.
		setRetryRulesForTests({ stallMs: 5000 });
		const pending = demo.runAction(returnAll('bookingRequest'));
		await new Promise<void>((resolve) => {
			const wait = setInterval(() => {
				const served = withoutOwn429s(sandbox.log);
				if (served.length >= 1 && served[0].status === 200) {
					clearInterval(wait);
					resolve();
				}
			}, 10);
		});
		sandbox.setFaults({ always: 429 });
		const result = await pending.finally(() => setRetryRulesForTests(undefined));
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe('Rate limit: no request with this API key was accepted for 5 s (429 rate_limited)');
		expect(sandbox.log.filter((entry) => entry.status === 200)).toHaveLength(1);
	});
});
