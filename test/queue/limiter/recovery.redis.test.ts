/**
 * The build's patch of Bottleneck 2.19.5 (patches/bottleneck+2.19.5.patch): the shared limiter's keys
 * in Redis expire after an idle time (or are deleted: FLUSHDB, eviction, a restarted Redis without
 * persistence) while an n8n process keeps its limiter. The next run must re-create them and work
 * without restarting n8n. On Redis 7 ("ERR " before Lua errors) that needs the patch: the built node
 * (dist/, patched) recovers; the unpatched Bottleneck from node_modules (the TypeScript sources) does not.
 */
import { readFileSync } from 'node:fs';

import { hashKey } from '../../../sandbox';
import { SHARED_LIMIT_DEFAULTS } from '../../../queue/limiter/connection';
import { SHARED_LIMIT_ID_PREFIX } from '../../../queue/limiter/sharedLimiter';
import { startChild } from '../../../harness/sharedLimit/children';
import { withClusterWorld } from '../../support/sharedLimit/clusterWorld';
import { formIds } from '../../../harness/sharedLimit/figures';
import { withQueueEdition } from '../../support/editions';
import { pacing429s } from '../../support/pacing429';

jest.setTimeout(120_000);

const FORMS = 300; // 3 pages per Return All

const world = withClusterWorld(FORMS);

async function limiterKeys(): Promise<string[]> {
	return await world.redis.client().keys(`b_${SHARED_LIMIT_ID_PREFIX}*`);
}

type Loss = 'expired' | 'deleted';

/** Run 1, then the limiter's keys disappear while the process keeps its limiter, then run 2. */
async function twoRunsAcrossKeyLoss(impl: 'dist' | 'source', loss: Loss) {
	const client = world.redis.client();
	await client.flushall();
	const child = startChild({ baseUrl: world.sandbox.url, apiKey: world.sandbox.keys.demo, redisUrl: world.redis.url, impl, runs: 2, pauseBetweenRuns: true });
	world.children.push(child);
	await child.waitFor((event) => event.event === 'paused');

	const keys = await limiterKeys();
	expect(keys.length).toBeGreaterThan(0);
	// Bottleneck's idle TTL is on every key (refreshed by each request).
	for (const key of keys) {
		const ttl = await client.pttl(key);
		expect(ttl).toBeGreaterThan(0);
		expect(ttl).toBeLessThanOrEqual(SHARED_LIMIT_DEFAULTS.keyTtlMs + 100);
	}
	if (loss === 'expired') {
		for (const key of keys) await client.pexpire(key, 1); // the idle TTL running out, without waiting 10 min
		const deadline = Date.now() + 5000;
		while ((await limiterKeys()).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
	} else {
		await client.del(...keys);
	}
	expect(await limiterKeys()).toEqual([]);

	child.send('continue');
	await child.waitFor((event) => event.event === 'done');
	return child.runs();
}


// The Redis-shared limiter is the queue edition's (queue/edition.ts).
withQueueEdition();

describe('shared limiter keys lost between two runs (idle TTL, deleted)', () => {
	test.each<Loss>(['expired', 'deleted'])('keys %s: the built node (patched Bottleneck) re-creates them; the next run works, no restart', async (loss) => {
		world.sandbox.clearLog();
		const [first, second] = await twoRunsAcrossKeyLoss('dist', loss);
		expect(first.ok).toBe(true);
		expect(second.error).toBeUndefined();
		expect(second.ok).toBe(true);
		expect(new Set(second.ids)).toEqual(formIds(world.sandbox));
		expect(second.ids).toHaveLength(FORMS);
		expect(pacing429s(world.sandbox.log, hashKey(world.sandbox.keys.demo))).toEqual([]);
		expect((await limiterKeys()).length).toBeGreaterThan(0);
	});

	test('without the patch (Bottleneck 2.19.5 as published) the same process fails on Redis 7 — what the patch fixes', async () => {
		expect(Number(world.redis.version.split('.')[0])).toBeGreaterThanOrEqual(7);
		// The TypeScript sources use node_modules/bottleneck, which must be as published for this comparison.
		const published = readFileSync(require.resolve('bottleneck/lib/RedisDatastore.js'), 'utf8');
		if (published.includes('n8n-nodes-booking-requests')) {
			throw new Error('node_modules/bottleneck was patched in place (npx patch-package?): run `npm ci` to restore it');
		}
		const [first, second] = await twoRunsAcrossKeyLoss('source', 'expired');
		expect(first.ok).toBe(true);
		expect(second.ok).toBe(false);
		// Still a clear error, not a hang: Redis' own reason, with the Redis URL.
		expect(second.error?.name).toBe('NodeOperationError');
		expect(second.error?.message).toBe(`Shared rate limit: Redis at ${world.redis.url} reported an error`);
		expect(second.error?.description).toContain('ERR SETTINGS_KEY_NOT_FOUND');
	});
});
