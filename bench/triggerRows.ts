/**
 * Benchmark rows of the trigger (child-process entry, like row-main.ts: prints its RowResult list as
 * JSON on the last line), in n8n-core's real PollContext with n8n's durable-scheduler budget of 36 s,
 * against the sandbox with the contract's real limit (1 request per second per key):
 * - `shape <name>`: a backlog of changes — n8n was down while customers kept booking and leaving —
 *   drained (the shapes of harness/backlogShapes.ts, which also says what the minimum
 *   counts: the pages the rules need). All three events and Skip Customers Who Booked on (the node's
 *   version 1.1 default), so the request list serves New Request and the skip in the same reads.
 * - `updates <window>`: Request Updated over a watched range.
 *
 * Usage: node scripts/ts-run.js bench/triggerRows.ts shape idleDrafts
 *        `npm run bench -- --only=trigger` runs only these rows and prints their figures.
 */
import type { IDataObject } from 'n8n-workflow';

import { countsOf, drainOverHttp } from '../harness/backlogDrain';
import { drainTable, pagesNeeded, SHAPES, totalEvents } from '../harness/backlogShapes';
import { createHarness } from '../harness/inProcessN8n';
import type { PollState } from '../harness/inProcessN8n';
import { acceptedGaps, rateLimitedCount } from '../harness/sandboxGaps';
import { hashKey, sortRequests, startSandbox } from '../sandbox';
import type { RowResult } from './rows';

const BUDGET_MS = 36_000;
const ceil100 = (n: number) => Math.ceil(n / 100);
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

/**
 * A backlog shape (harness/backlogShapes.ts: `bench`, `completed`, `retarget`,
 * `idleDrafts`) drained at the contract's real 1 request/s under n8n's 36 s budget: calls for the
 * pages the rules need, polls, the longest poll and each poll's calls. The same loop as the cost test
 * over HTTP (harness/backlogDrain.ts), which runs it at a shorter rate gap.
 */
export async function triggerShapeRow(name: string): Promise<RowResult> {
	const shape = SHAPES.find((candidate) => candidate.name === name);
	if (!shape) throw new Error(`unknown backlog shape ${name}`);
	const sandbox = await startSandbox({ sizes: { requests: 0, sessions: 0 } });
	try {
		const drain = await drainOverHttp(sandbox, shape, BUDGET_MS);
		const ids = new Set(drain.emitted.map((item) => String(item.event_id)));
		const counts = countsOf(drain.emitted);
		if (ids.size !== drain.emitted.length || JSON.stringify(counts) !== JSON.stringify(shape.events)) {
			throw new Error(`${shape.name}: expected ${JSON.stringify(shape.events)} once each, got ${JSON.stringify(counts)} (${ids.size} distinct)`);
		}
		const drainPolls = drain.polls.slice(0, -1);
		const longest = Math.max(...drainPolls.map((poll) => poll.seconds));
		const gaps = acceptedGaps(sandbox.log, hashKey(sandbox.keys.demo));
		process.stderr.write(`${shape.name}\n${drainTable(drain)}\n`);
		return {
			row: `Trigger backlog, ${shape.label} (${totalEvents(shape).toLocaleString('en-US')} events)`,
			items: drain.emitted.length,
			calls: drain.calls,
			minCalls: pagesNeeded(shape),
			seconds: drainPolls.reduce((sum, poll) => sum + poll.seconds, 0),
			minSeconds: pagesNeeded(shape) - 1,
			rateLimited: rateLimitedCount(sandbox.log, hashKey(sandbox.keys.demo)),
			minGapMs: gaps.length ? Math.min(...gaps) : null,
			peakRssMb: peakRssMb(),
			note: `${drainPolls.length} polls (calls ${drainPolls.map((poll) => poll.calls).join(', ')}) + a quiet one (${drain.polls.at(-1)?.calls} calls), longest poll ${longest.toFixed(1)} s of 36 s, every event once; state at most ${drain.stateBytes.toLocaleString('en-US')} bytes; minimum = the pages the rules need (backlogShapes.ts)`,
		};
	} finally {
		await sandbox.close();
	}
}

/**
 * Request Updated over a watched range of `window` requests, New Request and Request
 * Updated selected, at the contract's 1 request/s and a 36 s budget. After the first read and one
 * warm cycle, one request on every watched page is changed right after a poll; the row counts the
 * polls until the last change is reported (the longest delay: a page read just before its change
 * waits a whole cycle), the calls per poll and the state's size. Minimum: each watched page read once.
 */
export async function triggerUpdatesRow(window: number): Promise<RowResult> {
	const sandbox = await startSandbox({ sizes: { requests: window + 100, sessions: 5, forms: 2 } });
	try {
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const parameters = { events: ['requestCreated', 'requestUpdated'], options: { watchNewest: window } };
		const state: PollState = { staticData: {} };
		const poll = async () => {
			const before = sandbox.log.length;
			const started = performance.now();
			const result = await harness.poll(parameters, state, 'trigger', { budgetMs: BUDGET_MS, typeVersion: 1.1 });
			state.staticData = JSON.parse(JSON.stringify(state.staticData)) as IDataObject;
			return { items: result ? result[0].map((item) => item.json) : [], calls: sandbox.log.length - before, seconds: (performance.now() - started) / 1000 };
		};
		const pages = ceil100(window);
		const cycle = Math.max(1, Math.ceil((pages - 1) / 10));
		await poll(); // activation: remembers the range read
		for (let i = 0; i < cycle; i++) await poll(); // one warm cycle: every watched page read
		sandbox.clearLog();

		const list = sortRequests(sandbox.workspace().requests);
		const changed = new Set<string>();
		for (let page = 0; page < pages; page++) {
			const target = list[page * 100]; // the newest request of each watched page
			sandbox.updateRequest(target.id, { lead_status: 'contacted-bench' });
			changed.add(target.id);
		}
		const reported = new Set<string>();
		let polls = 0;
		let maxCalls = 0;
		let longest = 0;
		let seconds = 0;
		while (reported.size < changed.size && polls < cycle + 3) {
			const outcome = await poll();
			polls++;
			maxCalls = Math.max(maxCalls, outcome.calls);
			longest = Math.max(longest, outcome.seconds);
			seconds += outcome.seconds;
			for (const item of outcome.items) if (item.event === 'request.updated') reported.add(String(item.id));
		}
		if (reported.size !== changed.size) throw new Error(`${changed.size - reported.size} changes not reported after ${polls} polls`);
		const stored = (state.staticData['node:Booking Requests Trigger'] as IDataObject | undefined)?.bookingRequestsTrigger as IDataObject | undefined;
		const updatesBytes = JSON.stringify(stored?.updates ?? {}).length;
		const gaps = acceptedGaps(sandbox.log, hashKey(sandbox.keys.demo));
		return {
			row: `Trigger: Request Updated over the newest ${window.toLocaleString('en-US')} requests (a change on every watched page)`,
			items: reported.size,
			calls: sandbox.log.length,
			minCalls: pages,
			seconds,
			minSeconds: pages - 1,
			rateLimited: rateLimitedCount(sandbox.log, hashKey(sandbox.keys.demo)),
			minGapMs: gaps.length ? Math.min(...gaps) : null,
			peakRssMb: peakRssMb(),
			note: `at most ${maxCalls} calls a poll (longest ${longest.toFixed(1)} s of 36 s); every change reported within ${polls} poll${polls === 1 ? '' : 's'} (cycle ${cycle}); Request Updated's state ${updatesBytes.toLocaleString('en-US')} bytes (${(updatesBytes / window).toFixed(0)} per request)`,
		};
	} finally {
		await sandbox.close();
	}
}

if (process.argv[1]?.endsWith('triggerRows.ts')) {
	const [name, arg] = process.argv.slice(2);
	const run =
		name === 'shape' ? triggerShapeRow(arg) : name === 'updates' ? triggerUpdatesRow(Number(arg)) : Promise.reject(new Error(`unknown trigger row ${name}`));
	run
		.then((row) => {
			process.stdout.write(`\n${JSON.stringify([row])}\n`);
			process.exit(0);
		})
		.catch((error: unknown) => {
			console.error(error);
			process.exit(1);
		});
}
