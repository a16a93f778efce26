import { createHarness } from '../../../../harness/inProcessN8n';
import { everythingIn } from '../../../support/secrets';
import type { Sandbox } from '../../../../sandbox';
import { hashKey, startSandbox } from '../../../../sandbox';
import { API_PATHS } from '../../../../nodes/shared/constants';
import { setRetryRulesForTests } from '../../../../harness/limiterSettings';
import { apiRequest, retryAfterMs, backoffMs } from '../../../../nodes/shared/transport/request';
import { longestStallMs, pacing429s, withoutOwn429s } from '../../../support/pacing429';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ sizes: { requests: 30, sessions: 20 } });
});
afterAll(async () => await sandbox.close());
beforeEach(() => {
	sandbox.setFaults({});
	sandbox.clearLog();
});

function harnessFor(apiKey: string) {
	return createHarness({ apiKey, baseUrl: sandbox.url });
}

describe('apiRequest against the sandbox', () => {
	test('returns the parsed body and the server Date', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.clock.setOffsetMs(-3 * 86_400_000); // the server's clock, not this process's
		try {
			const before = sandbox.clock.now();
			const { body, serverDate } = await apiRequest<{ items: unknown[] }>(harness.context(), API_PATHS.forms, { qs: { per_page: 2 } });
			const after = sandbox.clock.now();
			expect(body.items).toHaveLength(2);
			// between the sandbox clock before the call and after it (the header has whole seconds)
			expect(serverDate as number).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
			expect(serverDate as number).toBeLessThanOrEqual(after);
		} finally {
			sandbox.clock.setOffsetMs(0);
		}
	});

	test('429: waits Retry-After and retries through the limiter until it succeeds', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ every429: 2 });
		const ctx = harness.context();
		for (let i = 0; i < 4; i++) await apiRequest(ctx, API_PATHS.forms);
		const injected = sandbox.log.filter((entry) => entry.fault === 'every429');
		expect(injected.length).toBeGreaterThanOrEqual(2);
		expect(sandbox.log.filter((entry) => entry.status === 200)).toHaveLength(4);
		// every retry after a 429 came at least Retry-After (1 s) later, at the server (less a stall of this process: pacing429.ts)
		for (const entry of injected) {
			const next = sandbox.log[sandbox.log.indexOf(entry) + 1];
			expect(next.at - entry.at).toBeGreaterThanOrEqual(1000 - longestStallMs());
		}
	});

	test.each([
		['without Retry-After (the contract does not say it can be missing): after 1 s', null, 1000],
		['with a long Retry-After (3 s): after it', 3, 3000],
	])('429 %s', async (_name, retryAfterS, waitMs) => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setChoices({ retryAfterS });
		sandbox.setFaults({ every429: 2 });
		try {
			const ctx = harness.context();
			await apiRequest(ctx, API_PATHS.forms);
			await apiRequest(ctx, API_PATHS.forms);
		} finally {
			sandbox.setChoices({ retryAfterS: 1 });
		}
		// The injected 429 and its retry; the API's own 429s left out (a stall of this busy process can
		// bring the second call in short of the first one's second); pacing429s judges whether the pacing caused any.
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
		const served = withoutOwn429s(sandbox.log);
		expect(served.map((entry) => [entry.status, entry.fault ?? null])).toEqual([
			[200, null],
			[429, 'every429'],
			[200, null],
		]);
		expect(served[2].at - served[1].at).toBeGreaterThanOrEqual(waitMs);
	});

	test('429 on every call: retried (slower and slower) until no request of the key was accepted for the stall time, then a clear error', async () => {
		// A fresh key: its first request is refused, so someone else must be using it (contention).
		const harness = harnessFor(sandbox.keys.second);
		sandbox.setFaults({ always: 429 });
		setRetryRulesForTests({ stallMs: 6000 });
		const ctx = harness.context();
		const warn = jest.spyOn(ctx.logger, 'warn');
		const started = Date.now();
		try {
			const error = (await apiRequest(ctx, API_PATHS.forms).catch((e: unknown) => e)) as Error & { description: string; httpCode: string };
			expect(error.message).toBe('Rate limit: no request with this API key was accepted for 6 s (429 rate_limited)');
			expect(error.httpCode).toBe('429');
			expect(error.description).toMatch(/Another client is using the same API key \(key id [0-9a-f]{16}\)/);
			expect(error.description).toContain(`${sandbox.log.length} attempts in this call`);
			expect(error.description).toContain("'Booking Requests (test)' credential");
			expect(everythingIn(error)).not.toContain(sandbox.keys.second);
		} finally {
			setRetryRulesForTests(undefined);
		}
		const ms = Date.now() - started;
		expect(ms).toBeGreaterThanOrEqual(6000);
		// It gives up at the stall time: retries at least a second apart fit 6 s only a few times (a busy
		// machine spaces them more, never less).
		expect(sandbox.log.length).toBeLessThanOrEqual(7);
		// Every retry waited at least the Retry-After second, and the contention widening spaced them more.
		const gaps = sandbox.log.slice(1).map((entry, i) => entry.at - sandbox.log[i].at);
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000 - longestStallMs());
		expect(Math.max(...gaps)).toBeGreaterThan(1500);
		// One warning for the key (per minute), naming its hash, never the key.
		expect(warn).toHaveBeenCalledTimes(1);
		expect(String(warn.mock.calls[0][0])).toMatch(/another client is using this API key \(key id [0-9a-f]{16}.*requests are slowed to share it; in n8n queue mode, the queue edition of this package \(n8n-nodes-booking-requests-queue\) shares the limit through Redis$/);
		expect(everythingIn(warn.mock.calls)).not.toContain(sandbox.keys.second.slice(4));
	});

	test("the execution's Stop ends a call that waits out 429s: no request after the stop", async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ always: 429 });
		const controller = new AbortController();
		const ctx = harness.context();
		Object.assign(ctx, { getExecutionCancelSignal: () => controller.signal });
		const pending = apiRequest(ctx, API_PATHS.forms).catch((e: unknown) => e);
		await new Promise((resolve) => setTimeout(resolve, 1500));
		controller.abort();
		// Without the Stop the call would retry until the 2-minute stall, past this test's time-out.
		const error = (await pending) as Error;
		expect(error.message).toBe('The execution was stopped');
		const sent = sandbox.log.length;
		await new Promise((resolve) => setTimeout(resolve, 2000));
		expect(sandbox.log).toHaveLength(sent);
	});

	test('500 then success: retried with backoff', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ every500: 2 });
		const ctx = harness.context();
		await apiRequest(ctx, API_PATHS.forms);
		await apiRequest(ctx, API_PATHS.forms);
		// The API's own 429s left out (a stall of this busy process can bring a paced call in short).
		expect(pacing429s(sandbox.log)).toEqual([]);
		expect(withoutOwn429s(sandbox.log).map((entry) => entry.status)).toEqual([200, 500, 200]);
	});

	test('500 on every call: a clear error after 5 attempts', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ always: 500 });
		const error = (await apiRequest(harness.context(), API_PATHS.forms).catch((e: unknown) => e)) as Error & { httpCode: string };
		expect(error.httpCode).toBe('500');
		// 5 attempts answered 500; the API's own 429s left out (a stall of this busy process can bring a
		// paced retry in short of the last one's second: retried apart, and counted among the attempts the
		// message reports); pacing429s judges whether the pacing caused any.
		expect(withoutOwn429s(sandbox.log)).toHaveLength(5);
		expect(error.message).toMatch(new RegExp(`failed with 500 internal_server_error after ${sandbox.log.length} attempt`));
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	});

	test('a dropped connection is retried', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ dropEvery: 2 });
		const ctx = harness.context();
		await apiRequest(ctx, API_PATHS.forms);
		const { body } = await apiRequest<{ items: unknown[] }>(ctx, API_PATHS.forms);
		expect(body.items.length).toBeGreaterThan(0);
		expect(sandbox.log.some((entry) => entry.fault === 'drop')).toBe(true);
	});

	test('401 with a revoked key: one request, a message that says what to do, and no key in it', async () => {
		const harness = harnessFor(sandbox.keys.revoked);
		const error = await apiRequest(harness.context(), API_PATHS.forms).catch((e: unknown) => e);
		expect((error as Error).message).toMatch(/API key was rejected \(401 unauthorized\)/);
		expect((error as { description: string }).description).toMatch(/revoked.*create a new key/s);
		// The credential is named by the name the user gave it.
		expect((error as { description: string }).description).toContain("Check the API key in the 'Booking Requests (test)' credential");
		expect(sandbox.log).toHaveLength(1);
		expect(everythingIn(error)).not.toContain(sandbox.keys.revoked);
		expect(everythingIn(error)).not.toContain(sandbox.keys.revoked.slice(4));
	});

	test('401 with a key of the wrong shape explains the expected shape', async () => {
		const badKey = `${sandbox.keys.demo}x`;
		const harness = harnessFor(badKey);
		const error = await apiRequest(harness.context(), API_PATHS.forms).catch((e: unknown) => e);
		expect((error as { description: string }).description).toMatch(/4-character prefix ending in '_' followed by 32 hexadecimal/);
		expect(everythingIn(error)).not.toContain(badKey);
	});

	test('404 on Get request names the id and the workspace', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		const otherId = sandbox.workspace(sandbox.keys.other).requests[0].id;
		const error = await apiRequest(harness.context(), `${API_PATHS.requests}/${otherId}`, {
			resourceLabel: `booking request ${otherId}`,
		}).catch((e: unknown) => e);
		expect((error as Error).message).toBe(`Not found: booking request ${otherId} does not exist in this workspace`);
		expect((error as { httpCode: string }).httpCode).toBe('404');
	});

	test('an HTML page instead of JSON is a clear error, not a crash', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ malformed: 'html' });
		const error = await apiRequest(harness.context(), API_PATHS.forms).catch((e: unknown) => e);
		expect((error as Error).message).toBe("The server answered 200 with an HTML page instead of the API's JSON");
	});

	test('a 200 with an error body is refused', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ malformed: 'errorBody200' });
		const error = await apiRequest(harness.context(), API_PATHS.forms).catch((e: unknown) => e);
		expect((error as Error).message).toMatch(/does not match the Booking Requests API contract/);
	});

	test('plain http:// to a remote host is refused before any request', async () => {
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: 'http://api.example.com' });
		const error = await apiRequest(harness.context(), API_PATHS.forms).catch((e: unknown) => e);
		expect((error as Error).message).toBe('Refusing to send the API key over plain http:// to a remote host');
		expect(sandbox.log).toHaveLength(0);
	});

	test('a Base URL with a trailing slash works; one with /api/v1 gives the 404 hint', async () => {
		const slash = createHarness({ apiKey: sandbox.keys.second, baseUrl: `${sandbox.url}/` });
		const { body } = await apiRequest<{ items: unknown[] }>(slash.context(), API_PATHS.forms);
		expect(body.items.length).toBeGreaterThan(0);
		const prefixed = createHarness({ apiKey: sandbox.keys.second, baseUrl: `${sandbox.url}/api/v1` });
		const error = await apiRequest(prefixed.context(), API_PATHS.forms).catch((e: unknown) => e);
		expect((error as { description: string }).description).toMatch(/must not include them/);
	});
});

describe('retry arithmetic', () => {
	test('Retry-After: seconds, HTTP date, missing, capped', () => {
		expect(retryAfterMs('1')).toBe(1000);
		expect(retryAfterMs('0')).toBe(0);
		expect(retryAfterMs(undefined)).toBe(1000);
		expect(retryAfterMs('soon')).toBe(1000);
		expect(retryAfterMs('3600')).toBe(30_000);
		const now = Date.parse('2026-11-22T10:00:00Z');
		expect(retryAfterMs('Sun, 22 Nov 2026 10:00:05 GMT', now)).toBe(5000);
	});

	test('backoff doubles and is capped', () => {
		expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffMs(attempt))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
	});
});
