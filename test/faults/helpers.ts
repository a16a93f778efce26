/**
 * Shared pieces of the fault-matrix tests (test/faults): the data set size, id helpers, the set
 * comparison every Return All case uses, and a capture of everything the package and n8n log.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { FaultOptions, SandboxSizes } from '../../sandbox';
import { captureN8nLog } from '../support/n8nLog';

/** 250 requests, 250 sessions and 120 profiles: 3 pages each (profiles: the sandbox clamps at 50 per page). */
export const SIZES: SandboxSizes = { requests: 250, sessions: 250, forms: 4, profiles: 120 };

/** A resource-locator value "By ID", as the editor stores it. */
export const rl = (value: string) => ({ __rl: true as const, mode: 'id', value });

export const idsOf = (items: INodeExecutionData[]) => items.map((item) => String(item.json.id));

/** Ids that occur more than once. */
export function duplicatesIn(ids: string[]): string[] {
	const seen = new Set<string>();
	const twice = new Set<string>();
	for (const id of ids) (seen.has(id) ? twice : seen).add(id);
	return [...twice];
}

/** Got vs expected as sets: what is missing, what is extra, what came twice. Empty arrays = exact. */
export function setDiff(got: string[], expected: string[]): { missing: string[]; extra: string[]; duplicated: string[] } {
	const have = new Set(got);
	const want = new Set(expected);
	return {
		missing: expected.filter((id) => !have.has(id)),
		extra: [...have].filter((id) => !want.has(id)),
		duplicated: duplicatesIn(got),
	};
}

export const EXACT = { missing: [], extra: [], duplicated: [] };

export const sleep = async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms));

/** JSON of anything, circular references cut, functions named; what n8n would store or show. */
export function safeJson(value: unknown): string {
	const seen = new WeakSet<object>();
	return JSON.stringify(value, (_key, inner: unknown) => {
		if (typeof inner === 'bigint') return inner.toString();
		if (typeof inner === 'function') return `[function ${(inner as { name?: string }).name ?? ''}]`;
		if (typeof inner === 'object' && inner !== null) {
			if (seen.has(inner)) return '[circular]';
			seen.add(inner);
			if (inner instanceof Error) {
				// Own properties, enumerable or not (message, stack, cause, description…).
				const out: Record<string, unknown> = {};
				for (const key of Object.getOwnPropertyNames(inner)) out[key] = (inner as unknown as Record<string, unknown>)[key];
				return out;
			}
		}
		return inner;
	});
}

/** Every place a key could leak to in one text: the whole key and its 32-hex secret part. */
export function leaksOf(text: string, keys: string[]): string[] {
	const found: string[] = [];
	for (const key of keys) {
		const secret = key.slice(key.indexOf('_') + 1);
		if (text.includes(key)) found.push(`whole key ${key.slice(0, 6)}…`);
		else if (text.toLowerCase().includes(secret.toLowerCase())) found.push(`secret part of ${key.slice(0, 6)}…`);
	}
	return found;
}

export interface LogCapture {
	lines: string[];
	text(): string;
	restore(): void;
}

/**
 * Captures console.*, process.stdout / stderr writes, and what n8n and the nodes log
 * (../support/n8nLog.ts: n8n-core's container Logger and n8n-workflow's LoggerProxy), at every level,
 * for the duration of a run.
 */
export function captureLogs(): LogCapture {
	const lines: string[] = [];
	const record = (source: string, args: unknown[]) => {
		lines.push(`${source}: ${args.map((arg) => (typeof arg === 'string' ? arg : safeJson(arg))).join(' ')}`);
	};
	const restores: Array<() => void> = [];

	for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
		const spy = jest.spyOn(console, level).mockImplementation((...args: unknown[]) => record(`console.${level}`, args));
		restores.push(() => spy.mockRestore());
	}
	for (const stream of [process.stdout, process.stderr]) {
		const original = stream.write.bind(stream);
		stream.write = ((chunk: unknown, ...rest: unknown[]) => {
			record(stream === process.stdout ? 'stdout' : 'stderr', [String(chunk)]);
			return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
		}) as typeof stream.write;
		restores.push(() => {
			stream.write = original as typeof stream.write;
		});
	}
	const n8nLog = captureN8nLog((entry) => record(`${entry.source === 'Logger' ? 'n8nLogger' : 'LoggerProxy'}.${entry.level}`, [entry.message, entry.meta]));
	restores.push(() => n8nLog.restore());

	return {
		lines,
		text: () => lines.join('\n'),
		restore: () => {
			for (const undo of restores.reverse()) undo();
		},
	};
}

/** The fault matrix: each entry is one case of the Return All and trigger tests. */
export const FAULT_MATRIX: Array<[string, FaultOptions]> = [
	['429 on every 3rd request', { every429: 3 }],
	['500 on every 5th request', { every500: 5 }],
	['a dropped connection on every 7th request', { dropEvery: 7 }],
	['latency jitter 0–300 ms', { latencyMs: [0, 300] }],
	['sessions churning to the top while paging', { churnSessionsPerPage: 4 }],
	['all of them at once', { every429: 3, every500: 5, dropEvery: 7, latencyMs: [0, 300], churnSessionsPerPage: 4 }],
];
