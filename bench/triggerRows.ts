/**
 * Benchmark row of the trigger (child-process entry, like row-main.ts: prints its RowResult list as
 * JSON on the last line): a backlog of changes — n8n was down while customers kept booking and leaving
 * — drained by polls in n8n-core's real PollContext with n8n's durable-scheduler budget of 36 s, against
 * the sandbox with the contract's real limit (1 request per second per key).
 *
 * The physical minimum counted: every page of the three windows the backlog fills (new requests; the
 * sessions for completions; the same sessions again, a delay later, for abandonments), since events
 * come oldest first and the two session windows sit a delay apart in the list.
 *
 * All three events and Skip Customers Who Booked on (the node's version 1.1 default), so the request
 * list serves New Request and the bookings the skip checks in the same reads (issue 22 item 7).
 *
 * Usage: node scripts/ts-run.js bench/triggerRows.ts backlog <sessions>   (requests: 2 per session)
 *        `npm run bench -- --only=trigger` runs only this row and prints its figures.
 */
import type { IDataObject } from 'n8n-workflow';

import { createHarness } from '../test/support/inProcessN8n';
import type { PollState } from '../test/support/inProcessN8n';
import { acceptedGaps, rateLimitedCount } from '../test/support/sandboxGaps';
import { hashKey, sortRequests, startSandbox } from '../test/sandbox';
import type { RowResult } from './rows';

const BUDGET_MS = 36_000;
const MIN = 60_000;
const ceil100 = (n: number) => Math.ceil(n / 100);
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

export async function triggerBacklogRow(sessions: number): Promise<RowResult> {
	const sandbox = await startSandbox({ sizes: { requests: 50, sessions: 50 } });
	try {
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const parameters = { events: ['sessionAbandoned', 'sessionCompleted', 'requestCreated'], abandonedAfterMinutes: 30, skipIfBooked: true };
		const state: PollState = { staticData: {} };
		await harness.poll(parameters, state, 'trigger', { budgetMs: BUDGET_MS, typeVersion: 1.1 }); // activation: baseline

		// The backlog: `sessions` customers over 3 hours, 1 in 3 books; as many requests again arrive directly.
		let expected = 0;
		let requests = 0;
		// Every customer distinct (the sandbox's random people share phone numbers now and then, and Skip
		// Customers Who Booked would rightly leave their reminders out).
		const digits = (i: number) => String(i).padStart(7, '0');
		for (let i = 0; i < sessions; i++) {
			sandbox.clock.advance(Math.floor((3 * 60 * MIN) / sessions));
			const session = sandbox.startSession({ contact: { email: `draft-${i}@example.com`, phone: `+1512${digits(i)}` } });
			if (i % 3 === 0) {
				sandbox.completeSession(session.id);
				expected += 2; // the completion and its request
				requests++;
			} else expected++; // the abandonment
			sandbox.addRequest({ email: `direct-${i}@example.com`, phone: `+1737${digits(i)}` });
			requests++;
			expected++;
		}
		sandbox.clock.advance(31 * MIN);
		sandbox.clearLog();

		const ids = new Set<string>();
		let events = 0;
		let polls = 0;
		let longest = 0;
		let seconds = 0;
		let stateBytes = 0;
		for (let quiet = false; !quiet && polls < 200; polls++) {
			const calls = sandbox.log.length;
			const started = performance.now();
			const result = await harness.poll(parameters, state, 'trigger', { budgetMs: BUDGET_MS, typeVersion: 1.1 });
			const took = (performance.now() - started) / 1000;
			seconds += took;
			longest = Math.max(longest, took);
			state.staticData = JSON.parse(JSON.stringify(state.staticData)) as IDataObject;
			const stored = (state.staticData['node:Booking Requests Trigger'] as IDataObject | undefined)?.bookingRequestsTrigger;
			stateBytes = Math.max(stateBytes, JSON.stringify(stored ?? {}).length);
			const items = result ? result[0] : [];
			for (const item of items) ids.add(String(item.json.event_id));
			events += items.length;
			quiet = items.length === 0 && sandbox.log.length - calls === 2;
		}
		if (ids.size !== expected || events !== expected) throw new Error(`expected ${expected} events once each, got ${events} (${ids.size} distinct)`);
		const minCalls = ceil100(requests) + 2 * ceil100(sessions);
		const gaps = acceptedGaps(sandbox.log, hashKey(sandbox.keys.demo));
		return {
			row: `Trigger: backlog of ${expected.toLocaleString('en-US')} events drained under a 36 s poll budget (Skip Customers Who Booked on)`,
			items: events,
			calls: sandbox.log.length,
			minCalls,
			seconds,
			minSeconds: minCalls - 1,
			rateLimited: rateLimitedCount(sandbox.log, hashKey(sandbox.keys.demo)),
			minGapMs: gaps.length ? Math.min(...gaps) : null,
			peakRssMb: peakRssMb(),
			note: `${polls} polls (the last one quiet), longest poll ${longest.toFixed(1)} s of 36 s, every event once; state at most ${stateBytes.toLocaleString('en-US')} bytes; minimum = pages of the 3 windows`,
		};
	} finally {
		await sandbox.close();
	}
}

/**
 * Request Updated over a watched range of `window` requests (issue 26), New Request and Request
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
		name === 'backlog' ? triggerBacklogRow(Number(arg)) : name === 'updates' ? triggerUpdatesRow(Number(arg)) : Promise.reject(new Error(`unknown trigger row ${name}`));
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
