/**
 * The shared limit when Redis is not there: a clear n8n error that names the Redis URL (never its
 * password), within a bounded time, and never a request sent without the limit. Redis stopped in
 * the middle of a run: the error, nothing lost or duplicated in what was returned before, no burst;
 * and once Redis is back the same process works again.
 */
import { createServer, type Server, type Socket } from 'node:net';

import { NodeOperationError } from 'n8n-workflow';

import { createHarness } from '../../../harness/inProcessN8n';
import { acceptedEntries } from '../../../harness/sandboxGaps';
import type { Sandbox } from '../../../sandbox';
import { hashKey, startSandbox } from '../../../sandbox';
import { apiRequest } from '../../../nodes/shared/transport/request';
import {
	SHARED_LIMIT_DEFAULTS,
	closeSharedLimits,
	configureSharedLimits,
	openSharedLimitConnections,
} from '../../../queue/limiter/connection';
import { startChild, type Child } from '../../../harness/sharedLimit/children';
import { assertDistBuilt, formIds } from '../../../harness/sharedLimit/figures';
import { freePort, startRedisServer, type RedisServer } from '../../../harness/services/redisServer';
import { withQueueEdition } from '../../support/editions';
import { pacing429s, withoutOwn429s } from '../../support/pacing429';

jest.setTimeout(120_000);

const FORMS = 300; // 3 pages per Return All
const PASSWORD = 'S3cr3t-Redis-Passw0rd';

let sandbox: Sandbox;
const children: Child[] = [];
const servers: RedisServer[] = [];

beforeAll(async () => {
	sandbox = await startSandbox({ sizes: { forms: FORMS, requests: 5, sessions: 5 } });
});

afterAll(async () => {
	for (const child of children) child.kill();
	await closeSharedLimits();
	configureSharedLimits({ ...SHARED_LIMIT_DEFAULTS });
	for (const server of servers) await server.stop();
	await sandbox?.close();
});

beforeEach(() => sandbox.clearLog());

/** One API call in a real n8n context with the given Redis URL; returns the error and how long it took. */
async function callWith(redisUrl: string): Promise<{ error: (Error & { description?: string }) | undefined; ms: number }> {
	const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url, shareRateLimit: true, redisUrl });
	const started = Date.now();
	try {
		await apiRequest(harness.context(), '/api/v1/forms', { qs: { per_page: 1 } });
		return { error: undefined, ms: Date.now() - started };
	} catch (error) {
		return { error: error as Error & { description?: string }, ms: Date.now() - started };
	}
}

function expectNoSecret(error: Error & { description?: string }) {
	expect(`${error.message} ${error.description ?? ''}`).not.toContain(PASSWORD);
	expect(`${error.message} ${error.description ?? ''}`).not.toContain(encodeURIComponent(PASSWORD));
}


// The Redis-shared limiter is the queue edition's (queue/edition.ts).
withQueueEdition();

describe('Redis unreachable: a clear error, nothing sent', () => {
	test('nothing listens at the Redis URL: NodeOperationError naming the URL without its password, at once', async () => {
		const port = await freePort();
		const { error } = await callWith(`redis://:${PASSWORD}@127.0.0.1:${port}/0`);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message).toBe(`Shared rate limit: cannot connect to Redis at redis://:***@127.0.0.1:${port}/0`);
		expect(error?.description).toContain('ECONNREFUSED');
		expect(error?.description).toContain('Shared Rate Limit: Redis URL');
		expectNoSecret(error!);
		// at once: refused, not waited out (that error says "no answer within")
		expect(error?.description).not.toContain('no answer within');
		expect(sandbox.log).toHaveLength(0);
	});

	test('a server that accepts and never answers: the error after the connect timeout, not a hang', async () => {
		const sockets: Socket[] = [];
		const blackhole: Server = createServer((socket) => sockets.push(socket));
		await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', () => resolve()));
		const { port } = blackhole.address() as { port: number };
		configureSharedLimits({ connectTimeoutMs: 1000 });
		try {
			const { error, ms } = await callWith(`redis://user:${PASSWORD}@127.0.0.1:${port}`);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error?.message).toBe(`Shared rate limit: cannot connect to Redis at redis://user:***@127.0.0.1:${port}`);
			expect(error?.description).toContain('no answer within 1 s');
			expectNoSecret(error!);
			expect(ms).toBeGreaterThanOrEqual(1000);
			expect(sandbox.log).toHaveLength(0);
		} finally {
			configureSharedLimits({ connectTimeoutMs: SHARED_LIMIT_DEFAULTS.connectTimeoutMs });
			for (const socket of sockets) socket.destroy();
			blackhole.close();
		}
	});

	test("a wrong password: Redis' own reason, the URL without the password", async () => {
		const redis = await startRedisServer(['--requirepass', 'the-right-one']);
		servers.push(redis);
		const { error } = await callWith(`redis://:${PASSWORD}@127.0.0.1:${redis.port}`);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error?.message).toBe(`Shared rate limit: cannot connect to Redis at redis://:***@127.0.0.1:${redis.port}`);
		expect(error?.description).toMatch(/WRONGPASS|NOAUTH/);
		expectNoSecret(error!);
		// Redis' answer, not the connect timeout
		expect(error?.description).not.toContain('no answer within');
		expect(sandbox.log).toHaveLength(0);
	});

	test('not a redis:// URL: the error says why and does not echo the text (it may hold a password)', async () => {
		for (const bad of [`http://:${PASSWORD}@127.0.0.1:6379`, `not a url ${PASSWORD}`]) {
			const { error } = await callWith(bad);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error?.message).toMatch(/^The Shared Rate Limit Redis URL (uses the unsupported scheme "http:"|is not a valid URL)$/);
			expect(error?.description).toContain('redis://');
			expectNoSecret(error!);
		}
		expect(sandbox.log).toHaveLength(0);
		expect(openSharedLimitConnections()).toEqual([]);
	});
});

describe('Redis lost in the middle of a run', () => {
	test('the clear error; the runs before are complete, nothing repeated, no burst; after Redis is back the same process works', async () => {
		assertDistBuilt();
		const redis = await startRedisServer();
		servers.push(redis);
		const keyHash = hashKey(sandbox.keys.demo);
		const child = startChild({
			baseUrl: sandbox.url,
			apiKey: sandbox.keys.demo,
			redisUrl: redis.url,
			impl: 'dist',
			runs: 3,
			pauseBetweenRuns: true,
			continueOnError: true,
		});
		children.push(child);

		// Run 1 complete.
		await child.waitFor((event) => event.event === 'paused' && event.run === 1);
		// Run 2: stop Redis once its first page has reached the API. That page's answer is held back, so
		// the next page waits for it and Redis is gone before then, however late this test gets there.
		sandbox.setFaults({ latencyMs: [5000, 5000] });
		child.send('continue');
		const deadline = Date.now() + 30_000;
		while (acceptedEntries(sandbox.log, keyHash).length < 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
		await redis.stop();
		sandbox.setFaults({});
		const stoppedAt = Date.now();
		const failed = await child.waitFor((event) => event.event === 'run' && event.run === 2);
		const sentUntilError = sandbox.log.filter((entry) => entry.keyHash === keyHash).length;
		// Nothing more is sent while Redis is away.
		await new Promise((resolve) => setTimeout(resolve, 2000));
		expect(sandbox.log.filter((entry) => entry.keyHash === keyHash)).toHaveLength(sentUntilError);

		const [first] = child.runs();
		expect(first.ok).toBe(true);
		expect(first.ids).toHaveLength(FORMS);
		expect(new Set(first.ids)).toEqual(formIds(sandbox));

		expect(failed.ok).toBe(false);
		expect((failed.error as { name: string }).name).toBe('NodeOperationError');
		expect((failed.error as { message: string }).message).toMatch(
			new RegExp(`^Shared rate limit: (lost the connection to|cannot connect to) Redis at ${redis.url.replace(/[.]/g, '\\.')}$`),
		);

		// What reached the API: run 1's three pages and run 2's first, each once; nothing after the stop
		// but at most the one request already under way. The API's own 429s left out (a stall of this busy
		// process, where the sandbox runs, can bring a paced call in short of the last one's second);
		// pacing429s below judges whether the pacing caused any.
		const pages = withoutOwn429s(sandbox.log)
			.filter((entry) => entry.keyHash === keyHash)
			.map((entry) => entry.query.page);
		expect(pages.slice(0, 4)).toEqual(['1', '2', '3', '1']);
		expect(pages.length).toBeLessThanOrEqual(5);
		expect(sandbox.log.filter((entry) => entry.keyHash === keyHash && entry.at > stoppedAt + 50).length).toBeLessThanOrEqual(1);
		expect(pacing429s(sandbox.log, keyHash)).toEqual([]);

		// Redis is back (empty: nothing was persisted): the next run of the same process works.
		await redis.restart();
		child.send('continue');
		const third = await child.waitFor((event) => event.event === 'run' && event.run === 3);
		expect(third.error).toBeUndefined();
		expect(third.ok).toBe(true);
		expect(new Set(third.ids as string[])).toEqual(formIds(sandbox));
		await child.waitFor((event) => event.event === 'done');
	});
});
