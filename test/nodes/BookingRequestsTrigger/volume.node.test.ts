/**
 * The trigger at volume in n8n-core's real PollContext (harness/inProcessN8n.ts) against the
 * sandbox API: 10,000 drafts within one delay, a 1,000-row bulk import with one timestamp, and a
 * backlog drained under a short poll budget (the context's getPollBudgetMs). For CI time the sandbox
 * runs with a 25 ms rate gap and the client paces to match (setPacingGapForTests); the real 1 s limit
 * is kept by the other trigger suites. Each test prints expected vs emitted events, polls, the longest
 * poll against its budget, and the state size.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { GAP_MS, setPacingGapForTests } from '../../../harness/limiterSettings';
import { eventTime } from '../../../harness/backlogDrain';
import { createHarness } from '../../../harness/inProcessN8n';
import type { Harness, PollState } from '../../../harness/inProcessN8n';
import { startSandbox } from '../../../sandbox';
import type { Sandbox } from '../../../sandbox';
import { NODE_DATA_KEY } from './trigger';
import { printFigures } from '../../support/figures';

jest.setTimeout(600_000);

const MIN = 60_000;
const SANDBOX_GAP_MS = 25;
const CLIENT_GAP_MS = 30;

let sandbox: Sandbox;
let harness: Harness;

beforeAll(() => setPacingGapForTests(CLIENT_GAP_MS));
afterAll(() => setPacingGapForTests(GAP_MS));
beforeEach(async () => {
	sandbox = await startSandbox({ minGapMs: SANDBOX_GAP_MS, sizes: { requests: 40, sessions: 40 } });
	harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
});
afterEach(async () => {
	expect(sandbox.stats().rateLimited).toBe(0);
	await sandbox.close();
});

interface Run {
	events: IDataObject[];
	polls: number;
	longestMs: number;
	maxStateBytes: number;
	calls: number;
}

async function poll(parameters: INodeParameters, state: PollState, run: Run, budgetMs: number): Promise<IDataObject[]> {
	const logStart = sandbox.log.length;
	const started = performance.now();
	// Engine figures on raw items (the simplified shape is tested in items.unit.test.ts and simplified.test.ts).
	const result = await harness.poll({ simplify: false, ...parameters }, state, 'trigger', { budgetMs });
	const took = performance.now() - started;
	state.staticData = JSON.parse(JSON.stringify(state.staticData)) as IDataObject;
	run.polls++;
	run.calls += sandbox.log.length - logStart;
	run.longestMs = Math.max(run.longestMs, took);
	const stored = (state.staticData[NODE_DATA_KEY] as IDataObject | undefined)?.bookingRequestsTrigger;
	run.maxStateBytes = Math.max(run.maxStateBytes, JSON.stringify(stored ?? {}).length);
	const items = result ? result[0].map((item) => item.json) : [];
	run.events.push(...items);
	return items;
}

function checkOnceInOrder(events: IDataObject[]): void {
	const ids = events.map((event) => String(event.event_id));
	expect(ids.length - new Set(ids).size).toBe(0);
}

function report(label: string, expected: number, run: Run, budgetMs: number) {
	printFigures(
		`[trigger volume, n8n PollContext] ${label}: expected ${expected} events, emitted ${run.events.length}; ${run.polls} polls, ` +
			`${run.calls} calls; longest poll ${(run.longestMs / 1000).toFixed(1)} s of a ${(budgetMs / 1000).toFixed(0)} s budget; ` +
			`max state ${run.maxStateBytes} bytes`,
	);
}

const newRun = (): Run => ({ events: [], polls: 0, longestMs: 0, maxStateBytes: 0, calls: 0 });

test('10,000 drafts within one 30-minute delay, a poll every minute (budget 36 s): each abandoned session once', async () => {
	const budgetMs = 36_000;
	const parameters = { events: ['sessionAbandoned', 'sessionCompleted'], abandonedAfterMinutes: 30 };
	const state: PollState = { staticData: {} };
	const run = newRun();
	await poll(parameters, state, run, budgetMs);
	const started = new Set<string>();
	for (let minute = 0; minute < 65; minute++) {
		if (minute < 25) {
			for (let i = 0; i < 400; i++) {
				sandbox.clock.advance(150);
				started.add(sandbox.startSession().id);
			}
		} else sandbox.clock.advance(MIN);
		await poll(parameters, state, run, budgetMs);
	}
	checkOnceInOrder(run.events);
	expect(run.events.filter((event) => event.event === 'session.abandoned')).toHaveLength(10_000);
	expect(new Set(run.events.map((event) => String(event.id)))).toEqual(started);
	expect(run.longestMs).toBeLessThan(budgetMs);
	report('10,000 drafts within one delay', 10_000, run, budgetMs);
});

test('a bulk import of 1,000 requests with one created_at: 1,000 events once, nothing again', async () => {
	const budgetMs = 36_000;
	const parameters = { events: ['requestCreated'] };
	const state: PollState = { staticData: {} };
	const run = newRun();
	await poll(parameters, state, run, budgetMs);
	sandbox.clock.advance(MIN);
	const at = new Date(sandbox.clock.now()).toISOString();
	const imported = Array.from({ length: 1000 }, () => sandbox.addRequest({ created_at: at }).id);
	sandbox.clock.advance(MIN);
	const first = await poll(parameters, state, run, budgetMs);
	expect(first.map((item) => String(item.id)).sort()).toEqual([...imported].sort());
	for (let i = 0; i < 3; i++) {
		sandbox.clock.advance(MIN);
		expect(await poll(parameters, state, run, budgetMs)).toEqual([]);
	}
	checkOnceInOrder(run.events);
	report('1,000-row bulk import, one created_at', 1000, run, budgetMs);
});

test('a backlog over five times the budget (all three events), drained under a 6 s budget: each event once, oldest first, every poll within budget', async () => {
	const budgetMs = 6_000;
	// ~110 ms a call: about 18 calls fit in this budget (6 s − 2 s margin − 2 s for the last call).
	setPacingGapForTests(110);
	const parameters = { events: ['sessionAbandoned', 'sessionCompleted', 'requestCreated'], abandonedAfterMinutes: 30 };
	const state: PollState = { staticData: {} };
	const run = newRun();
	await poll(parameters, state, run, budgetMs);
	// n8n was down for 3 hours: 6,000 requests and 2,400 sessions (1 in 4 completed).
	const expected = new Set<string>();
	for (let i = 0; i < 2400; i++) {
		sandbox.clock.advance(4500);
		const session = sandbox.startSession();
		if (i % 4 === 0) {
			const { request } = sandbox.completeSession(session.id);
			expected.add(`session.completed:${session.id}:${request.id}`);
			expected.add(`request.created:${request.id}`);
		} else expected.add(`session.abandoned:${session.id}:${Date.parse(session.updated_at!)}`);
		const request = sandbox.addRequest();
		expected.add(`request.created:${request.id}`);
		if (i % 2 === 0) expected.add(`request.created:${sandbox.addRequest().id}`);
	}
	sandbox.clock.advance(31 * MIN);
	// Poll until a quiet poll: nothing found, and one call per list (every window caught up).
	const perPoll: number[] = [];
	for (let i = 0; i < 60; i++) {
		const calls = run.calls;
		const items = await poll(parameters, state, run, budgetMs);
		perPoll.push(items.length);
		if (items.length === 0 && run.calls - calls === 2) break;
		sandbox.clock.advance(10_000);
	}
	printFigures(`[trigger volume] backlog: events per poll ${perPoll.join(', ')}`);
	checkOnceInOrder(run.events);
	const at = (event: IDataObject) => eventTime(event, 30 * MIN);
	for (let i = 1; i < run.events.length; i++) expect(at(run.events[i])).toBeGreaterThanOrEqual(at(run.events[i - 1]));
	expect(new Set(run.events.map((event) => String(event.event_id)))).toEqual(expected);
	expect(run.longestMs).toBeLessThan(budgetMs);
	// The backlog (96 pages at least) needs more than five polls' worth of calls.
	expect(run.polls).toBeGreaterThanOrEqual(6);
	setPacingGapForTests(CLIENT_GAP_MS);
	report('backlog of 3 h under a 6 s budget', expected.size, run, budgetMs);
});
