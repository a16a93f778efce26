/**
 * Benchmark rows that run in one process: n8n-core's real execution engine (harness/inProcessN8n.ts) against the
 * sandbox API on loopback, with the contract's real limit (1 request per second per key). Each row runs
 * in its own child process (see run.ts) so its peak memory is its own.
 */
import type { IDataObject } from 'n8n-workflow';

import { createHarness } from '../harness/inProcessN8n';
import type { PollState } from '../harness/inProcessN8n';
import { acceptedGaps, rateLimitedCount } from '../harness/sandboxGaps';
import { hashKey, startSandbox, type Latency } from '../sandbox';
import { includeRequestRow, sessionsReturnAllRow } from './funnelRows';
import type { RowResult } from './rowResult';

export type { RowResult } from './rowResult';

const ceil100 = (n: number) => Math.ceil(n / 100);

/** How the bench names a network latency of the sandbox (before its rate check). */
export function latencyLabel(latency: Latency): string {
	if (latency === null || latency === 0) return 'loopback';
	return Array.isArray(latency) ? `${latency[0]}–${latency[1]} ms jittery` : `${latency} ms constant`;
}
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function returnAll(n: number): Promise<RowResult> {
	const sandbox = await startSandbox({ sizes: { requests: n, sessions: 10 } });
	try {
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const started = performance.now();
		const result = await harness.runAction({ resource: 'bookingRequest', operation: 'getAll', returnAll: true, simplify: false });
		const seconds = (performance.now() - started) / 1000;
		if (result.error) throw result.error;
		if (result.items.length !== n) throw new Error(`expected ${n} items, got ${result.items.length}`);
		const gaps = acceptedGaps(sandbox.log, hashKey(sandbox.keys.demo));
		return {
			row: `Return All of ${n.toLocaleString('en-US')} requests`,
			items: n,
			calls: sandbox.log.length,
			minCalls: ceil100(n),
			seconds,
			minSeconds: ceil100(n) - 1,
			rateLimited: rateLimitedCount(sandbox.log, hashKey(sandbox.keys.demo)),
			minGapMs: gaps.length ? Math.min(...gaps) : null,
			peakRssMb: peakRssMb(),
		};
	} finally {
		await sandbox.close();
	}
}

async function twoExecutions(n: number): Promise<RowResult> {
	const sandbox = await startSandbox({ sizes: { requests: n, sessions: 10 } });
	try {
		const run = async () => {
			const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
			const started = performance.now();
			const result = await harness.runAction({ resource: 'bookingRequest', operation: 'getAll', returnAll: true });
			if (result.error) throw result.error;
			if (result.items.length !== n) throw new Error(`expected ${n} items, got ${result.items.length}`);
			return (performance.now() - started) / 1000;
		};
		const started = performance.now();
		const durations = await Promise.all([run(), run()]);
		const seconds = (performance.now() - started) / 1000;
		const gaps = acceptedGaps(sandbox.log, hashKey(sandbox.keys.demo));
		const calls = sandbox.log.length;
		return {
			row: `Two executions at once, same key, ${n.toLocaleString('en-US')} requests each`,
			items: 2 * n,
			calls,
			minCalls: 2 * ceil100(n),
			seconds,
			minSeconds: 2 * ceil100(n) - 1,
			rateLimited: rateLimitedCount(sandbox.log, hashKey(sandbox.keys.demo)),
			minGapMs: gaps.length ? Math.min(...gaps) : null,
			peakRssMb: peakRssMb(),
			note: `${(calls / seconds).toFixed(3)} calls/s combined; durations ${durations.map((d) => `${d.toFixed(1)} s`).join(' and ')}`,
		};
	} finally {
		await sandbox.close();
	}
}

async function triggerPolls(changed: number): Promise<RowResult[]> {
	const sandbox = await startSandbox({ sizes: { requests: 300, sessions: 400 } });
	try {
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const parameters = { events: ['sessionAbandoned', 'sessionCompleted', 'requestCreated'], abandonedAfterMinutes: 30 };
		const state: PollState = { staticData: {} };
		await harness.poll(parameters, state); // activation: baseline
		const rows: RowResult[] = [];

		sandbox.clearLog();
		let started = performance.now();
		await harness.poll(parameters, state);
		rows.push({
			row: 'Trigger: quiet poll (all three events)',
			items: 0,
			calls: sandbox.log.length,
			minCalls: 2,
			seconds: (performance.now() - started) / 1000,
			minSeconds: 1,
			rateLimited: rateLimitedCount(sandbox.log, hashKey(sandbox.keys.demo)),
			minGapMs: null,
			peakRssMb: peakRssMb(),
			note: 'one call per listed endpoint (sessions, requests)',
		});

		// Customers start `changed` sessions and leave them; after the delay each is one abandonment.
		const sessions = Array.from({ length: changed }, (_, i) =>
			sandbox.startSession({ contact: { firstname: `Bench${i}`, email: `bench${i}@example.com` } }),
		);
		sandbox.clock.advance(31 * 60_000);
		sandbox.clearLog();
		started = performance.now();
		const emitted = await harness.poll(parameters, state);
		const count = emitted ? emitted[0].length : 0;
		rows.push({
			row: `Trigger: poll after ${changed} sessions changed`,
			items: count,
			calls: sandbox.log.length,
			minCalls: ceil100(changed) + 1,
			seconds: (performance.now() - started) / 1000,
			minSeconds: ceil100(changed),
			rateLimited: rateLimitedCount(sandbox.log, hashKey(sandbox.keys.demo)),
			minGapMs: null,
			peakRssMb: peakRssMb(),
			note: `${count} events emitted for ${sessions.length} sessions started and left idle`,
		});
		return rows;
	} finally {
		await sandbox.close();
	}
}

export async function runRow(name: string, arg: number): Promise<RowResult[]> {
	switch (name) {
		case 'returnAll':
			return [await returnAll(arg)];
		case 'twoExecutions':
			return [await twoExecutions(arg)];
		case 'trigger':
			return await triggerPolls(arg);
		case 'include':
			return [await includeRequestRow(arg, 'first')];
		case 'includeNullsLast':
			return [await includeRequestRow(arg, 'last')];
		case 'sessions':
			return [await sessionsReturnAllRow(arg, 'first')];
		case 'sessionsNullsLast':
			return [await sessionsReturnAllRow(arg, 'last')];
		default:
			throw new Error(`unknown row ${name}`);
	}
}

export type { IDataObject };
