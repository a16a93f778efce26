/**
 * Issue 8, fault matrix for the trigger: the same scripted scenario under each fault (n8n's real
 * PollContext, static data persisted as JSON between polls) emits each expected event exactly once.
 * Expected events are derived from the sandbox's own data, not from the trigger's rules.
 */
import type { IDataObject } from 'n8n-workflow';

import { createHarness } from '../../harness/inProcessN8n';
import type { Harness } from '../../harness/inProcessN8n';
import type { MalformedKind, Sandbox } from '../../sandbox';
import { hashKey, startSandbox } from '../../sandbox';
import { TriggerRun } from '../nodes/BookingRequestsTrigger/trigger';
import { FAULT_MATRIX, SIZES, duplicatesIn } from './helpers';
import { pacing429s, withoutOwn429s } from '../support/pacing429';
import { printFigures } from '../support/figures';

const MIN = 60_000;
const DELAY_MIN = 30;
const EVENTS = ['sessionAbandoned', 'sessionCompleted', 'requestCreated'];

let sandbox: Sandbox;
let harness: Harness;

beforeAll(async () => {
	sandbox = await startSandbox({ sizes: SIZES });
	harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
});
afterAll(async () => await sandbox.close());
beforeEach(() => {
	sandbox.setFaults({});
	sandbox.clearLog();
	// Whatever an earlier scenario left active is long idle before the next baseline.
	sandbox.clock.advance(3 * DELAY_MIN * MIN);
});

const activityOf = (session: { updated_at: string | null; created_at: string | null }) =>
	Date.parse(session.updated_at ?? session.created_at ?? '') || null;

/** Activity time of every open (request_id null) session right now. */
function openActivity(): Map<string, number | null> {
	return new Map(sandbox.workspace().sessions.filter((s) => s.request_id === null).map((s) => [s.id, activityOf(s)]));
}

const eventIdsOf = (items: IDataObject[] | null) => (items ?? []).map((item) => String(item.event_id));

interface Scenario {
	/** Every event emitted, in order, across the polls after the baseline. */
	emitted: string[];
	perPoll: string[][];
	mustAbandoned: Set<string>;
	mayAbandoned: Set<string>;
	completedOrCreated: string[];
	calls: number;
}

/**
 * With the faults on from the start: the baseline; then customers: two sessions left open, one
 * completed, a booking without a draft, two direct requests; poll 1; the clock jumps past the delay;
 * polls 2 and 3 (8 calls at least, so every fault of the matrix happens).
 */
async function runScenario(faults: Parameters<Sandbox['setFaults']>[0]): Promise<Scenario> {
	const run = new TriggerRun(harness, sandbox, { events: EVENTS, abandonedAfterMinutes: DELAY_MIN });
	const t0 = sandbox.clock.now();
	const beforeBaseline = openActivity();
	sandbox.setFaults(faults);
	const logStart = sandbox.log.length;
	expect((await run.poll()).items).toBeNull();

	sandbox.startSession();
	sandbox.startSession();
	const c = sandbox.startSession();
	const { request: rc } = sandbox.completeSession(c.id);
	const { session: placeholder, request: rp } = sandbox.bookWithoutDraft();
	const r1 = sandbox.addRequest();
	const r2 = sandbox.addRequest();
	const completedOrCreated = [
		`session.completed:${c.id}:${rc.id}`,
		`session.completed:${placeholder.id}:${rp.id}`,
		...[rc, rp, r1, r2].map((request) => `request.created:${request.id}`),
	];

	const perPoll: string[][] = [];
	perPoll.push(eventIdsOf((await run.poll()).items));
	const afterPoll1 = openActivity();
	const tJump = sandbox.clock.now();
	sandbox.clock.advance((DELAY_MIN + 1) * MIN);
	perPoll.push(eventIdsOf((await run.poll()).items));
	const afterPoll2 = openActivity();
	perPoll.push(eventIdsOf((await run.poll()).items));
	const calls = sandbox.log.length - logStart;
	sandbox.setFaults({});

	// Must be reported abandoned in poll 2: open, last activity since the baseline began (a session
	// churned while the baseline read is watched from then on) and before the jump (so idle for more
	// than the delay), as the sandbox holds it after poll 2. The sandbox commits writes late (its
	// default): a session started just after the baseline may be stamped up to 2 s before t0, so a
	// session new or moved since the baseline began counts by that, whatever its stamp.
	const inWindow = (at: number | null | undefined) => at !== null && at !== undefined && at >= t0 && at <= tJump;
	const movedSinceBaseline = (id: string, at: number | null) => at !== null && at <= tJump && (!beforeBaseline.has(id) || beforeBaseline.get(id) !== at);
	const mustAbandoned = new Set<string>();
	const mayAbandoned = new Set<string>();
	for (const [id, at] of afterPoll2) {
		if (inWindow(at) || movedSinceBaseline(id, at)) mustAbandoned.add(id);
		// Moved again (churn) while poll 2 read its pages: reporting the copy read before the move is fine, once.
		else if (inWindow(afterPoll1.get(id))) mayAbandoned.add(id);
	}
	return { emitted: perPoll.flat(), perPoll, mustAbandoned, mayAbandoned, completedOrCreated, calls };
}

describe('trigger under faults: each expected event exactly once', () => {
	test.each(FAULT_MATRIX)('%s', async (label, faults) => {
		const started = Date.now();
		const scenario = await runScenario(faults);
		const { emitted, perPoll } = scenario;

		expect(duplicatesIn(emitted)).toEqual([]);
		// Completions and new requests: in the first poll after they happened.
		expect([...perPoll[0]].sort()).toEqual([...scenario.completedOrCreated].sort());
		// Abandoned: none before the delay, then exactly the sessions idle past it, in poll 2.
		const abandonedIn = (events: string[]) => events.filter((id) => id.startsWith('session.abandoned:')).map((id) => id.split(':')[1]);
		expect(abandonedIn(perPoll[0])).toEqual([]);
		const reported = new Set(abandonedIn(perPoll[1]));
		for (const id of scenario.mustAbandoned) expect(reported.has(id) ? id : `missing ${id}`).toBe(id);
		for (const id of reported) expect(scenario.mustAbandoned.has(id) || scenario.mayAbandoned.has(id) ? id : `unexpected ${id}`).toBe(id);
		expect(scenario.mustAbandoned.size).toBeGreaterThanOrEqual(2);
		// Poll 3: nothing new happened.
		expect(perPoll[2]).toEqual([]);

		const injected = sandbox.log.filter((entry) => entry.fault).length;
		if (faults.every429 || faults.every500 || faults.dropEvery) expect(injected).toBeGreaterThan(0);
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
		printFigures(
			`[trigger faults] ${label}: ${emitted.length} events (${reported.size} abandoned, ${scenario.mustAbandoned.size} required), ` +
				`${scenario.calls} calls (${injected} faulted), ${((Date.now() - started) / 1000).toFixed(1)} s`,
		);
	});
});

describe('trigger: retries stay bounded, a failed poll does not move the state', () => {
	// (always 429 and dropped connections end the same way: the same apiRequest; see matrix.test.ts)
	test.each([['500', { always: 500 as const }, /failed with 500 internal_server_error after \d+ attempt/]])(
		'a server that always answers %s: the poll fails clearly after 5 attempts; the next good poll still emits the events',
		async (_label, faults, message) => {
		const run = new TriggerRun(harness, sandbox, { events: EVENTS, abandonedAfterMinutes: DELAY_MIN });
		await run.poll();
		const stateBefore = JSON.stringify(run.state.staticData);
		const request = sandbox.addRequest();
		sandbox.setFaults(faults);
		const calls = sandbox.log.length;
		const error = await run.poll().catch((e: unknown) => e as Error);
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toMatch(message);
		// bounded by attempts, not by the clock: the first call's 5 attempts, nothing after it (the API's
		// own 429s left out: a stall of this busy process can bring a paced retry in short of the last
		// one's second; pacing429s judges whether the pacing caused any)
		expect(withoutOwn429s(sandbox.log.slice(calls))).toHaveLength(5);
		expect((error as Error).message).toContain(`after ${sandbox.log.length - calls} attempt`);
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
		expect(JSON.stringify(run.state.staticData)).toBe(stateBefore);
		sandbox.setFaults({});
		expect(eventIdsOf((await run.poll()).items)).toEqual([`request.created:${request.id}`]);
		},
	);
});

describe('trigger: answers that break the contract', () => {
	// Each kind on the poll after the baseline: the poll either fails clearly (and the next clean poll
	// delivers the events) or emits the right events; never silently nothing.
	// (the other failing kinds go through the same apiRequest checks as html; see malformed.test.ts)
	const KINDS: MalformedKind[] = ['html', 'duplicateIds', 'wrongTotal', 'missingTotal', 'oversizedPage'];

	test.each(KINDS)('%s: a clear error or the right events, and every event exactly once', async (kind) => {
		const run = new TriggerRun(harness, sandbox, { events: ['requestCreated'] });
		await run.poll();
		const requests = [sandbox.addRequest(), sandbox.addRequest(), sandbox.addRequest()];
		const expected = requests.map((request) => `request.created:${request.id}`).sort();
		sandbox.setFaults({ malformed: kind });
		const first = await run.poll().then(
			(outcome) => ({ events: eventIdsOf(outcome.items), error: undefined }),
			(error: Error) => ({ events: [] as string[], error }),
		);
		sandbox.setFaults({});
		const second = eventIdsOf((await run.poll()).items);
		if (first.error) {
			expect(first.error.message).toMatch(/instead of the API's JSON|does not match the Booking Requests API contract/);
			expect(second.sort()).toEqual(expected);
		} else {
			expect([...first.events, ...second].sort()).toEqual(expected);
		}
	});

	// The trigger reads epoch-ms timestamps as times (shared/utils.ts timestampMs), so the events still come.
	test('wrongTypes (created_at as epoch ms): the new requests are reported, not silently dropped', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['requestCreated'] });
		await run.poll();
		const requests = [sandbox.addRequest(), sandbox.addRequest()];
		sandbox.setFaults({ malformed: 'wrongTypes' });
		const outcome = await run.poll().then(
			(result) => ({ events: eventIdsOf(result.items), error: undefined }),
			(error: Error) => ({ events: [] as string[], error }),
		);
		sandbox.setFaults({});
		if (outcome.error) expect(outcome.error.message).toMatch(/does not match the Booking Requests API contract/);
		else expect(outcome.events.sort()).toEqual(requests.map((request) => `request.created:${request.id}`).sort());
	});
});

describe('trigger: Base URL refused', () => {
	test('http:// to a remote host: the poll fails before anything is sent', async () => {
		const remote = createHarness({ apiKey: sandbox.keys.demo, baseUrl: 'http://api.example.com' });
		const run = new TriggerRun(remote, sandbox, { events: EVENTS });
		await expect(run.poll()).rejects.toThrow('Refusing to send the API key over plain http:// to a remote host');
		expect(sandbox.log).toHaveLength(0);
	});
});
