import { createHarness } from '../../../support/inProcessN8n';
import { everythingIn } from '../../../support/secrets';
import type { Sandbox } from '../../../sandbox';
import { startSandbox } from '../../../sandbox';
import { API_PATHS } from '../../../../nodes/shared/constants';
import { apiRequest, retryAfterMs, backoffMs } from '../../../../nodes/shared/transport/request';

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
		const { body, serverDate } = await apiRequest<{ items: unknown[] }>(harness.context(), API_PATHS.forms, { qs: { per_page: 2 } });
		expect(body.items).toHaveLength(2);
		expect(Math.abs((serverDate as number) - Date.now())).toBeLessThan(5000);
	});

	test('429: waits Retry-After and retries through the limiter until it succeeds', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ every429: 2 });
		const ctx = harness.context();
		for (let i = 0; i < 4; i++) await apiRequest(ctx, API_PATHS.forms);
		const injected = sandbox.log.filter((entry) => entry.fault === 'every429');
		expect(injected.length).toBeGreaterThanOrEqual(2);
		expect(sandbox.log.filter((entry) => entry.status === 200)).toHaveLength(4);
		// every retry after a 429 came at least Retry-After (1 s) later
		for (const entry of injected) {
			const next = sandbox.log[sandbox.log.indexOf(entry) + 1];
			expect(next.at - entry.at).toBeGreaterThanOrEqual(1000);
		}
	});

	test('429 on every call: a clear error after bounded retries that names the shared-key cause', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ always: 429 });
		const started = Date.now();
		const error = await apiRequest(harness.context(), API_PATHS.forms).catch((e: unknown) => e);
		expect((error as Error).message).toMatch(/Rate limit still exceeded after 6 attempts/);
		expect((error as { description: string }).description).toMatch(/same API key/);
		expect(sandbox.log).toHaveLength(6);
		expect(Date.now() - started).toBeLessThan(15_000);
	});

	test('500 then success: retried with backoff', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ every500: 2 });
		const ctx = harness.context();
		await apiRequest(ctx, API_PATHS.forms);
		await apiRequest(ctx, API_PATHS.forms);
		expect(sandbox.log.map((entry) => entry.status)).toEqual([200, 500, 200]);
	});

	test('500 on every call: a clear error after 5 attempts, bounded in time', async () => {
		const harness = harnessFor(sandbox.keys.demo);
		sandbox.setFaults({ always: 500 });
		const started = Date.now();
		const error = (await apiRequest(harness.context(), API_PATHS.forms).catch((e: unknown) => e)) as Error & { httpCode: string };
		expect(error.message).toMatch(/failed with 500 internal_server_error after 5 attempt/);
		expect(error.httpCode).toBe('500');
		expect(sandbox.log).toHaveLength(5);
		expect(Date.now() - started).toBeLessThan(20_000);
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
		expect([1, 2, 3, 4, 5, 6].map(backoffMs)).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
	});
});
