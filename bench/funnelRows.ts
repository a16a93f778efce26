/**
 * Benchmark rows of Booking Session → Get Many with Include Booking Request (run through
 * row-main.ts, like the other in-process rows): Return All of `n` sessions
 * of a month (30% completed: 25% through a draft, 5% without one; requests without a session 10% of
 * the sessions; 1,000 requests from before), in n8n-core in process against the sandbox with the
 * contract's real limit (1 request per second per key). Every completed session's `request` is checked
 * against the sandbox's data.
 *
 * The minimum counted is the session pages (ceil(n/100)) plus the pages of the request list that span
 * the completed sessions' requests; the target is at most 3 calls more. The version before the join
 * (one Get request per completed session) runs the same row.
 *
 * Usage: node scripts/ts-run.js bench/row-main.ts include 1000
 *        `npm run bench -- --only=funnel` runs the 1,000 and 10,000 rows.
 */
import type { IDataObject } from 'n8n-workflow';

import { playBookingActivity } from '../harness/bookingActivity';
import { createHarness } from '../harness/inProcessN8n';
import { acceptedGaps, rateLimitedCount } from '../harness/sandboxGaps';
import { hashKey, sortRequests, startSandbox } from '../sandbox';
import type { RowResult } from './rowResult';

const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const HISTORY = 1_000;

export async function includeRequestRow(n: number): Promise<RowResult> {
	const sandbox = await startSandbox({ sizes: { requests: 0, sessions: 0 } });
	try {
		const activity = playBookingActivity(sandbox, { sessions: n, history: HISTORY });
		const ws = sandbox.workspace();
		const completed = ws.sessions.filter((session) => session.request_id !== null);
		const positions = new Map(sortRequests(ws.requests).map((request, index) => [request.id, index]));
		const at = completed.map((session) => positions.get(session.request_id as string) as number);
		const spanned = Math.floor(Math.max(...at) / 100) - Math.floor(Math.min(...at) / 100) + 1;
		const sessionPages = Math.ceil(ws.sessions.length / 100);

		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const started = performance.now();
		const result = await harness.runAction({ resource: 'bookingSession', operation: 'getAll', returnAll: true, simplify: false, options: { includeRequest: true } });
		const seconds = (performance.now() - started) / 1000;
		if (result.error) throw result.error;
		if (result.items.length !== ws.sessions.length) throw new Error(`expected ${ws.sessions.length} sessions, got ${result.items.length}`);
		const requests = new Map(ws.requests.map((request) => [request.id, JSON.parse(JSON.stringify(request)) as IDataObject]));
		for (const { json } of result.items) {
			if (typeof json.request_id !== 'string') continue;
			if (JSON.stringify(json.request) !== JSON.stringify(requests.get(json.request_id))) throw new Error(`session ${String(json.id)}: wrong request attached`);
		}

		const key = hashKey(sandbox.keys.demo);
		const calls = sandbox.log.filter((entry) => entry.keyHash === key);
		const count = (test: (path: string) => boolean) => calls.filter((entry) => test(entry.path)).length;
		const sessionCalls = count((path) => path === '/api/v1/abandoned-sessions');
		const listReads = count((path) => path === '/api/v1/requests');
		const gets = count((path) => path.startsWith('/api/v1/requests/'));
		const gaps = acceptedGaps(sandbox.log, key);
		const minCalls = sessionPages + spanned;
		return {
			row: `Get Many sessions, Return All of ${n.toLocaleString('en-US')} with Include Booking Request (${completed.length.toLocaleString('en-US')} completed)`,
			items: ws.sessions.length,
			calls: calls.length,
			minCalls,
			seconds,
			minSeconds: minCalls - 1,
			rateLimited: rateLimitedCount(sandbox.log, key),
			minGapMs: gaps.length ? Math.min(...gaps) : null,
			peakRssMb: peakRssMb(),
			note:
				`minimum = ${sessionPages} session pages + ${spanned} request pages spanned (target ≤ ${minCalls + 3}); ` +
				`calls: ${sessionCalls} session list, ${listReads} request list, ${gets} Get request; ` +
				`${activity.completed.size} completed of ${activity.sessions.length} sessions, ${ws.requests.length.toLocaleString('en-US')} requests`,
		};
	} finally {
		await sandbox.close();
	}
}
