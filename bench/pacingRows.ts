/**
 * Pacing rows (issues 14 and 18), each measured at the sandbox's rate check (arrival times), strict
 * 1 request/s per key; run as a child process (see run.ts) that prints its rows as JSON on the last line.
 *
 *   pacingRows.ts latency <0|100|250|500|80-320|40-900> <N>   Return All of N requests in n8n-core in
 *        process, the sandbox adding that network latency before its rate check: a cold run (fresh
 *        process, no round trip known), then a second run in the same process (the limiter warm),
 *        then a scheduled run: the same process 10 minutes later (the process's Date.now moved
 *        forward 10 minutes, so the key has been idle and its round trips are 10 minutes old; the
 *        sandbox's rate check runs on the performance clock and is not moved). Each run starts the
 *        sandbox's latency draws from the same seed: cold, warm and scheduled meet the same delays.
 *   pacingRows.ts queue <processes> <N>           n8n queue mode: that many processes (the built node,
 *        each its own Node process) list N forms each at once, one key, the Redis URL set (a real
 *        redis-server on loopback): combined seconds per call.
 *   pacingRows.ts neighbour <after|random> <N>     Return All of N while another client uses the key
 *        at 0.5 request/s (never retrying): our duration and 429s, its accepted share while we run.
 *        `after`: our run starts just after one of its calls was accepted (the key's first answer is a
 *        429: the contention is seen at once); `random`: at a random moment of its period.
 */
import { hashKey, startSandbox, type Latency, type Sandbox } from '../sandbox';
import { envOverride } from '../harness/env';
import { createHarness } from '../harness/inProcessN8n';
import { isOtherClient, otherClientCalls, startOtherClient } from '../harness/otherClient';
import { acceptedGaps, rateLimitedCount } from '../harness/sandboxGaps';
import { startChild } from '../harness/sharedLimit/children';
import { assertDistBuilt } from '../harness/sharedLimit/figures';
import { startRedisServer } from '../harness/services/redisServer';
import { latencyLabel, type RowResult } from './rows';

const ceil100 = (n: number) => Math.ceil(n / 100);
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

function parseLatency(spec: string): Latency {
	if (spec.includes('-')) return spec.split('-').map(Number) as [number, number];
	return Number(spec) === 0 ? null : Number(spec);
}

/** Seconds between the first and the last arrival of `entries`, and the figures of one key's calls. */
function measured(sandbox: Sandbox, entries = sandbox.log) {
	const keyHash = hashKey(sandbox.keys.demo);
	const gaps = acceptedGaps(entries, keyHash);
	if (envOverride('BENCH_GAPS')) process.stderr.write(`gaps: ${gaps.map((gap) => gap.toFixed(0)).join(' ')}\n`);
	return {
		calls: entries.length,
		seconds: entries.length > 1 ? (entries[entries.length - 1].at - entries[0].at) / 1000 : 0,
		rateLimited: rateLimitedCount(entries, keyHash),
		minGapMs: gaps.length ? Math.min(...gaps) : null,
	};
}

async function latencyRows(latency: Latency, n: number): Promise<RowResult[]> {
	const sandbox = await startSandbox({ sizes: { requests: n, sessions: 5 }, latencyMs: latency });
	const rows: RowResult[] = [];
	try {
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const realNow = Date.now;
		for (const run of ['cold: a fresh process', 'warm: the next run in the same process', 'scheduled: the same process 10 minutes later (key idle)']) {
			if (run.startsWith('scheduled')) {
				const offset = 10 * 60_000;
				Date.now = () => realNow() + offset;
			}
			sandbox.setLatency(latency); // each run meets the same delays, request by request
			sandbox.clearLog();
			const result = await harness.runAction({ resource: 'bookingRequest', operation: 'getAll', returnAll: true, simplify: false });
			if (result.error) throw result.error;
			if (result.items.length !== n) throw new Error(`expected ${n} items, got ${result.items.length}`);
			const figures = measured(sandbox);
			rows.push({
				row: `Return All of ${n.toLocaleString('en-US')} requests, ${latencyLabel(latency)} (${run.split(':')[0]})`,
				items: n,
				...figures,
				minCalls: ceil100(n),
				minSeconds: ceil100(n) - 1,
				peakRssMb: peakRssMb(),
				note: `${run}; n8n-core in process; seconds at the sandbox's rate check`,
			});
			await sleep(1100);
		}
		Date.now = realNow;
		return rows;
	} finally {
		await sandbox.close();
	}
}

async function queueRow(processes: number, n: number): Promise<RowResult[]> {
	assertDistBuilt();
	const redis = await startRedisServer();
	const sandbox = await startSandbox({ sizes: { forms: n, requests: 5, sessions: 5 } });
	const children = Array.from({ length: processes }, () =>
		startChild({ baseUrl: sandbox.url, apiKey: sandbox.keys.demo, redisUrl: redis.url, impl: 'dist', runs: 1, waitForGo: true }),
	);
	try {
		await Promise.all(children.map(async (child) => await child.waitFor((event) => event.event === 'ready', 60_000)));
		await sleep(1100);
		sandbox.clearLog();
		for (const child of children) child.send('go');
		await Promise.all(children.map(async (child) => await child.waitFor((event) => event.event === 'done', 300_000)));
		const runs = children.map((child) => child.runs()[0]);
		const complete = runs.filter((run) => run.ok && run.ids?.length === n).length;
		const figures = measured(sandbox);
		return [
			{
				row: `Queue mode: ${processes} processes on one Redis (loopback), ${n.toLocaleString('en-US')} forms each, at once`,
				items: processes * n,
				...figures,
				minCalls: processes * ceil100(n),
				minSeconds: processes * ceil100(n) - 1,
				peakRssMb: peakRssMb(),
				note: `${complete} of ${processes} runs complete; built node in separate Node processes; time ratio = combined seconds per call`,
			},
		];
	} finally {
		for (const child of children) child.kill();
		await sandbox.close();
		await redis.stop();
	}
}

async function neighbourRow(phase: 'after' | 'random', n: number): Promise<RowResult[]> {
	const sandbox = await startSandbox({ sizes: { requests: n, sessions: 5 } });
	const other = startOtherClient(sandbox, sandbox.keys.demo);
	try {
		await sleep(3000);
		if (phase === 'after') await other.afterNextAccepted(150);
		else await sleep(Math.random() * 2000);
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const result = await harness.runAction({ resource: 'bookingRequest', operation: 'getAll', returnAll: true, simplify: false });
		other.stop();
		if (result.error) throw result.error;
		if (result.items.length !== n) throw new Error(`expected ${n} items, got ${result.items.length}`);
		const ours = sandbox.log.filter((entry) => !isOtherClient(entry));
		const theirs = otherClientCalls(sandbox.log, ours[0].at, ours[ours.length - 1].at);
		const figures = measured(sandbox, ours);
		return [
			{
				row: `Another client on the key at 0.5 request/s, Return All of ${n.toLocaleString('en-US')} requests (${phase === 'after' ? 'starts just after one of its calls' : 'starts at a random moment'})`,
				items: n,
				...figures,
				minCalls: ceil100(n),
				minSeconds: ceil100(n) - 1,
				peakRssMb: peakRssMb(),
				note: `the other client: ${theirs.accepted} of ${theirs.calls} calls accepted while we ran (${theirs.calls ? Math.round((100 * theirs.accepted) / theirs.calls) : 0}%); calls and 429s are ours`,
			},
		];
	} finally {
		other.stop();
		await sandbox.close();
	}
}

async function main(): Promise<RowResult[]> {
	const [kind, arg, count] = process.argv.slice(2);
	const n = Number(count ?? 1000);
	switch (kind) {
		case 'latency':
			return await latencyRows(parseLatency(arg ?? '0'), n);
		case 'queue':
			return await queueRow(Number(arg ?? 3), n);
		case 'neighbour':
			return await neighbourRow(arg === 'random' ? 'random' : 'after', n);
		default:
			throw new Error(`unknown pacing row ${kind}`);
	}
}

main()
	.then((rows) => {
		process.stdout.write(`\n${JSON.stringify(rows)}\n`);
		process.exit(0);
	})
	.catch((error: unknown) => {
		console.error(error);
		process.exit(1);
	});
