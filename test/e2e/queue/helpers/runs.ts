/**
 * Starting executions through a webhook, reading n8n's execution records (PostgreSQL) and the
 * sandbox's figures of a time window.
 */
import * as http from 'node:http';

import type { RequestLogEntry, Sandbox } from '../../../../sandbox';
import { sleep } from '../../../../harness/n8n/process';
import { acceptedEntries, acceptedGaps, rateLimitedCount } from '../../../../harness/sandboxGaps';
import type { PostgresServer } from '../../../../harness/services/postgres';
import { longestStallMs, pacing429s } from '../../../support/pacing429';

// ------------------------------------------------------------------------------------------ webhooks

export interface WebhookCall {
	path: string;
	startedAt: number;
	endedAt?: number;
	status?: number;
	/** The parsed answer (the items of the last node, or n8n's error object). */
	body?: unknown;
	error?: string;
	/** Ends the HTTP request (for an execution that will never answer: its worker was killed). */
	abort(): void;
	done: Promise<WebhookCall>;
}

/** One HTTP request without keep-alive (no idle socket outlives the test). */
function httpRequest(
	url: string,
	opts: { method?: string; headers?: Record<string, string>; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<{ status: number; text: string }> {
	return new Promise((resolve, reject) => {
		const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false, signal: opts.signal }, (res) => {
			let text = '';
			res.setEncoding('utf8');
			res.on('data', (chunk: string) => (text += chunk));
			res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
			res.on('error', reject);
		});
		if (opts.timeoutMs) req.setTimeout(opts.timeoutMs, () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
		req.on('error', reject);
		req.end();
	});
}

export function callWebhook(baseUrl: string, path: string, timeoutMs = 10 * 60_000): WebhookCall {
	const controller = new AbortController();
	const call = { path, startedAt: Date.now(), abort: () => controller.abort() } as WebhookCall;
	call.done = (async () => {
		try {
			const res = await httpRequest(`${baseUrl}/webhook/${path}`, { signal: controller.signal, timeoutMs });
			call.status = res.status;
			try {
				call.body = JSON.parse(res.text);
			} catch {
				call.body = res.text;
			}
		} catch (error) {
			call.error = (error as Error).name === 'AbortError' ? 'aborted' : (error as Error).message;
		} finally {
			call.endedAt = Date.now();
		}
		return call;
	})();
	return call;
}

/** Waits until main has registered the production webhook (OPTIONS with an Origin: 204; starts nothing). */
export async function waitForWebhook(baseUrl: string, path: string, timeoutMs = 60_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		try {
			const res = await httpRequest(`${baseUrl}/webhook/${path}`, { method: 'OPTIONS', headers: { Origin: 'http://localhost' }, timeoutMs: 5000 });
			if (res.status === 204) return;
		} catch {
			/* not up */
		}
		if (Date.now() > deadline) throw new Error(`webhook ${path} is not registered on ${baseUrl}`);
		await sleep(250);
	}
}

/** The `id`s of the items a webhook answered with. */
export function itemIds(call: WebhookCall): string[] {
	return Array.isArray(call.body) ? (call.body as Array<{ id?: unknown }>).map((item) => String(item.id)) : [];
}

// ---------------------------------------------------------------------------------- execution records

export interface ExecutionRecord {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	createdAt: string;
	startedAt: string | null;
	stoppedAt: string | null;
}

export async function executions(pg: PostgresServer, workflowId: string, afterId = 0): Promise<ExecutionRecord[]> {
	const rows = await pg.rows<ExecutionRecord & { id: number }>(
		`SELECT id, "workflowId", status, mode, "createdAt", "startedAt", "stoppedAt" FROM execution_entity
		 WHERE "workflowId" = '${workflowId}' AND id > ${Number(afterId)} ORDER BY id`,
	);
	return rows.map((row) => ({ ...row, id: String(row.id) }));
}

export async function lastExecutionId(pg: PostgresServer): Promise<number> {
	return Number((await pg.sql('SELECT coalesce(max(id), 0) FROM execution_entity')).trim());
}

/** Polls the execution records until `done` holds for them. */
export async function waitForExecutions(
	pg: PostgresServer,
	workflowId: string,
	afterId: number,
	done: (records: ExecutionRecord[]) => boolean,
	timeoutMs: number,
	what: string,
): Promise<ExecutionRecord[]> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const records = await executions(pg, workflowId, afterId);
		if (done(records)) return records;
		if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s; execution records: ${JSON.stringify(records)}`);
		await sleep(500);
	}
}

export const FINISHED = ['success', 'error', 'crashed', 'canceled'];

export function durationSeconds(record: ExecutionRecord): number | null {
	if (!record.startedAt || !record.stoppedAt) return null;
	return Math.round((Date.parse(record.stoppedAt) - Date.parse(record.startedAt)) / 100) / 10;
}

// ---------------------------------------------------------------------------------- sandbox figures

export interface WindowFigures {
	/** Requests of the key that reached the sandbox in the window (accepted + 429). */
	calls: number;
	accepted: number;
	rateLimited: number;
	/**
	 * Of those 429s, the ones the pacing is to blame for (test/support/pacing429.ts): the sandbox runs
	 * in this process, so a stall of it stamps a request late and the next one's gap short.
	 */
	pacing429s: number;
	/** The longest stall of this process so far, in ms: how short of the limit a 429 may be excused. */
	longestStallMs: number;
	/**
	 * How tight the pacing ran (reported, not checked: the sandbox accepts no request sooner than 1 s
	 * after the last accepted one, so these cannot show a breach; `pacing429s` is the check).
	 */
	minGapMs: number | null;
	/** Accepted requests per second between the first and the last accepted one. */
	acceptedPerSecond: number | null;
	seconds: number;
	/** Calls per path (`/api/v1/requests`...). */
	byPath: Record<string, number>;
}

export function entriesIn(sandbox: Sandbox, keyHash: string, from: number, to = Infinity): RequestLogEntry[] {
	return sandbox.log.filter((entry) => entry.keyHash === keyHash && entry.at >= from && entry.at <= to);
}

export function acceptedIn(sandbox: Sandbox, keyHash: string, from: number, to = Infinity): RequestLogEntry[] {
	return acceptedEntries(entriesIn(sandbox, keyHash, from, to), keyHash);
}

export function windowFigures(sandbox: Sandbox, keyHash: string, from: number, to = Infinity): WindowFigures {
	const all = entriesIn(sandbox, keyHash, from, to);
	const accepted = acceptedEntries(all, keyHash);
	const gaps = acceptedGaps(all, keyHash);
	const span = accepted.length > 1 ? (accepted[accepted.length - 1].at - accepted[0].at) / 1000 : 0;
	const byPath: Record<string, number> = {};
	for (const entry of all) byPath[entry.path] = (byPath[entry.path] ?? 0) + 1;
	return {
		calls: all.length,
		accepted: accepted.length,
		rateLimited: rateLimitedCount(all, keyHash),
		pacing429s: pacing429s(all, keyHash).length,
		longestStallMs: Math.round(longestStallMs()),
		minGapMs: gaps.length > 0 ? Math.round(Math.min(...gaps) * 10) / 10 : null,
		acceptedPerSecond: span > 0 ? Math.round(((accepted.length - 1) / span) * 1000) / 1000 : null,
		seconds: all.length > 0 ? Math.round((all[all.length - 1].at - all[0].at) / 100) / 10 : 0,
		byPath,
	};
}

/** Resolves at the next wall-clock second `second` of a minute (or now, if within [second, second + slack)). */
export async function untilSecondOfMinute(second: number, slack = 0): Promise<void> {
	const now = new Date();
	const s = now.getUTCSeconds() + now.getUTCMilliseconds() / 1000;
	if (s >= second && s < second + slack) return;
	const wait = ((second - s + 60) % 60) * 1000;
	await sleep(wait);
}
