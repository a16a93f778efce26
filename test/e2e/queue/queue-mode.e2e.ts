/**
 * n8n queue mode for real (scenarios 1-4): PostgreSQL, Redis, n8n 2.x (2.41.1) main + 2 workers
 * (`--concurrency 5`), the packed package in every process, the sandbox API with its real limit of 1
 * request per second per key. Every scenario asserts on the sandbox's own request log.
 *
 *  1. three webhook executions at once on the workers, one key, Redis URL in the credential: Return All
 *     of 1,000 requests each -> all complete, 0 × 429, >= 1,000 ms between accepted requests;
 *  2. the same without the Redis URL (control): 429s — scenario 1's checks fail without it;
 *  3. the trigger polls on main while the workers page through the same key: each abandoned/completed
 *     session is emitted once, still 0 × 429;
 *  (0 × 429 as the Node suites judge it, test/support/pacing429.ts: the sandbox runs in this jest
 *  process, and a stall of it during the scenario can turn a paced request into a 429; one the stall
 *  does not explain is the pacing's, which scenario 2 shows happening without the shared limit.)
 *  4. a worker killed (`kill -9`) while it pages: n8n records its executions as failed (stalled job),
 *     the other worker's executions complete, the shared limiter gives the key's turn back within its
 *     job expiration, no burst afterwards.
 *
 * The scenarios run in this order on one cluster. The poll scheduler here is n8n's default (legacy,
 * in memory); durable-poller.e2e.ts covers the durable one.
 */
import { SHARED_LIMIT_DEFAULTS } from '../../../queue/limiter/connection';
import { hashKey, type RequestLogEntry, type Session } from '../../../sandbox';
import { sleep } from '../../../harness/n8n/process';
import {
	acceptedIn,
	callWebhook,
	durationSeconds,
	FINISHED,
	itemIds,
	lastExecutionId,
	untilSecondOfMinute,
	waitForExecutions,
	waitForWebhook,
	windowFigures,
	type ExecutionRecord,
	type WebhookCall,
} from './helpers/runs';
import { credential, TRIGGER_NODE, triggerWorkflow, webhookPager } from './helpers/workflows';
import { shortId, withQueueWorld } from './helpers/world';
import { forgetStalls } from '../../support/pacing429';

const REQUESTS = 1000;
const EXECUTIONS = 3;
const SESSIONS_PATH = '/api/v1/abandoned-sessions';
const REQUESTS_PATH = '/api/v1/requests';
/** The trigger polls at this second of every minute (n8n's cron, on main). */
const POLL_SECOND = 0;

const CRED = {
	shared: { id: shortId('qCredShared'), name: 'Booking Requests (Redis URL)' },
	alone: { id: shortId('qCredAlone'), name: 'Booking Requests (no Redis URL)' },
};
const WF = {
	shared: shortId('qWfShared'),
	control: shortId('qWfControl'),
	victim: shortId('qWfVictim'),
	trigger: shortId('qWfTrigger'),
};
const PATH = { shared: 'queue-shared-return-all', control: 'queue-control-return-all', victim: 'queue-victim-sessions' };

/** The form whose sessions the victim of scenario 4 lists: `form_id` in its queries marks its requests. */
let victimForm = '';

const world = withQueueWorld({
	name: 'scenarios-1-4',
	// 2 forms: about 1,000 sessions each, so the victim of scenario 4 has 10 pages to read
	sandbox: { sizes: { requests: REQUESTS, sessions: 2000, forms: 2 } },
	credentials: ({ sandbox, redis }) => [
		credential(CRED.shared, { apiKey: sandbox.keys.demo, baseUrl: sandbox.url, redisUrl: redis.url }),
		// the control uses the workspace's second key (its own budget of 1 request/s), so that it cannot
		// disturb the trigger, which polls with the first key throughout
		credential(CRED.alone, { apiKey: sandbox.keys.second, baseUrl: sandbox.url }),
	],
	workflows: ({ sandbox }) => {
		const ws = sandbox.workspace();
		// not the default form, where the trigger scenario's new sessions go
		victimForm = (ws.forms.find((form) => !form.is_default) ?? ws.forms[0]).id;
		return [
			webhookPager(WF.shared, PATH.shared, CRED.shared),
			webhookPager(WF.control, PATH.control, CRED.alone),
			webhookPager(WF.victim, PATH.victim, CRED.shared, {
				resource: 'bookingSession',
				operation: 'getAll',
				filters: { formId: { __rl: true, mode: 'id', value: victimForm } },
			}),
			triggerWorkflow(WF.trigger, CRED.shared, { cronSecond: POLL_SECOND, abandonedAfterMinutes: 1 }),
		];
	},
	publish: [WF.shared, WF.control, WF.victim, WF.trigger],
	env: {
		// A dead worker's job is failed once its lock expired and a live worker checked for stalled
		// jobs: shortened from 60 s / 30 s so that scenario 4 sees it within seconds.
		QUEUE_WORKER_LOCK_DURATION: '15000',
		QUEUE_WORKER_LOCK_RENEW_TIME: '5000',
		QUEUE_WORKER_STALLED_INTERVAL: '5000',
	},
});

interface RunOfExecutions {
	calls: WebhookCall[];
	records: ExecutionRecord[];
	from: number;
	to: number;
}

/** Calls the webhook `count` times at once; waits for the answers and the finished execution records. */
async function runAtOnce(workflowId: string, path: string, count: number): Promise<RunOfExecutions> {
	const { n8n, postgres } = world;
	await waitForWebhook(n8n.mainUrl, path);
	const before = await lastExecutionId(postgres);
	const from = Date.now();
	const calls = Array.from({ length: count }, () => callWebhook(n8n.mainUrl, path));
	await Promise.all(calls.map(async (call) => await call.done));
	const to = Date.now();
	const records = await waitForExecutions(
		postgres,
		workflowId,
		before,
		(rows) => rows.length >= count && rows.every((row) => FINISHED.includes(row.status)),
		60_000,
		`${count} finished executions of ${workflowId}`,
	);
	return { calls, records, from, to };
}

function workerName(executionId: string): string {
	const worker = world.n8n.workerOf(executionId);
	return worker === undefined ? 'not started by a worker' : `worker ${worker + 1}`;
}

/**
 * n8n's records (status, where it ran, duration) and, separately, what the webhook calls answered:
 * concurrent calls cannot be matched to their execution ids.
 */
function describeRun(records: ExecutionRecord[], calls: WebhookCall[]) {
	return {
		executions: records.map((record) => ({
			execution: record.id,
			status: record.status,
			mode: record.mode,
			ranOn: workerName(record.id),
			seconds: durationSeconds(record),
		})),
		webhookAnswers: calls.map((call) =>
			Array.isArray(call.body)
				? `${call.status}: ${(call.body as unknown[]).length} items`
				: `${call.status ?? call.error}: ${JSON.stringify(call.body ?? null).slice(0, 200)}`,
		),
	};
}

/** The calls answered with exactly the sandbox's requests. */
function completeCalls(calls: WebhookCall[], expected: Set<string>): WebhookCall[] {
	return calls.filter((call) => call.status === 200 && itemIds(call).length === expected.size && new Set(itemIds(call)).size === expected.size && itemIds(call).every((id) => expected.has(id)));
}

const requestIds = () => new Set(world.sandbox.workspace().requests.map((request) => request.id));

describe('n8n queue mode: main + 2 workers, PostgreSQL, Redis', () => {
	// each scenario's 429s are judged by the stalls of its own time, not by those of the cluster's set-up
	beforeEach(() => forgetStalls());

	test('1. three executions at once on the workers, one key, Redis URL set: every one complete, 0 × 429, >= 1,000 ms apart', async () => {
		const { sandbox, n8n } = world;
		const keyHash = hashKey(sandbox.keys.demo);
		const expected = requestIds();
		expect(expected.size).toBe(REQUESTS);

		const run = await runAtOnce(WF.shared, PATH.shared, EXECUTIONS);
		const figures = windowFigures(sandbox, keyHash, run.from, run.to);
		world.report.scenario1 = { ...figures, ...describeRun(run.records, run.calls) };

		for (const call of run.calls) {
			expect(call.error).toBeUndefined();
			expect(call.status).toBe(200);
		}
		expect(completeCalls(run.calls, expected)).toHaveLength(EXECUTIONS);
		// n8n's records: three successful webhook executions, started by the workers (both of them)
		expect(run.records).toHaveLength(EXECUTIONS);
		for (const record of run.records) {
			expect(record.status).toBe('success');
			expect(record.mode).toBe('webhook');
			expect(n8n.workerOf(record.id)).toBeDefined();
		}
		expect(new Set(run.records.map((record) => n8n.workerOf(record.id))).size).toBe(2);
		// they ran at the same time: each started before any finished
		const starts = run.records.map((record) => Date.parse(record.startedAt!));
		const stops = run.records.map((record) => Date.parse(record.stoppedAt!));
		expect(Math.max(...starts)).toBeLessThan(Math.min(...stops));

		// the sandbox: one budget for the three (and the trigger's polls, which use the same key)
		expect(figures.byPath[REQUESTS_PATH]).toBe(EXECUTIONS * (REQUESTS / 100));
		expect(figures.pacing429s).toBe(0);
	});

	test("2. control, the same run without the Redis URL: the API answers 429 (scenario 1's checks fail), yet every execution succeeds", async () => {
		const { sandbox, n8n } = world;
		const keyHash = hashKey(sandbox.keys.second);
		const expected = requestIds();

		const run = await runAtOnce(WF.control, PATH.control, EXECUTIONS);
		const figures = windowFigures(sandbox, keyHash, run.from, run.to);
		const complete = completeCalls(run.calls, expected);
		const everyExecutionSucceeded = complete.length === EXECUTIONS && run.records.every((record) => record.status === 'success');
		world.report.scenario2 = {
			...figures,
			everyExecutionSucceeded,
			...describeRun(run.records, run.calls),
		};

		// the same shape of run as scenario 1: three executions on the workers, both of them
		expect(run.records).toHaveLength(EXECUTIONS);
		for (const record of run.records) expect(n8n.workerOf(record.id)).toBeDefined();
		expect(new Set(run.records.map((record) => n8n.workerOf(record.id))).size).toBe(2);
		// without one shared budget the processes together exceed 1 request/s: 429s that no stall of
		// this process explains, which the judgement of scenario 1 blames on the pacing
		expect(figures.pacing429s).toBeGreaterThan(0);
		// contention slows executions down, it never fails them (before, one of the three
		// failed after its retries in most runs)
		expect(run.records.map((record) => record.status)).toEqual(run.records.map(() => 'success'));
		expect(complete).toHaveLength(EXECUTIONS);
	});

	test('3. the trigger polls on main while the workers page through the same key: each abandoned/completed session once, 0 × 429', async () => {
		const { sandbox, n8n, postgres } = world;
		const keyHash = hashKey(sandbox.keys.demo);
		const rest = await n8n.rest();
		const from = Date.now();
		const before = await lastExecutionId(postgres);
		/** `event|session id` -> how many times the trigger must emit it (once). */
		const expected = new Map<string, number>();
		const expect1 = (event: string, sessions: Session[]) => sessions.forEach((session) => expected.set(`${event}|${session.id}`, 1));
		const ws = sandbox.workspace();
		const rounds: Array<Record<string, unknown>> = [];
		let abandonedInRound1: Session[] = [];
		let recovered: Session[] = [];

		for (const round of [1, 2]) {
			// Between second 40 and 55 of a minute: the customer activity, all at once (synchronous: no
			// request interleaves), the sandbox clock 2 minutes on (the new sessions are idle past the
			// 1-minute delay), then three executions page through the requests on the workers for about
			// 30 s, across the poll at second 0, which has the activity to report.
			const seen = await lastExecutionId(postgres);
			await untilSecondOfMinute(40, 15);
			if (round === 1) {
				const abandoned = Array.from({ length: 12 }, () => sandbox.startSession());
				const completedFresh = Array.from({ length: 6 }, () => sandbox.completeSession(sandbox.startSession().id).session);
				const placeholders = Array.from({ length: 4 }, () => sandbox.bookWithoutDraft().session);
				// sessions abandoned long before the trigger was activated, completed now
				const old = ws.sessions.filter((session) => session.request_id === null && !abandoned.includes(session)).slice(0, 3);
				const completedOld = old.map((session) => sandbox.completeSession(session.id).session);
				expect1('session.abandoned', abandoned);
				expect1('session.completed', [...completedFresh, ...placeholders, ...completedOld]);
				abandonedInRound1 = abandoned;
			} else {
				// 4 customers reported abandoned come back and book (recovered); 2 others save again and
				// leave again (no second event: "Fire Again If Reabandoned" is off); 5 new ones leave
				recovered = abandonedInRound1.slice(0, 4).map((session) => sandbox.completeSession(session.id).session);
				abandonedInRound1.slice(4, 6).forEach((session) => sandbox.saveSession(session.id));
				const abandoned = Array.from({ length: 5 }, () => sandbox.startSession());
				expect1('session.completed', recovered);
				expect1('session.abandoned', abandoned);
			}
			sandbox.clock.advance(2 * 60_000);
			const run = await runAtOnce(WF.shared, PATH.shared, EXECUTIONS);
			const [triggerExecution] = await waitForExecutions(
				postgres,
				WF.trigger,
				seen,
				(rows) => rows.length >= 1 && rows.every((row) => FINISHED.includes(row.status)),
				120_000,
				`the trigger's execution after round ${round}`,
			);
			const pollRequests = acceptedIn(sandbox, keyHash, run.from, run.to).filter((entry) => entry.path === SESSIONS_PATH);
			const pagerRequests = acceptedIn(sandbox, keyHash, run.from, run.to).filter((entry) => entry.path === REQUESTS_PATH);
			rounds.push({
				round,
				pollRequestsAt: pollRequests.map((entry) => new Date(entry.at).toISOString()),
				pagingFrom: new Date(pagerRequests[0].at).toISOString(),
				pagingTo: new Date(pagerRequests[pagerRequests.length - 1].at).toISOString(),
				paging: describeRun(run.records, run.calls),
				triggerExecution: { execution: triggerExecution.id, status: triggerExecution.status, mode: triggerExecution.mode, ranOn: workerName(triggerExecution.id), createdAt: triggerExecution.createdAt },
			});
			// the poll happened while the workers paged: requests of the pager before and after it
			expect(pollRequests.length).toBeGreaterThanOrEqual(1);
			expect(pagerRequests[0].at).toBeLessThan(pollRequests[0].at);
			expect(pagerRequests[pagerRequests.length - 1].at).toBeGreaterThan(pollRequests[pollRequests.length - 1].at);
			expect(completeCalls(run.calls, requestIds())).toHaveLength(EXECUTIONS);
			// the poll ran before any worker had the trigger's execution: on main; the execution it
			// started ran on a worker
			expect(Date.parse(triggerExecution.createdAt)).toBeGreaterThan(pollRequests[0].at);
			expect(Date.parse(triggerExecution.createdAt)).toBeLessThan(run.to);
			expect(triggerExecution.mode).toBe('trigger');
			expect(triggerExecution.status).toBe('success');
			expect(n8n.workerOf(triggerExecution.id)).toBeDefined();
		}
		const to = Date.now();

		// every item the trigger emitted since the start of the scenario
		const triggerRuns = await waitForExecutions(postgres, WF.trigger, before, (rows) => rows.every((row) => FINISHED.includes(row.status)), 30_000, 'trigger executions');
		const items: Array<Record<string, unknown>> = [];
		const itemsPerExecution = new Map<string, number>();
		for (const record of triggerRuns) {
			const run = await rest.waitForExecution(record.id);
			const emittedHere = run.items[TRIGGER_NODE] ?? [];
			itemsPerExecution.set(record.id, emittedHere.length);
			items.push(...emittedHere);
		}
		const emitted = new Map<string, number>();
		// the trigger's items are simplified (its default): the session's id is `session_id`
		for (const item of items) emitted.set(`${String(item.event)}|${String(item.session_id)}`, (emitted.get(`${String(item.event)}|${String(item.session_id)}`) ?? 0) + 1);
		const figures = windowFigures(sandbox, keyHash, from, to);
		world.report.scenario3 = {
			...figures,
			expectedEvents: expected.size,
			emittedItems: items.length,
			byEvent: Object.fromEntries(['session.abandoned', 'session.completed'].map((event) => [event, items.filter((item) => item.event === event).length])),
			triggerExecutions: triggerRuns.map((record) => ({ execution: record.id, ranOn: workerName(record.id), items: itemsPerExecution.get(record.id), seconds: durationSeconds(record) })),
			rounds,
		};

		expect(Object.fromEntries(emitted)).toEqual(Object.fromEntries(expected));
		expect(new Set(items.map((item) => item.event_id)).size).toBe(items.length);
		// the 4 customers who came back after being reported abandoned are marked recovered
		const completedItems = items.filter((item) => item.event === 'session.completed');
		expect(completedItems.filter((item) => item.recovered === true).map((item) => item.session_id).sort()).toEqual(recovered.map((session) => session.id).sort());
		expect(figures.pacing429s).toBe(0);
	});

	test("4. a worker killed (kill -9) while it pages: recorded as failed (stalled) by n8n, the other worker's executions complete, the key's turn comes back, no burst", async () => {
		const { sandbox, n8n, postgres } = world;
		const keyHash = hashKey(sandbox.keys.demo);
		const expected = requestIds();
		await waitForWebhook(n8n.mainUrl, PATH.victim);
		await waitForWebhook(n8n.mainUrl, PATH.shared);
		const before = await lastExecutionId(postgres);
		const from = Date.now();
		const victimRequests = (): RequestLogEntry[] =>
			acceptedIn(sandbox, keyHash, from).filter((entry) => entry.path === SESSIONS_PATH && entry.query.form_id === victimForm);

		// Return All executions of the requests until each worker runs one (Bull hands jobs out in turn)...
		const pagerCalls: WebhookCall[] = [];
		let pagers: ExecutionRecord[] = [];
		while (new Set(pagers.map((record) => n8n.workerOf(record.id))).size < 2) {
			if (pagerCalls.length >= 5) throw new Error(`Bull gave all of ${pagerCalls.length} executions to one worker`);
			pagerCalls.push(callWebhook(n8n.mainUrl, PATH.shared));
			pagers = await waitForExecutions(
				postgres,
				WF.shared,
				before,
				(rows) => rows.length === pagerCalls.length && rows.every((row) => n8n.workerOf(row.id) !== undefined),
				30_000,
				'the pagers on the workers',
			);
		}
		// ...then the victim: it lists the sessions of one form (10 pages); `form_id` marks its requests
		const victimCall = callWebhook(n8n.mainUrl, PATH.victim);
		const [victim] = await waitForExecutions(
			postgres,
			WF.victim,
			before,
			(rows) => rows.length === 1 && n8n.workerOf(rows[0].id) !== undefined,
			30_000,
			'the victim on a worker',
		);
		const victimWorker = n8n.workerOf(victim.id)!;
		const otherWorker = 1 - victimWorker;

		// kill -9 the victim's worker the moment its second request is accepted: the victim then holds
		// the key's turn in Redis (until 1,015 ms after the answer), and will never give it back
		const deadline = Date.now() + 60_000;
		while (victimRequests().length < 2) {
			if (Date.now() > deadline) throw new Error('the victim sent no second request');
			await sleep(2);
		}
		const killedAt = Date.now();
		await n8n.kill(n8n.workers[victimWorker]);
		const victimLast = victimRequests()[victimRequests().length - 1];
		const victimPages = victimRequests().length;

		// n8n records the dead worker's executions as failed (lock expiry, Bull's stalled-job check)...
		const dead = [victim, ...pagers.filter((record) => n8n.workerOf(record.id) === victimWorker)].map((record) => record.id);
		const recorded = (async () => {
			const rows = await waitForExecutions(
				postgres,
				WF.victim,
				before,
				(records) => records.every((record) => FINISHED.includes(record.status)),
				150_000,
				'the victim recorded as finished',
			);
			const pagerRows = await waitForExecutions(
				postgres,
				WF.shared,
				before,
				(records) => records.filter((record) => dead.includes(record.id)).every((record) => FINISHED.includes(record.status)),
				150_000,
				"the dead worker's pagers recorded as finished",
			);
			return { rows: [...rows, ...pagerRows], seconds: Math.round((Date.now() - killedAt) / 100) / 10 };
		})();
		// ...while the other worker's executions go on and complete
		const survivors = pagers.map((record, i) => ({ record, call: pagerCalls[i] })).filter(({ record }) => n8n.workerOf(record.id) === otherWorker);
		await Promise.all(survivors.map(async ({ call }) => await call.done));
		const to = Date.now();
		const { seconds: recordedWithinSeconds } = await recorded;
		const finalRecords = [
			...(await waitForExecutions(postgres, WF.victim, before, () => true, 1000, 'victim')),
			...(await waitForExecutions(postgres, WF.shared, before, (rows) => rows.every((row) => FINISHED.includes(row.status)), 60_000, 'the pagers recorded as finished')),
		];
		victimCall.abort();
		for (const call of pagerCalls) if (!survivors.some((survivor) => survivor.call === call)) call.abort();

		// the shared limiter: when the key's next request passed, and how far apart the requests were after
		const after = acceptedIn(sandbox, keyHash, victimLast.at + 1, to);
		const turnBackMs = after.length > 0 ? Math.round(after[0].at - victimLast.at) : null;
		const figures = windowFigures(sandbox, keyHash, from, to);
		const recordOf = (id: string) => finalRecords.find((record) => record.id === id);
		const rest = await n8n.rest();
		const deadErrors = new Map<string, string | undefined>();
		for (const id of dead) deadErrors.set(id, (await rest.waitForExecution(id)).error?.message);
		const victimTotalPages = Math.ceil(sandbox.workspace().sessions.filter((session) => session.form_id === victimForm).length / 100);
		world.report.scenario4 = {
			...figures,
			victim: { execution: victim.id, ranOn: `worker ${victimWorker + 1}`, pagesBeforeKill: victimPages, pagesInAll: victimTotalPages },
			killedMsAfterVictimRequestArrived: Math.round(killedAt - victimLast.at),
			turnBackMs,
			documentedJobExpirationMs: SHARED_LIMIT_DEFAULTS.jobExpirationMs,
			requestsAfterKill: after.length,
			failedRecordedWithinSecondsOfKill: recordedWithinSeconds,
			// started one at a time, so calls and records pair up here
			executions: [victim, ...pagers].map((record) => {
				const call = record.id === victim.id ? victimCall : pagerCalls[pagers.indexOf(record)];
				const { executions: [described], webhookAnswers: [answer] } = describeRun([recordOf(record.id) ?? record], [call]);
				return { ...described, webhookAnswer: answer, error: deadErrors.get(record.id) };
			}),
		};

		expect(survivors.length).toBeGreaterThanOrEqual(1);
		for (const { record, call } of survivors) {
			expect(recordOf(record.id)?.status).toBe('success');
			expect(completeCalls([call], expected)).toHaveLength(1);
		}
		// n8n 2.x (Bull with maxStalledCount 0): main, waiting for the job, records the dead worker's
		// executions as failed with its "stalled" error (status `crashed` is what its queue recovery
		// sets for executions no main waits for any more, e.g. after a restart of main)
		for (const id of dead) {
			expect(recordOf(id)?.status).toBe('error');
			expect(deadErrors.get(id)).toMatch(/^This execution failed to be processed too many times/);
		}
		// the victim was still paging when it was killed
		expect(victimPages).toBeLessThan(victimTotalPages);
		// its turn came back within the shared limiter's job expiration (+ up to Bottleneck's 5 s
		// heartbeat, which is when an expired turn is noticed, + 1 s)
		expect(turnBackMs).not.toBeNull();
		expect(turnBackMs!).toBeLessThanOrEqual(SHARED_LIMIT_DEFAULTS.jobExpirationMs + 6000);
		// no burst afterwards, and never a 429
		expect(after.length).toBeGreaterThanOrEqual(3);
		expect(figures.pacing429s).toBe(0);
	});
});
