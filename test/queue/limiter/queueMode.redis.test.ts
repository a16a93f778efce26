/**
 * n8n queue mode: several processes on one API key. Each child process is a separate Node process
 * running the built node (dist/, as n8n loads it) in a real n8n context against the sandbox, and a
 * real Debian redis-server started here. With the credential's Redis URL they share one budget; the
 * same run without it shows the problem (429s) that the setting fixes.
 */
import { acceptedEntries, rateLimitedCount } from '../../../harness/sandboxGaps';
import { hashKey } from '../../../sandbox';
import { keyIdOf } from '../../../nodes/shared/transport/keyId';
import { SHARED_LIMIT_DEFAULTS } from '../../../queue/limiter/connection';
import { SHARED_LIMIT_ID_PREFIX } from '../../../queue/limiter/sharedLimiter';
import { startChild } from '../../../harness/sharedLimit/children';
import { withClusterWorld } from '../../support/sharedLimit/clusterWorld';
import { formIds, type Figures, summarise } from '../../../harness/sharedLimit/figures';
import { withQueueEdition } from '../../support/editions';
import { pacing429s } from '../../support/pacing429';
import { printFigures } from '../../support/figures';

const PROCESSES = 3;
const FORMS = 500; // 5 pages of 100 per Return All

jest.setTimeout(180_000);

const figures: Record<string, Figures> & { turnGivenBackAfterKillMs?: number } = {};
const world = withClusterWorld(FORMS, () => {
	if (Object.keys(figures).length > 0) printFigures(`Queue-mode figures (${PROCESSES} processes, Return All of ${FORMS} forms each):\n${JSON.stringify(figures, null, 2)}`);
});

/** Starts the processes, waits until all are loaded, then lets them go at the same moment. */
async function runProcesses(redisUrl: string | undefined) {
	const started = Array.from({ length: PROCESSES }, () =>
		startChild({ baseUrl: world.sandbox.url, apiKey: world.sandbox.keys.demo, redisUrl, impl: 'dist', runs: 1, waitForGo: true }),
	);
	world.children.push(...started);
	await Promise.all(started.map(async (child) => await child.waitFor((event) => event.event === 'ready', 60_000)));
	// The previous test's last request must not count against this one's first.
	await new Promise((resolve) => setTimeout(resolve, 1100));
	world.sandbox.clearLog();
	const go = Date.now();
	for (const child of started) child.send('go');
	await Promise.all(started.map(async (child) => await child.waitFor((event) => event.event === 'done', 150_000)));
	const seconds = (Date.now() - go) / 1000;
	return { runs: started.map((child) => child.runs()[0]), seconds };
}


// The Redis-shared limiter is the queue edition's (queue/edition.ts).
withQueueEdition();

describe('queue mode: several n8n processes on one API key', () => {
	test('with the Redis URL: one shared budget — 0 × 429, ≥ 1000 ms between accepted requests, every result complete', async () => {
		const { runs, seconds } = await runProcesses(world.redis.url);
		const keyHash = hashKey(world.sandbox.keys.demo);
		const expected = formIds(world.sandbox);

		for (const run of runs) {
			expect(run.error).toBeUndefined();
			expect(run.ok).toBe(true);
			expect(run.ids).toHaveLength(FORMS);
			expect(new Set(run.ids)).toEqual(expected);
		}
		// They really competed: every process started before any finished.
		expect(Math.max(...runs.map((run) => run.startedAt))).toBeLessThan(Math.min(...runs.map((run) => run.endedAt)));

		expect(pacing429s(world.sandbox.log, keyHash)).toEqual([]);
		expect(acceptedEntries(world.sandbox.log, keyHash)).toHaveLength(PROCESSES * (FORMS / 100));
		figures.withRedis = summarise(world.sandbox, keyHash, seconds);

		// The limiter's state in Redis is named by the key's hash, never the key.
		const keys = await world.redis.client().keys('*');
		expect(keys.length).toBeGreaterThan(0);
		for (const key of keys) {
			expect(key).toContain(`${SHARED_LIMIT_ID_PREFIX}${world.sandbox.url}#${keyIdOf(world.sandbox.keys.demo)}`);
			expect(key).not.toContain(world.sandbox.keys.demo);
			expect(key).not.toContain(world.sandbox.keys.demo.slice(4));
		}
	});

	test('without it (each process limits itself): the API answers 429s, every run still succeeds with the exact result — slower, never failed', async () => {
		const { runs, seconds } = await runProcesses(undefined);
		const keyHash = hashKey(world.sandbox.keys.demo);
		figures.withoutRedis = summarise(world.sandbox, keyHash, seconds);
		figures.withoutRedis.failedRuns = runs.filter((run) => !run.ok).length;
		figures.withoutRedis.errors = runs.filter((run) => !run.ok).map((run) => run.error?.message ?? '');
		expect(rateLimitedCount(world.sandbox.log, keyHash)).toBeGreaterThan(0);
		const expected = formIds(world.sandbox);
		for (const run of runs) {
			expect(run.error).toBeUndefined();
			expect(run.ok).toBe(true);
			expect(new Set(run.ids)).toEqual(expected);
		}
	});

	test('a process killed while it holds the key\'s turn: the others get the turn back within the job expiration', async () => {
		const settings = SHARED_LIMIT_DEFAULTS;
		// Answers take as long as the job expiration (after the rate check), so the first process is killed
		// with its request in flight however late this test gets to the kill on a busy machine.
		world.sandbox.setFaults({ latencyMs: [settings.jobExpirationMs, settings.jobExpirationMs] });
		await new Promise((resolve) => setTimeout(resolve, 1100));
		world.sandbox.clearLog();
		const [holder, waiter] = [0, 1].map(() =>
			startChild({ baseUrl: world.sandbox.url, apiKey: world.sandbox.keys.demo, redisUrl: world.redis.url, impl: 'dist', runs: 1, waitForGo: true }),
		);
		world.children.push(holder, waiter);
		await Promise.all([holder, waiter].map(async (child) => await child.waitFor((event) => event.event === 'ready', 60_000)));
		holder.send('go');
		while (world.sandbox.log.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
		const heldFrom = world.sandbox.log[0].at;
		waiter.send('go');
		await new Promise((resolve) => setTimeout(resolve, 300));
		holder.kill();
		while (world.sandbox.log.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
		world.sandbox.setFaults({});
		const freedAfter = world.sandbox.log[1].at - heldFrom;
		figures.turnGivenBackAfterKillMs = Math.round(freedAfter);
		// Not before the expiration: the turn is not taken from a live process. (How soon after it: the
		// figure printed; a busy machine delays the waiter's next look at Redis.)
		expect(freedAfter).toBeGreaterThan(settings.jobExpirationMs - 1500);
		const [run] = await waiter.waitFor((event) => event.event === 'done', 120_000).then(() => waiter.runs());
		expect(run.ok).toBe(true);
		expect(new Set(run.ids)).toEqual(formIds(world.sandbox));
	});
});
