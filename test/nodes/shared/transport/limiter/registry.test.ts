import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

import type { ILoadOptionsFunctions, INodeListSearchResult, INodeType } from 'n8n-workflow';

import { createHarness } from '../../../../../harness/inProcessN8n';
import type { Sandbox } from '../../../../../sandbox';
import { hashKey, startSandbox } from '../../../../../sandbox';
import { keyIdOf } from '../../../../../nodes/shared/transport/keyId';
import { PACING } from '../../../../../nodes/shared/transport/limiter/pacing';
import { currentEdition, limiterFor, limiterIds } from '../../../../../nodes/shared/transport/limiter/registry';
import { setEditionForTests, setPacingGapForTests } from '../../../../../harness/limiterSettings';
import { EDITION as QUEUE_EDITION } from '../../../../../queue/edition';
import { sharedLimiterIds } from '../../../../../queue/limiter/sharedLimiter';
import { QUEUE_PACKAGE_DIR } from '../../../../support/editions';
import { pacing429s, withoutOwn429s } from '../../../../support/pacing429';

const DIST = path.resolve(__dirname, '../../../../../dist');

/**
 * Runs `work` on jest's fake clock (Date.now and timers; the limiter's waits are timers): the gaps it
 * measures are the limiter's own decisions, whatever the load of the machine.
 */
async function onFakeClock<T>(work: () => Promise<T>): Promise<T> {
	jest.useFakeTimers({ now: Date.now(), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
	try {
		const done = work();
		let settled = false;
		void done.then(
			() => (settled = true),
			() => (settled = true),
		);
		for (let step = 0; step < 600 && !settled; step++) await jest.advanceTimersByTimeAsync(50);
		return await done;
	} finally {
		jest.useRealTimers();
	}
}

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ sizes: { forms: 250, requests: 10, sessions: 10 } });
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.clearLog());

describe('limiter registry', () => {
	test('the Cloud edition (the built default) paces a key per process even when the credential names a Redis: no Redis client is made', () => {
		expect(currentEdition().packageName).toBe('n8n-nodes-booking-requests');
		expect(currentEdition().sharedLimiterFor).toBeUndefined();
		const limiter = limiterFor('https://cloud.example', 'k-cloud', 'redis://127.0.0.1:1/0');
		expect(limiter.id).toBe('https://cloud.example#k-cloud');
		expect(limiterIds()).toContain('https://cloud.example#k-cloud');
		expect(sharedLimiterIds()).toEqual([]);
	});

	test('the queue edition (queue/edition.ts) gives a key with a Redis URL the Redis-shared limiter, and the per-process one without', () => {
		setEditionForTests(QUEUE_EDITION);
		try {
			expect(currentEdition().packageName).toBe('n8n-nodes-booking-requests-queue');
			const shared = limiterFor('https://queue.example', 'k-queue', 'redis://127.0.0.1:1/0');
			expect(sharedLimiterIds()).toEqual(['n8n-booking-requests:v2:https://queue.example#k-queue']);
			expect(limiterIds()).not.toContain('https://queue.example#k-queue');
			expect(limiterFor('https://queue.example', 'k-queue')).not.toBe(shared);
		} finally {
			setEditionForTests();
		}
	});

	test('one limiter per base URL and key hash; the raw key is never part of its id', () => {
		const key = 'brk_0123456789abcdef0123456789abcdef';
		const a = limiterFor('https://api.example.com', keyIdOf(key));
		const b = limiterFor('https://api.example.com', keyIdOf(key));
		const other = limiterFor('https://api.example.com', keyIdOf('brk_ffffffffffffffffffffffffffffffff'));
		expect(a).toBe(b);
		expect(other).not.toBe(a);
		expect(a.id).toBe(`https://api.example.com#${keyIdOf(key)}`);
		for (const id of limiterIds()) {
			expect(id).not.toContain(key);
			expect(id).not.toContain(key.slice(4));
		}
	});

	test('jobs of one key run one at a time; while no round trip is known, each is sent a full gap after the previous answer', async () => {
		const limiter = limiterFor('https://spacing.example', 'k1');
		const starts: number[] = [];
		const ends: number[] = [];
		let running = 0;
		const job = async () => {
			expect(++running).toBe(1);
			starts.push(Date.now());
			await new Promise((resolve) => setTimeout(resolve, 50));
			ends.push(Date.now());
			running--;
		};
		await onFakeClock(() => Promise.all([limiter.run(job), limiter.run(job), limiter.run(job)]));
		// The first round trip of a process is not trusted and one more is not enough: L = 0, the old
		// "from the response" rule (pacing.unit.test.ts covers how L then grows).
		expect(starts[1] - ends[0]).toBeGreaterThanOrEqual(PACING.minGapMs + PACING.marginMs);
		expect(starts[2] - ends[1]).toBeGreaterThanOrEqual(PACING.minGapMs + PACING.marginMs);
		expect(starts[2] - ends[1]).toBeLessThan(PACING.minGapMs + 100);
	});

	test('with agreeing round trips the next request is sent before the previous answer + gap: the round trip is credited', async () => {
		const limiter = limiterFor('https://credit.example', 'k1');
		const starts: number[] = [];
		const job = async () => {
			starts.push(Date.now());
			await new Promise((resolve) => setTimeout(resolve, 120));
		};
		await onFakeClock(async () => {
			for (let i = 0; i < 5; i++) await limiter.run(job);
		});
		// Sent ~1,005 ms apart: the 120 ms round trip is no longer added to each gap.
		const last = starts[4] - starts[3];
		expect(last).toBeGreaterThanOrEqual(PACING.minGapMs);
		expect(last).toBeLessThan(PACING.minGapMs + 80);
	});

	test('setPacingGapForTests: limiters created afterwards pace for a faster server; restored with the contract gap', async () => {
		setPacingGapForTests(100);
		try {
			const limiter = limiterFor('https://fast.example', 'k1');
			const took = await onFakeClock(async () => {
				const started = Date.now();
				for (let i = 0; i < 4; i++) await limiter.run(async () => undefined);
				return Date.now() - started;
			});
			// three gaps of a 100 ms server (+ the margin), where the contract's gap would take 3 s
			expect(took).toBeGreaterThanOrEqual(300);
			expect(took).toBeLessThan(900);
		} finally {
			setPacingGapForTests(PACING.minGapMs);
		}
		expect(limiterIds()).not.toContain('https://fast.example#k1');
	});

	test('pauseFor holds every job of the key (a Retry-After)', async () => {
		const limiter = limiterFor('https://pause.example', 'k1');
		await limiter.run(async () => undefined);
		const before = Date.now();
		limiter.pauseFor(2500);
		await limiter.run(async () => undefined);
		expect(Date.now() - before).toBeGreaterThanOrEqual(2490);
	});

	test('the built action node and trigger node files share one limiter for the same key', async () => {
		const actionFile = path.join(DIST, 'nodes/BookingRequests/BookingRequests.node.js');
		const triggerFile = path.join(DIST, 'nodes/BookingRequestsTrigger/BookingRequestsTrigger.node.js');
		if (!existsSync(actionFile) || !existsSync(triggerFile)) throw new Error('dist/ is missing: run `npm run build` before the tests');
		// The built files as n8n requires them: one module per source file, so both nodes reach the same
		// transport modules (and with them one limiter registry).
		const { BookingRequests } = require(actionFile) as { BookingRequests: new () => INodeType };
		const { BookingRequestsTrigger } = require(triggerFile) as { BookingRequestsTrigger: new () => INodeType };
		const builtRegistry = require(path.join(DIST, 'nodes/shared/transport/limiter/registry.js')) as { limiterIds: () => string[] };
		const action = new BookingRequests();
		const trigger = new BookingRequestsTrigger();
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const before = new Set(builtRegistry.limiterIds());

		const search = (node: INodeType) =>
			(node.methods!.listSearch!.searchForms as (this: ILoadOptionsFunctions, filter?: string) => Promise<INodeListSearchResult>).call(
				harness.context() as unknown as ILoadOptionsFunctions,
			);
		// 250 forms = 3 pages each, both nodes at once on the same key
		const [fromAction, fromTrigger] = await Promise.all([search(action), search(trigger)]);
		expect(fromAction.results).toHaveLength(250);
		expect(fromTrigger.results).toHaveLength(250);

		const keyHash = hashKey(sandbox.keys.demo);
		// The API's own 429s left out (a stall of this busy process can bring a paced call in short of the
		// last one's second); pacing429s judges whether the pacing caused any.
		expect(withoutOwn429s(sandbox.log)).toHaveLength(6);
		expect(pacing429s(sandbox.log, keyHash)).toEqual([]);
		const added = builtRegistry.limiterIds().filter((id) => !before.has(id));
		expect(added).toEqual([`${sandbox.url}#${keyIdOf(sandbox.keys.demo)}`]);
	});

	test.each([
		['n8n-nodes-booking-requests', path.join(DIST, '..')],
		['n8n-nodes-booking-requests-queue', QUEUE_PACKAGE_DIR],
	])("n8n's own loader (PackageDirectoryLoader, outside jest) gives both nodes of %s one instance of the transport modules", (packageName, dir) => {
		// A separate Node process: n8n-core loads each node file in a vm script with Node's own require,
		// exactly as n8n does; the script reports which module instances the two nodes reach.
		const out = execFileSync(process.execPath, [path.join(__dirname, '../../../../support/loadWithN8nLoader.js'), dir], {
			encoding: 'utf8',
			env: { ...process.env, NODE_ENV: 'production' },
		});
		const report = JSON.parse(out) as {
			packageName: string;
			nodeTypes: string[];
			isolated: boolean;
			shared: Record<string, { foundInEveryNode: boolean; oneInstance: boolean }>;
			distModules: number;
			distinctDistModules: number;
		};
		expect(report.packageName).toBe(packageName);
		expect(report.nodeTypes).toEqual(['bookingRequests', 'bookingRequestsTrigger']);
		expect(report.isolated).toBe(true);
		expect(Object.keys(report.shared)).toHaveLength(3);
		for (const entry of Object.values(report.shared)) expect(entry).toEqual({ foundInEveryNode: true, oneInstance: true });
		expect(report.distinctDistModules).toBe(report.distModules);
	});
});
