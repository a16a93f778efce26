/**
 * The trigger in n8n's real PollContext (test/harness) against the sandbox API, across sequences of
 * polls with persisted static data. Customers start, save, abandon and complete bookings through the
 * sandbox's control interface; the sandbox clock makes sessions idle without waiting.
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { runningPolls } from '../../../nodes/BookingRequestsTrigger/poll/runningPolls';
import { setRetryRulesForTests } from '../../../harness/limiterSettings';
import { createHarness, TRIGGER_TYPE } from '../../../harness/inProcessN8n';
import type { Harness } from '../../../harness/inProcessN8n';
import { hashKey, startSandbox } from '../../../sandbox';
import type { Sandbox, Session } from '../../../sandbox';
import { eventIds, rl, TriggerRun } from './trigger';
import { pacing429s, withoutOwn429s } from '../../support/pacing429';

jest.setTimeout(180_000);

const MIN = 60_000;
const ALL = ['sessionAbandoned', 'sessionCompleted', 'requestCreated'];
const SESSIONS = '/api/v1/abandoned-sessions';
const REQUESTS = '/api/v1/requests';

const abandonedId = (session: Session) => `session.abandoned:${session.id}:${Date.parse(session.updated_at!)}`;
const completedId = (session: Session) => `session.completed:${session.id}:${session.request_id}`;
const requestId = (id: string) => `request.created:${id}`;

let sandbox: Sandbox;
let harness: Harness;

beforeEach(async () => {
	sandbox = await startSandbox();
	harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
});
afterEach(async () => {
	// The real limit (1 request per second per key) was on for every test: our pacing never hit it.
	expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	await sandbox.close();
});

function byEventId(items: IDataObject[] | null): Record<string, IDataObject> {
	return Object.fromEntries((items ?? []).map((item) => [String(item.event_id), item]));
}

describe('events through n8n, each exactly once', () => {
	test('baseline, abandoned, completed (recovered or not), placeholder and new requests', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ALL });
		const baseline = await run.poll();
		expect(baseline.items).toBeNull();
		expect(baseline.byPath).toEqual({ [SESSIONS]: 1, [REQUESTS]: 1 });

		const a = sandbox.startSession();
		const b = sandbox.startSession();
		const c = sandbox.startSession();
		sandbox.clock.advance(5 * MIN);
		sandbox.saveSession(b.id);
		expect((await run.poll()).items).toBeNull(); // active: watched, not reported

		sandbox.clock.advance(10 * MIN);
		const { request: rc } = sandbox.completeSession(c.id);
		const third = await run.poll();
		expect(eventIds(third.items)).toEqual([completedId(c), requestId(rc.id)].sort());
		const completedC = byEventId(third.items)[completedId(c)];
		expect(completedC).toMatchObject({ id: c.id, request_id: rc.id, event: 'session.completed', recovered: false });
		expect(byEventId(third.items)[requestId(rc.id)]).toEqual({ ...rc, event: 'request.created', event_id: requestId(rc.id) });

		sandbox.clock.advance(21 * MIN); // a: idle 36 min, b: idle 31 min
		const fourth = await run.poll();
		expect(eventIds(fourth.items)).toEqual([abandonedId(a), abandonedId(b)].sort());
		expect(byEventId(fourth.items)[abandonedId(a)]).toEqual({ ...a, event: 'session.abandoned', event_id: abandonedId(a) });

		sandbox.clock.advance(60 * MIN);
		sandbox.saveSession(a.id); // a comes back...
		const { request: ra } = sandbox.completeSession(a.id); // ...and books
		const { session: placeholder, request: rp } = sandbox.bookWithoutDraft();
		const extra = sandbox.addRequest();
		const fifth = await run.poll();
		expect(eventIds(fifth.items)).toEqual(
			[completedId(a), requestId(ra.id), completedId(placeholder), requestId(rp.id), requestId(extra.id)].sort(),
		);
		expect(byEventId(fifth.items)[completedId(a)].recovered).toBe(true);
		expect(byEventId(fifth.items)[completedId(placeholder)]).toMatchObject({ step: 'confirm', data: {}, recovered: false });

		const quiet = await run.poll();
		expect(quiet.items).toBeNull();
		expect(quiet.byPath).toEqual({ [SESSIONS]: 1, [REQUESTS]: 1 });
		sandbox.clock.advance(3 * 60 * MIN);
		expect((await run.poll()).items).toBeNull(); // b stays abandoned: reported once
	});

	test('Only Recovered + Include Booking Request; only the session list is read', async () => {
		const run = new TriggerRun(harness, sandbox, {
			events: ['sessionAbandoned', 'sessionCompleted'],
			options: { onlyRecovered: true, includeRequest: true },
		});
		await run.poll();
		const back = sandbox.startSession();
		const direct = sandbox.startSession();
		sandbox.clock.advance(31 * MIN);
		expect(eventIds((await run.poll()).items)).toEqual([abandonedId(back), abandonedId(direct)].sort());
		sandbox.saveSession(back.id);
		const { request } = sandbox.completeSession(back.id);
		sandbox.bookWithoutDraft(); // not recovered: not reported
		const result = await run.poll();
		expect(eventIds(result.items)).toEqual([completedId(back)]);
		expect(result.items![0].request).toEqual(request);
		expect(result.byPath).toEqual({ [SESSIONS]: 1, '/api/v1/requests/{id}': 1 });
	});

	test('Include Booking Request: taken from the request list when New Request is on (no extra call); null when the request is gone', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionCompleted', 'requestCreated'], options: { includeRequest: true } });
		await run.poll();
		const s = sandbox.startSession();
		const { request } = sandbox.completeSession(s.id);
		const result = await run.poll();
		expect(byEventId(result.items)[completedId(s)].request).toEqual(request);
		expect(result.byPath).toEqual({ [SESSIONS]: 1, [REQUESTS]: 1 });

		// A request that no longer exists (404) does not block the trigger.
		const run2 = new TriggerRun(harness, sandbox, { events: ['sessionCompleted'], options: { includeRequest: true } });
		await run2.poll();
		const gone = sandbox.startSession();
		const { request: goneRequest } = sandbox.completeSession(gone.id);
		const requests = sandbox.workspace().requests;
		requests.splice(requests.indexOf(goneRequest), 1);
		const missing = await run2.poll();
		expect(missing.items).toEqual([expect.objectContaining({ id: gone.id, event_id: completedId(gone), request: null })]);
	});

	test('Fire Again If Reabandoned: the customer comes back and leaves again → a second event with its own id', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned'], options: { fireAgainIfReabandoned: true } });
		await run.poll();
		const s = sandbox.startSession();
		sandbox.clock.advance(31 * MIN);
		const first = await run.poll();
		expect(eventIds(first.items)).toEqual([abandonedId(s)]);
		sandbox.saveSession(s.id);
		expect((await run.poll()).items).toBeNull();
		sandbox.clock.advance(31 * MIN);
		const second = await run.poll();
		expect(eventIds(second.items)).toEqual([abandonedId(s)]);
		expect(second.items![0].event_id).not.toBe(first.items![0].event_id);
		sandbox.clock.advance(31 * MIN);
		expect((await run.poll()).items).toBeNull();
	});
});

describe('state persistence', () => {
	test('the static data of null polls is NOT kept (n8n 1.x), n8n restarts: same events, once', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ALL });
		await run.poll(); // activation: n8n saves the baseline
		run.keepStateOfNullPolls = false;
		const s1 = sandbox.startSession();
		expect((await run.poll()).items).toBeNull(); // watched s1, but this state is lost
		sandbox.clock.advance(20 * MIN);
		const s2 = sandbox.startSession();
		const r1 = sandbox.addRequest();
		expect(eventIds((await run.poll()).items)).toEqual([requestId(r1.id)]);
		sandbox.clock.advance(15 * MIN);
		expect(eventIds((await run.poll()).items)).toEqual([abandonedId(s1)]);

		// n8n restarts: a new process (new limiter, new in-memory state) on the saved static data.
		const restarted = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const after = new TriggerRun(restarted, sandbox, { events: ALL }, false);
		after.state = run.state;
		expect((await after.poll()).items).toBeNull();
		sandbox.clock.advance(20 * MIN);
		expect(eventIds((await after.poll()).items)).toEqual([abandonedId(s2)]);
		expect((await after.poll()).items).toBeNull();
	});

	test('a crash after delivery but before the save: re-delivered with the same event ids', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ALL });
		await run.poll();
		const r = sandbox.addRequest();
		const { session } = sandbox.bookWithoutDraft();
		const saved = JSON.stringify(run.state.staticData);
		const delivered = await run.poll();
		run.state.staticData = JSON.parse(saved) as IDataObject; // the save was lost
		const redelivered = await run.poll();
		expect(eventIds(redelivered.items)).toEqual(eventIds(delivered.items));
		expect(eventIds(delivered.items)).toEqual([requestId(r.id), requestId(session.request_id!), completedId(session)].sort());
		expect((await run.poll()).items).toBeNull();
	});

	test('two polls of the same trigger at once (a slow API): one reads, the other returns nothing', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned'] });
		await run.poll();
		const s = sandbox.startSession();
		sandbox.clock.advance(31 * MIN);
		const twin = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned'] });
		twin.state = { staticData: JSON.parse(JSON.stringify(run.state.staticData)) as IDataObject };
		const [one, two] = await Promise.all([run.poll(), twin.poll()]);
		expect([...eventIds(one.items), ...eventIds(two.items)]).toEqual([abandonedId(s)]);
	});
});

describe("n8n's poll budget (real 1 s limit)", () => {
	// A backlog drained under a short budget, at the real limit, and 800 bookings without a draft: in
	// pollBudget.http.test.ts (`npm run test:costs`, in band), where a poll's duration is measured.
	test('n8n 1.x (no getPollBudgetMs): the trigger works with its own 4-minute budget', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['requestCreated'] });
		await run.poll('trigger', { noBudget: true });
		const request = sandbox.addRequest();
		expect(eventIds((await run.poll('trigger', { noBudget: true })).items)).toEqual([requestId(request.id)]);
	});

	test('a mark left by a poll that died is ignored once its budget and a request timeout have passed', async () => {
		const running = runningPolls();
		const key = 'wf-trigger:Booking Requests Trigger';
		const run = new TriggerRun(harness, sandbox, { events: ['requestCreated'] });
		await run.poll();
		const request = sandbox.addRequest();
		running.set(key, Date.now() + 60_000); // another poll of this trigger is running
		expect((await run.poll()).items).toBeNull();
		// only the baseline read (the API's own 429s left out: a stall of this busy process can bring a paced
		// call in short of the last one's second; afterEach's pacing429s judges whether the pacing caused any)
		expect(withoutOwn429s(sandbox.log).filter((entry) => entry.path === REQUESTS)).toHaveLength(1);
		running.set(key, Date.now() - 1); // that poll died long ago
		expect(eventIds((await run.poll()).items)).toEqual([requestId(request.id)]);
		expect(running.has(key)).toBe(false);
	});
});

describe('errors', () => {
	test('401 and exhausted 429 fail the poll with a clear NodeApiError; nothing advances; the events come on the next good poll', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ALL });
		await run.poll();
		const s = sandbox.startSession();
		sandbox.clock.advance(31 * MIN);
		const r = sandbox.addRequest();
		const before = run.stored;

		harness.credentials = { apiKey: sandbox.keys.revoked, baseUrl: sandbox.url };
		const unauthorized = await run.poll().catch((error: unknown) => error);
		expect(unauthorized).toBeInstanceOf(NodeApiError);
		expect((unauthorized as NodeApiError).message).toBe('Authorization failed: the API key was rejected (401 unauthorized)');
		expect((unauthorized as NodeApiError).httpCode).toBe('401');
		expect(run.stored).toEqual(before);

		harness.credentials = { apiKey: sandbox.keys.demo, baseUrl: sandbox.url };
		// A key that stays rate limited (no request accepted for the stall time, shortened here from 2 min)
		// fails the poll; 429s from someone else's traffic only slow it down (transport tests).
		sandbox.setFaults({ always: 429 });
		setRetryRulesForTests({ stallMs: 3000 });
		const limited = await run
			.poll()
			.catch((error: unknown) => error)
			.finally(() => setRetryRulesForTests(undefined));
		expect(limited).toBeInstanceOf(NodeApiError);
		expect((limited as NodeApiError).message).toBe('Rate limit: no request with this API key was accepted for 3 s (429 rate_limited)');
		expect(run.stored).toEqual(before);

		sandbox.setFaults({});
		expect(eventIds((await run.poll()).items)).toEqual([abandonedId(s), requestId(r.id)].sort());
	});

	test('a broken second page fails the whole poll: no partial cursor', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned'] });
		await run.poll();
		const sessions = Array.from({ length: 130 }, () => sandbox.startSession());
		const before = run.stored;
		sandbox.setFaults({ malformed: 'noItems', malformedEvery: 2 }); // page 2 comes without "items"
		const error = await run.poll().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as Error).message).toMatch(/page 2 of \/api\/v1\/abandoned-sessions has no "items" list/);
		expect(run.stored).toEqual(before);
		sandbox.setFaults({});
		sandbox.clock.advance(31 * MIN);
		const result = await run.poll();
		expect(eventIds(result.items)).toEqual(sessions.map(abandonedId).sort());
	});

	test('an invalid form id fails before any call; no events selected fails clearly', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ALL, formId: rl('not-a-uuid') });
		const error = await run.poll().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as Error).message).toBe('Parameter "Form" must be a UUID, got "not-a-uuid"');
		const none = new TriggerRun(harness, sandbox, { events: [] });
		await expect(none.poll()).rejects.toThrow('Select at least one event');
		expect(sandbox.log).toHaveLength(0);
	});
});

describe('manual mode ("Fetch Test Event")', () => {
	test('returns up to 3 recent samples of each selected event and leaves the state untouched', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ALL });
		await run.poll();
		const idle = sandbox.startSession();
		sandbox.clock.advance(31 * MIN);
		const active = sandbox.startSession();
		const { request } = sandbox.completeSession(active.id);
		const before = JSON.stringify(run.state.staticData);

		const manual = await run.poll('manual');
		const of = (event: string) => manual.items!.filter((item) => item.event === event);
		expect(manual.items!.map((item) => item.event)).toEqual([
			...Array(3).fill('session.abandoned'),
			...Array(3).fill('session.completed'),
			...Array(3).fill('request.created'),
		]);
		expect(of('session.abandoned')[0].id).toBe(idle.id);
		expect(of('session.completed')[0].id).toBe(active.id);
		expect(of('request.created')[0].id).toBe(request.id);
		expect(JSON.stringify(run.state.staticData)).toBe(before);

		// The active trigger still reports them: the samples consumed nothing.
		expect(eventIds((await run.poll()).items)).toEqual([abandonedId(idle), completedId(active), requestId(request.id)].sort());

		// On a workflow that never ran: samples, and no state written.
		const fresh = new TriggerRun(harness, sandbox, { events: ['requestCreated'] });
		expect((await fresh.poll('manual')).items).toHaveLength(3);
		expect(fresh.state.staticData).toEqual({});
	});
});

describe('form filter', () => {
	test('only the chosen form; changing it takes a new baseline (no replay), changing the events does not; From List offers the forms', async () => {
		const [formA, formB] = sandbox.workspace().forms.map((form) => form.id);
		const listed = await harness.listSearch('searchForms', undefined, TRIGGER_TYPE);
		expect(listed.results.map((result) => result.value).sort()).toEqual(sandbox.workspace().forms.map((form) => form.id).sort());

		const run = new TriggerRun(harness, sandbox, { events: ALL, formId: rl(formA) });
		await run.poll();
		const onA = sandbox.startSession({ formId: formA });
		const onB = sandbox.startSession({ formId: formB });
		const requestB = sandbox.addRequest({ form_id: formB });
		sandbox.clock.advance(31 * MIN);
		expect(eventIds((await run.poll()).items)).toEqual([abandonedId(onA)]);
		const listCalls = sandbox.log.filter((entry) => entry.path === SESSIONS || entry.path === REQUESTS);
		expect(listCalls.length).toBeGreaterThan(0);
		expect(listCalls.every((entry) => entry.query.form_id === formA)).toBe(true);

		run.parameters = { events: ALL, formId: rl(formB, 'list') };
		const reset = await run.poll();
		expect(reset.items).toBeNull(); // onB and requestB happened before: not replayed
		const onB2 = sandbox.startSession({ formId: formB });
		sandbox.clock.advance(31 * MIN);
		const after = await run.poll();
		expect(eventIds(after.items)).toEqual([abandonedId(onB2)]);
		expect(eventIds(after.items)).not.toContain(abandonedId(onB));
		expect(eventIds(after.items)).not.toContain(requestId(requestB.id));

		// Changing the events does not reset (before, it did and onB3 was never reported):
		// the remaining event goes on where it was.
		run.parameters = { events: ['sessionAbandoned'], formId: rl(formB) };
		const onB3 = sandbox.startSession({ formId: formB });
		sandbox.clock.advance(31 * MIN);
		expect(eventIds((await run.poll()).items)).toEqual([abandonedId(onB3)]);
		expect(eventIds((await run.poll()).items)).toEqual([]);
		expect(onB3.request_id).toBeNull();
	});
});

describe('clock skew between n8n and the API', () => {
	test.each([
		['3 hours behind', -3 * 60 * MIN],
		['3 hours ahead of', 3 * 60 * MIN],
	])("the API's clock %s n8n's: sessions are judged on the API's clock", async (_label, offset) => {
		sandbox.clock.setOffsetMs(offset);
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned'] });
		await run.poll();
		const s = sandbox.startSession();
		sandbox.clock.advance(20 * MIN);
		expect((await run.poll()).items).toBeNull(); // not early (n8n's clock would say 3 h 20 min)
		sandbox.clock.advance(11 * MIN);
		expect(eventIds((await run.poll()).items)).toEqual([abandonedId(s)]); // not never
	});
});

describe('paging', () => {
	test('more than 100 changes between polls and customers saving while the pages are read: every session once', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned', 'sessionCompleted'] });
		await run.poll();
		const baselineAt = sandbox.clock.now() - 1000;
		for (let i = 0; i < 150; i++) {
			sandbox.clock.advance(2000);
			const s = sandbox.startSession();
			if (i % 10 === 0) sandbox.completeSession(s.id);
		}
		sandbox.setFaults({ churnSessionsPerPage: 3 }); // before each page, 3 random open sessions get a save
		const busy = await run.poll();
		expect(busy.byPath[SESSIONS]).toBeGreaterThanOrEqual(2);
		sandbox.clock.advance(31 * MIN);
		const due = await run.poll();
		sandbox.setFaults({});
		sandbox.clock.advance(31 * MIN);
		const settle = await run.poll();
		expect((await run.poll()).items).toBeNull();

		const all = [...(busy.items ?? []), ...(due.items ?? []), ...(settle.items ?? [])];
		const ids = all.map((item) => String(item.event_id));
		expect(new Set(ids).size).toBe(ids.length);
		const ws = sandbox.workspace();
		const active = ws.sessions.filter((session) => Date.parse(session.updated_at ?? '') >= baselineAt);
		const expectedAbandoned = active.filter((session) => session.request_id === null).map((session) => session.id).sort();
		const expectedCompleted = active.filter((session) => session.request_id !== null).map((session) => session.id).sort();
		const got = (event: string) => all.filter((item) => item.event === event).map((item) => String(item.id)).sort();
		expect(got('session.abandoned')).toEqual(expectedAbandoned);
		expect(got('session.completed')).toEqual(expectedCompleted);
		expect(expectedAbandoned.length).toBeGreaterThanOrEqual(135);
	});
});
