/**
 * Benchmark rows of Booking Session → Get Many (run through row-main.ts, like the other in-process
 * rows): Return All of `n` sessions of a month (30% completed: 25% through a draft, 5% without one;
 * requests without a session 10% of the sessions), alone or with Include Booking Request (1,000
 * requests from before besides), in n8n-core in process against the sandbox with the contract's real
 * limit (1 request per second per key). Two sessions have no `updated_at` (the contract allows it),
 * and the sandbox sorts them first or last (`nulls`, a choice the contract leaves open). Every
 * completed session's `request` is checked against the sandbox's data.
 *
 * The minimum counted is taken from the sandbox's own data, never from the code measured: the session
 * pages (at the page size the sandbox answers), plus for Include Booking Request the pages of the
 * request list that span the completed sessions' requests. The targets: Return All of sessions its
 * pages + 1 (the check of the top), with Include Booking Request the pages of both lists + 3.
 *
 * Usage: node scripts/ts-run.js bench/row-main.ts include 1000          (nulls first)
 *        node scripts/ts-run.js bench/row-main.ts includeNullsLast 1000
 *        node scripts/ts-run.js bench/row-main.ts sessions 600          (nulls first; sessionsNullsLast)
 *        `npm run bench -- --only=funnel` runs them all.
 */
import type { IDataObject } from 'n8n-workflow';

import { playBookingActivity, type BookingActivity } from '../harness/bookingActivity';
import { createHarness } from '../harness/inProcessN8n';
import { acceptedGaps, rateLimitedCount } from '../harness/sandboxGaps';
import { hashKey, startSandbox, type Sandbox, type SandboxChoices } from '../sandbox';
import type { RowResult } from './rowResult';

const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const HISTORY = 1_000;
/** Sessions without `updated_at` in each world. */
const NULL_SESSIONS = 2;

type Nulls = SandboxChoices['nulls'];

interface World {
	sandbox: Sandbox;
	activity: BookingActivity;
	/** Session pages at the page size the sandbox answers. */
	sessionPages: number;
}

/**
 * A month of booking activity on an empty sandbox, then two abandoned sessions lose their
 * `updated_at` (written into the sandbox's live storage: legacy rows, as the contract allows).
 */
async function world(n: number, nulls: Nulls, history: number): Promise<World> {
	const sandbox = await startSandbox({ sizes: { requests: 0, sessions: 0 }, choices: { nulls } });
	const activity = playBookingActivity(sandbox, { sessions: n, history });
	const abandoned = sandbox.workspace().sessions.filter((session) => session.request_id === null);
	for (let i = 1; i <= NULL_SESSIONS; i++) abandoned[Math.floor((i * abandoned.length) / (NULL_SESSIONS + 1))].updated_at = null;
	const perPage = Math.min(100, sandbox.choices().maxPerPage.sessions);
	return { sandbox, activity, sessionPages: Math.ceil(sandbox.workspace().sessions.length / perPage) };
}

/** The request-list pages (at 100) from the first to the last that holds a completed session's request. */
function requestPagesSpanned(sandbox: Sandbox): number {
	const positions = new Map(sandbox.ordered('requests').map((request, index) => [request.id, index]));
	const at = sandbox
		.workspace()
		.sessions.filter((session) => session.request_id !== null)
		.map((session) => positions.get(session.request_id as string) as number);
	const perPage = Math.min(100, sandbox.choices().maxPerPage.requests);
	return Math.floor(Math.max(...at) / perPage) + 1;
}

function callsOf(sandbox: Sandbox) {
	const key = hashKey(sandbox.keys.demo);
	const calls = sandbox.log.filter((entry) => entry.keyHash === key);
	const count = (test: (path: string) => boolean) => calls.filter((entry) => test(entry.path)).length;
	const gaps = acceptedGaps(sandbox.log, key);
	return {
		all: calls.length,
		sessions: count((path) => path === '/api/v1/abandoned-sessions'),
		lists: count((path) => path === '/api/v1/requests'),
		gets: count((path) => path.startsWith('/api/v1/requests/')),
		rateLimited: rateLimitedCount(sandbox.log, key),
		minGapMs: gaps.length ? Math.min(...gaps) : null,
	};
}

export async function sessionsReturnAllRow(n: number, nulls: Nulls = 'first'): Promise<RowResult> {
	const { sandbox, sessionPages } = await world(n, nulls, 0);
	try {
		const ws = sandbox.workspace();
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const started = performance.now();
		const result = await harness.runAction({ resource: 'bookingSession', operation: 'getAll', returnAll: true, simplify: false });
		const seconds = (performance.now() - started) / 1000;
		if (result.error) throw result.error;
		const ids = new Set(result.items.map((item) => item.json.id));
		if (ids.size !== ws.sessions.length || ws.sessions.some((session) => !ids.has(session.id))) throw new Error(`expected the ${ws.sessions.length} sessions once each`);
		const calls = callsOf(sandbox);
		return {
			row: `Get Many sessions, Return All of ${ws.sessions.length.toLocaleString('en-US')} (${NULL_SESSIONS} without updated_at, sorted ${nulls})`,
			items: ws.sessions.length,
			calls: calls.all,
			minCalls: sessionPages,
			seconds,
			minSeconds: sessionPages - 1,
			rateLimited: calls.rateLimited,
			minGapMs: calls.minGapMs,
			peakRssMb: peakRssMb(),
			note: `minimum = ${sessionPages} session pages (target ${sessionPages + 1}: the check of the top)`,
		};
	} finally {
		await sandbox.close();
	}
}

export async function includeRequestRow(n: number, nulls: Nulls = 'first'): Promise<RowResult> {
	const { sandbox, activity, sessionPages } = await world(n, nulls, HISTORY);
	try {
		const ws = sandbox.workspace();
		const completed = ws.sessions.filter((session) => session.request_id !== null);
		const spanned = requestPagesSpanned(sandbox);

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

		const calls = callsOf(sandbox);
		const minCalls = sessionPages + spanned;
		return {
			row: `Get Many sessions, Return All of ${n.toLocaleString('en-US')} with Include Booking Request (${completed.length.toLocaleString('en-US')} completed; ${NULL_SESSIONS} without updated_at, sorted ${nulls})`,
			items: ws.sessions.length,
			calls: calls.all,
			minCalls,
			seconds,
			minSeconds: minCalls - 1,
			rateLimited: calls.rateLimited,
			minGapMs: calls.minGapMs,
			peakRssMb: peakRssMb(),
			note:
				`minimum = ${sessionPages} session pages + ${spanned} request pages spanned (target ≤ ${minCalls + 3}); ` +
				`calls: ${calls.sessions} session list, ${calls.lists} request list, ${calls.gets} Get request; ` +
				`${activity.completed.size} completed of ${activity.sessions.length} sessions, ${ws.requests.length.toLocaleString('en-US')} requests`,
		};
	} finally {
		await sandbox.close();
	}
}
