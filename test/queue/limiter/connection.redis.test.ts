/**
 * The shared limit's connections and settings, in this process against a real redis-server: one
 * connection pair per Redis URL whatever the number of keys, closed when idle and reopened on demand;
 * without the credential's Redis URL nothing changes (the per-process limiter, no Redis); the
 * credential field itself; URLs shown without their password.
 */
import path from 'node:path';

import type { ILoadOptionsFunctions, INodeListSearchResult, INodeType } from 'n8n-workflow';

import { BookingRequestsApi } from '../../../credentials/BookingRequestsApi.credentials';
import { EDITION_CREDENTIAL_PROPERTIES as QUEUE_CREDENTIAL_FIELDS } from '../../../queue/credentialFields';
import { createHarness } from '../../../harness/inProcessN8n';
import type { Sandbox } from '../../../sandbox';
import { hashKey, startSandbox } from '../../../sandbox';
import { keyIdOf } from '../../../nodes/shared/transport/keyId';
import { limiterFor, limiterIds } from '../../../nodes/shared/transport/limiter/registry';
import {
	REDIS_CONNECTION_NAME,
	SHARED_LIMIT_DEFAULTS,
	closeSharedLimits,
	configureSharedLimits,
	openSharedLimitConnections,
} from '../../../queue/limiter/connection';
import { SHARED_LIMIT_ID_PREFIX, sharedLimiterIds } from '../../../queue/limiter/sharedLimiter';
import { parseRedisUrl } from '../../../nodes/shared/transport/limiter/shared/redisUrl';
import { apiRequest } from '../../../nodes/shared/transport/request';
import { DIST_NODE, assertDistBuilt } from '../../../harness/sharedLimit/figures';
import { startRedisServer, type RedisServer } from '../../../harness/services/redisServer';
import { QUEUE_DIST, withQueueEdition } from '../../support/editions';
import { pacing429s } from '../../support/pacing429';

const DIST_TRIGGER = path.resolve(DIST_NODE, '../../BookingRequestsTrigger/BookingRequestsTrigger.node.js');

jest.setTimeout(60_000);

let sandbox: Sandbox;
let redis: RedisServer;

beforeAll(async () => {
	redis = await startRedisServer();
	sandbox = await startSandbox({ sizes: { forms: 10, requests: 5, sessions: 5 } });
});

afterAll(async () => {
	await closeSharedLimits();
	configureSharedLimits({ ...SHARED_LIMIT_DEFAULTS });
	await sandbox?.close();
	await redis?.stop();
});

beforeEach(() => sandbox.clearLog());

/** Connections of this package that Redis currently has (CLIENT LIST, by connection name). */
async function ourConnections(): Promise<number> {
	const list = (await redis.client().call('CLIENT', 'LIST')) as string;
	return list.split('\n').filter((line) => line.includes(`name=${REDIS_CONNECTION_NAME}`)).length;
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
	const deadline = Date.now() + ms;
	while (Date.now() < deadline) {
		if (await check()) return true;
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
	return await check();
}


// The Redis-shared limiter is the queue edition's (queue/edition.ts).
withQueueEdition();

describe('shared limit connections', () => {
	test('one client + one subscriber per Redis URL for all keys; closed when idle; reopened by the next request', async () => {
		configureSharedLimits({ idleCloseMs: 800 });
		const demo = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url, shareRateLimit: true, redisUrl: redis.url });
		const second = createHarness({ apiKey: sandbox.keys.second, baseUrl: sandbox.url, shareRateLimit: true, redisUrl: redis.url });
		const call = async (harness: typeof demo) => await apiRequest(harness.context(), '/api/v1/forms', { qs: { per_page: 5 } });

		// Two keys, two requests each, at the same time: separate budgets, one connection pair.
		await Promise.all([call(demo), call(second), call(demo), call(second)]);
		expect(await ourConnections()).toBe(2);
		expect(openSharedLimitConnections()).toEqual([redis.url]);
		for (const key of [sandbox.keys.demo, sandbox.keys.second]) {
			expect(pacing429s(sandbox.log, hashKey(key))).toEqual([]);
		}
		// Limiter ids (the Redis key names) are built from the key's hash.
		expect(sharedLimiterIds()).toEqual(
			expect.arrayContaining([
				`${SHARED_LIMIT_ID_PREFIX}${sandbox.url}#${keyIdOf(sandbox.keys.demo)}`,
				`${SHARED_LIMIT_ID_PREFIX}${sandbox.url}#${keyIdOf(sandbox.keys.second)}`,
			]),
		);
		for (const id of sharedLimiterIds()) expect(id).not.toContain(sandbox.keys.demo.slice(4));

		// Idle: closed (after the last request's gap and the idle time).
		expect(await waitFor(async () => (await ourConnections()) === 0, 5000)).toBe(true);
		expect(openSharedLimitConnections()).toEqual([]);

		// The next request opens them again, and its key still shares the budget in Redis.
		await call(demo);
		expect(await ourConnections()).toBe(2);
		configureSharedLimits({ idleCloseMs: SHARED_LIMIT_DEFAULTS.idleCloseMs });
		await closeSharedLimits();
		expect(await waitFor(async () => (await ourConnections()) === 0, 2000)).toBe(true);
	});

	test('the built action and trigger node files (one module per source file) share one connection pair and one budget', async () => {
		assertDistBuilt();
		const { BookingRequests } = require(DIST_NODE) as { BookingRequests: new () => INodeType };
		const { BookingRequestsTrigger } = require(DIST_TRIGGER) as { BookingRequestsTrigger: new () => INodeType };
		// The connection registry the built nodes use (their own module instance, not this test's source one).
		const built = require(path.join(QUEUE_DIST, 'queue/limiter/connection.js')) as {
			openSharedLimitConnections: () => string[];
			closeSharedLimits: () => Promise<void>;
		};
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url, shareRateLimit: true, redisUrl: redis.url });
		const search = async (node: INodeType) =>
			await (node.methods!.listSearch!.searchForms as (this: ILoadOptionsFunctions) => Promise<INodeListSearchResult>).call(
				harness.context() as unknown as ILoadOptionsFunctions,
			);
		const [a, b, c] = await Promise.all([search(new BookingRequests()), search(new BookingRequestsTrigger()), search(new BookingRequests())]);
		for (const result of [a, b, c]) expect(result.results).toHaveLength(10);
		expect(await ourConnections()).toBe(2);
		expect(built.openSharedLimitConnections()).toEqual([redis.url]);
		const keyHash = hashKey(sandbox.keys.demo);
		expect(pacing429s(sandbox.log, keyHash)).toEqual([]);
		await built.closeSharedLimits();
		expect(await waitFor(async () => (await ourConnections()) === 0, 2000)).toBe(true);
	});

	test('without a Redis URL: the per-process limiter, exactly as before, and no connection to Redis', async () => {
		const before = openSharedLimitConnections().length;
		const local = limiterFor('https://local.example', 'k-local');
		expect(limiterFor('https://local.example', 'k-local', undefined)).toBe(local);
		expect(limiterFor('https://local.example', 'k-local', '')).toBe(local);
		expect(limiterIds()).toContain('https://local.example#k-local');

		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url, shareRateLimit: true, redisUrl: '' });
		await apiRequest(harness.context(), '/api/v1/forms', { qs: { per_page: 1 } });
		expect(limiterIds()).toContain(`${sandbox.url}#${keyIdOf(sandbox.keys.demo)}`);
		expect(openSharedLimitConnections()).toHaveLength(before);
		expect(await ourConnections()).toBe(0);
	});
});

describe('the credential field and the Redis URL', () => {
	test('"Redis URL": password-typed, empty by default, shown only with "Share Rate Limit Across n8n Processes" (off by default); only the queue edition\'s credential has them', () => {
		// the queue edition's build puts queue/credentialFields.ts in the place of credentials/editionFields.ts
		const properties = QUEUE_CREDENTIAL_FIELDS;
		expect(new BookingRequestsApi().properties.map((property) => property.name)).not.toEqual(expect.arrayContaining(['shareRateLimit']));
		const toggle = properties.find((property) => property.name === 'shareRateLimit');
		expect(toggle).toMatchObject({ displayName: 'Share Rate Limit Across n8n Processes', type: 'boolean', default: false });
		const field = properties.find((property) => property.name === 'redisUrl');
		expect(field).toMatchObject({
			displayName: 'Redis URL',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { shareRateLimit: [true] } },
		});
	});

	test('a Redis URL left in the credential with the toggle off opens no Redis connection', async () => {
		const before = openSharedLimitConnections().length;
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url, shareRateLimit: false, redisUrl: redis.url });
		await apiRequest(harness.context(), '/api/v1/forms', { qs: { per_page: 1 } });
		expect(openSharedLimitConnections()).toHaveLength(before);
	});

	test('redis:// and rediss:// are accepted; shown without password or query', () => {
		expect(parseRedisUrl('redis://:pw@redis:6379/2')).toEqual({ url: 'redis://:pw@redis:6379/2', display: 'redis://:***@redis:6379/2', secret: 'pw' });
		expect(parseRedisUrl(' rediss://default:p%40ss@cache.example.com:6380?family=6 ')).toEqual({
			url: 'rediss://default:p%40ss@cache.example.com:6380?family=6',
			display: 'rediss://default:***@cache.example.com:6380',
			secret: 'p@ss',
		});
		expect(parseRedisUrl('redis://redis')).toMatchObject({ display: 'redis://redis' });
		expect(parseRedisUrl('https://redis:6379')).toMatchObject({ problem: expect.stringContaining('unsupported scheme "https:"') });
		const invalid = parseRedisUrl('redis//:secret@host');
		expect(invalid).toMatchObject({ problem: 'The Shared Rate Limit Redis URL is not a valid URL' });
		expect(JSON.stringify(invalid)).not.toContain('secret');
	});
});
