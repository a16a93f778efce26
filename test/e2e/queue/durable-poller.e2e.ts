/**
 * n8n's durable poll scheduler in queue mode (scenario 5): main started with
 *   N8N_SCHEDULER_ENABLED=true N8N_SCHEDULER_POLL_TRIGGERS_ENABLED=true
 *   N8N_USE_WORKFLOW_PUBLICATION_SERVICE=true N8N_POLLER_DURABLE_CURSORS_ENABLED=true
 * (n8n 2.40.7 and 2.41.1: @n8n/config scheduler.config.js and workflows.config.js; durable cursors need all three
 * others, poll-cursor.service.js warns and stays off otherwise). Polls are then scheduler tasks
 * (`scheduled_task` rows, one per occurrence, in PostgreSQL), a poll gets `getPollBudgetMs()` and is
 * abandoned after N8N_SCHEDULER_POLL_TIMEOUT (45 s), and the trigger's static data is n8n's poller
 * state (`poller_state.cursor`), committed in the same transaction as the execution it starts.
 *
 *  5a. the trigger's state lives in n8n's poller state;
 *  5b. a restart of main (`kill -9` between polls) neither loses nor repeats an event (`event_id`s);
 *  5c. every poll stays within getPollBudgetMs(), also when a backlog needs more pages than one
 *      budget allows: the trigger stops reading in time, delivers what it has, and the next poll
 *      continues, so the whole backlog arrives, each event once. (Before the trigger honoured the
 *      budget, each poll read from the top for 45 s, n8n abandoned it, and nothing was ever delivered.)
 *  5d. a backlog of bookings made without a draft, whose contacts (Simplify) come from their booking
 *      requests: read from request-list pages, so it arrives in a few polls, not one event per call.
 */
import { STATE_VERSION } from '../../../nodes/BookingRequestsTrigger/state/format';
import { hashKey, type Session } from '../../../sandbox';
import { pacing429s } from '../../support/pacing429';
import { sleep } from '../../../harness/n8n/process';
import { acceptedIn, entriesIn, FINISHED, lastExecutionId, waitForExecutions, windowFigures } from './helpers/runs';
import { credential, triggerWorkflow } from './helpers/workflows';
import { shortId, withQueueWorld } from './helpers/world';
import { DURABLE_SCHEDULER, emittedSince, N8N_OVERHEAD_MS, POLL_TIMEOUT_MS, pollBudgetMs, pollTasks, taskMs, type PollTask } from './helpers/durableScheduler';

/**
 * 41 pages of the session list: more than one poll's budget (about 30 calls) can read. Measured here:
 * about 1,150 events per 36 s poll (the completion and abandonment windows both sweep these pages).
 */
const BACKLOG = 4_000;
/** 5d: bookings made without a draft (placeholder sessions): 12 pages of each list. */
const PLACEHOLDERS = 1_200;
const SESSIONS_PATH = '/api/v1/abandoned-sessions';
const STATE_KEY = 'bookingRequestsTrigger';

const CRED = { id: shortId('dCredShared'), name: 'Booking Requests (Redis URL)' };
const WF_TRIGGER = shortId('dWfTrigger');
const NODE_ID = 'trigger';

const world = withQueueWorld({
	name: 'durable-poller',
	sandbox: { sizes: { requests: 200, sessions: 300, forms: 2 } },
	credentials: ({ sandbox, redis }) => [credential(CRED, { apiKey: sandbox.keys.demo, baseUrl: sandbox.url, redisUrl: redis.url })],
	workflows: () => [triggerWorkflow(WF_TRIGGER, CRED, { cronSecond: 0, abandonedAfterMinutes: 1 })],
	publish: [WF_TRIGGER],
	env: DURABLE_SCHEDULER,
});

interface PollerState {
	cursor: Record<string, unknown>;
	consecutiveErrors: number;
	backoffUntil: string | null;
	updatedAt: string;
}

async function pollerState(): Promise<PollerState | undefined> {
	const [row] = await world.postgres.rows<PollerState>(
		`SELECT cursor, "consecutiveErrors", "backoffUntil", "updatedAt" FROM poller_state WHERE "workflowId" = '${WF_TRIGGER}' AND "nodeId" = '${NODE_ID}'`,
	);
	return row;
}



/** `event|session id` of each item, sorted; the trigger's items are simplified (its default): the session's id is `session_id`. */
const eventKeys = (items: Array<Record<string, unknown>>) => items.map((item) => `${String(item.event)}|${String(item.session_id)}`).sort();

describe("n8n's durable poll scheduler (queue mode)", () => {
	/** The polls of 5a and 5b, for 5c. */
	const polled: Array<{ scheduledFor: string; ms: number | null }> = [];

	test("5a. the durable scheduler runs the trigger's polls, and the trigger's state lives in n8n's poller state", async () => {
		const { n8n, postgres } = world;
		// the scheduler owns the poll: one cron job for the trigger node
		const jobs = await postgres.rows<{ taskType: string; cronExpression: string; ownerMemberId: string }>(
			`SELECT "taskType", "cronExpression", "ownerMemberId" FROM scheduled_job WHERE "ownerType" = 'workflow' AND "ownerId" = '${WF_TRIGGER}'`,
		);
		expect(jobs).toEqual([{ taskType: 'workflow:poll-trigger', cronExpression: '0 * * * * *', ownerMemberId: NODE_ID }]);
		expect(n8n.main.output()).not.toMatch(/durable poll cursors stay disabled|cannot take over poll triggers/);

		// the first scheduled poll takes the baseline and commits it to poller_state
		const deadline = Date.now() + 90_000;
		let state = await pollerState();
		while (!state?.cursor?.[STATE_KEY]) {
			if (Date.now() > deadline) throw new Error(`no trigger state in poller_state: ${JSON.stringify(state)}`);
			await sleep(1000);
			state = await pollerState();
		}
		const triggerState = state.cursor[STATE_KEY] as { v: number; fp: string; polledAt: number; sessions?: unknown };
		expect(triggerState.v).toBe(STATE_VERSION);
		expect(triggerState.sessions).toBeDefined();
		// ...and not in the workflow's static data
		const [workflow] = await postgres.rows<{ staticData: unknown }>(`SELECT "staticData" FROM workflow_entity WHERE id = '${WF_TRIGGER}'`);
		world.report.scenario5a = {
			scheduledJob: jobs[0],
			pollerStateKeys: Object.keys(state.cursor),
			workflowStaticData: workflow.staticData,
			baselineTasks: (await pollTasks(world, WF_TRIGGER)).map((task) => ({ ...task, ms: taskMs(task) })),
		};
		expect(JSON.stringify(workflow.staticData ?? {})).not.toContain(STATE_KEY);
		// the poll ran on main (the scheduler's record names the instance that claimed it)
		const tasks = await pollTasks(world, WF_TRIGGER);
		expect(tasks.length).toBeGreaterThanOrEqual(1);
		for (const task of tasks) expect(task.claimedBy).toMatch(/^main-/);
	});

	test('5b. a restart of main (kill -9 between two polls) neither loses nor repeats an event', async () => {
		const { sandbox, n8n, postgres } = world;
		const before = await lastExecutionId(postgres);
		const ws = sandbox.workspace();

		// round A, then the poll at the next second 0
		const abandonedA = Array.from({ length: 8 }, () => sandbox.startSession());
		const completedA = [
			...Array.from({ length: 3 }, () => sandbox.completeSession(sandbox.startSession().id).session),
			...Array.from({ length: 2 }, () => sandbox.bookWithoutDraft().session),
			...ws.sessions.filter((session) => session.request_id === null && !abandonedA.includes(session)).slice(0, 2).map((session) => sandbox.completeSession(session.id).session),
		];
		sandbox.clock.advance(2 * 60_000);
		const expectedA = eventKeys([
			...abandonedA.map((session) => ({ event: 'session.abandoned', session_id: session.id })),
			...completedA.map((session) => ({ event: 'session.completed', session_id: session.id })),
		]);
		await waitForExecutions(postgres, WF_TRIGGER, before, (rows) => rows.length >= 1 && rows.every((row) => FINISHED.includes(row.status)), 90_000, 'the poll after round A');
		const afterA = await lastExecutionId(postgres);
		const itemsA = await emittedSince(world, WF_TRIGGER, before);
		const stateA = await pollerState();

		// round B between two polls, then main is killed (no shutdown) and started again
		const recovered: Session[] = abandonedA.slice(0, 3).map((session) => sandbox.completeSession(session.id).session);
		const abandonedB = Array.from({ length: 6 }, () => sandbox.startSession());
		sandbox.clock.advance(2 * 60_000);
		const expectedB = eventKeys([
			...abandonedB.map((session) => ({ event: 'session.abandoned', session_id: session.id })),
			...recovered.map((session) => ({ event: 'session.completed', session_id: session.id })),
		]);
		const killedAt = new Date().toISOString();
		await n8n.kill(n8n.main);
		const restart = Date.now();
		await n8n.startMain();
		const restartSeconds = (Date.now() - restart) / 1000;
		await waitForExecutions(postgres, WF_TRIGGER, afterA, (rows) => rows.length >= 1 && rows.every((row) => FINISHED.includes(row.status)), 120_000, 'the poll after the restart');
		const itemsB = await emittedSince(world, WF_TRIGGER, afterA);
		// (5c then checks that no later poll repeats anything either)

		const eventIds = [...itemsA, ...itemsB].map((item) => String(item.event_id));
		polled.push(...(await pollTasks(world, WF_TRIGGER)).map((task) => ({ scheduledFor: task.scheduledFor, ms: taskMs(task) })));
		world.report.scenario5b = {
			roundA: { expected: expectedA.length, emitted: itemsA.length, polledAt: (stateA?.cursor?.[STATE_KEY] as { polledAt?: number })?.polledAt },
			killedMainAt: killedAt,
			mainRestartSeconds: restartSeconds,
			roundB: { expected: expectedB.length, emitted: itemsB.length },
			eventIds: eventIds.length,
			distinctEventIds: new Set(eventIds).size,
		};

		expect(eventKeys(itemsA)).toEqual(expectedA);
		expect(eventKeys(itemsB)).toEqual(expectedB);
		expect(new Set(eventIds).size).toBe(eventIds.length);
		for (const item of itemsB.filter((entry) => entry.event === 'session.completed')) expect(item.recovered).toBe(true);
	});

	test('5c. every poll stays within getPollBudgetMs() (about 36 s), also with a backlog longer than one budget', async () => {
		const { sandbox, n8n, postgres } = world;
		const keyHash = hashKey(sandbox.keys.demo);
		const budget = pollBudgetMs();
		expect(budget).toBe(36_000);
		const before = await lastExecutionId(postgres);
		const tasksBefore = (await pollTasks(world, WF_TRIGGER)).map((task) => task.id);
		const from = Date.now();

		// a backlog: 4,000 bookings completed from a saved draft with an e-mail since the last poll, 41
		// pages of the session list: at 1 request/s, longer than one poll may take. (Bookings made
		// without a draft also need their booking request's contact: read from request list pages,
		// tested in test/nodes/BookingRequestsTrigger/BookingRequestsTrigger.node.test.ts.)
		// The sandbox clock moves 3 ms per booking (it stamps two), so that the timestamps stay
		// distinct and in order (the sandbox follows its clock again once it is 1 s behind the stamps).
		const backlog = Array.from({ length: BACKLOG }, () => {
			sandbox.clock.advance(3);
			return sandbox.completeSession(sandbox.startSession().id).session;
		});
		const expected = eventKeys(backlog.map((session) => ({ event: 'session.completed', session_id: session.id })));

		const timedOut = () => (n8n.main.output().match(/Poll exceeded its timeout and was abandoned/g) ?? []).length;
		const timeoutsBefore = timedOut();
		const sessionReads = () => acceptedIn(sandbox, keyHash, from).filter((entry) => entry.path === SESSIONS_PATH);
		let items: Array<Record<string, unknown>> = [];
		// the backlog arrives over several polls, each within its budget (4 or 5 polls: up to 6 minutes
		// from here, as polls run at the start of each minute)
		const deadline = Date.now() + 7 * 60_000;
		while (items.length < BACKLOG && Date.now() < deadline) {
			await sleep(5000);
			items = await emittedSince(world, WF_TRIGGER, before);
		}
		const to = Date.now();
		const tasks = (await pollTasks(world, WF_TRIGGER)).filter((task) => !tasksBefore.includes(task.id) && task.startedAt && task.finishedAt);
		/** The session-list requests of each poll (between its task's start and end). */
		const readsOf = (task: PollTask) =>
			sessionReads().filter((entry) => entry.at >= Date.parse(task.startedAt!) - 100 && entry.at <= Date.parse(task.finishedAt!) + 1000);
		const state = await pollerState();
		world.report.scenario5c = {
			pollBudgetMs: budget,
			pollTimeoutMs: POLL_TIMEOUT_MS,
			backlogSessions: BACKLOG,
			quietPollsMs: polled.map((task) => task.ms),
			backlogPolls: tasks.map((task) => ({
				scheduledFor: task.scheduledFor,
				ms: taskMs(task),
				pagesRead: readsOf(task).length,
				firstPage: readsOf(task)[0]?.query.page,
				lastPage: readsOf(task).pop()?.query.page,
			})),
			abandonedByN8n: timedOut() - timeoutsBefore,
			emitted: items.length,
			pollerState: { consecutiveErrors: state?.consecutiveErrors, backoffUntil: state?.backoffUntil },
			sandbox: windowFigures(sandbox, keyHash, from, to),
		};

		// the quiet polls of 5a/5b were far within the budget
		expect(polled.length).toBeGreaterThanOrEqual(3);
		for (const task of polled) expect(task.ms).toBeLessThanOrEqual(budget);
		expect(timedOut()).toBe(timeoutsBefore);
		for (const task of tasks) expect(taskMs(task)).toBeLessThanOrEqual(budget + N8N_OVERHEAD_MS);
		// more than one budget's worth of reading: delivered by two polls or more
		expect((await waitForExecutions(postgres, WF_TRIGGER, before, () => true, 1000, 'trigger executions')).length).toBeGreaterThanOrEqual(2);
		expect(eventKeys(items)).toEqual(expected);
		expect(new Set(items.map((item) => item.event_id)).size).toBe(BACKLOG);
		expect(pacing429s(entriesIn(sandbox, keyHash, from, to), keyHash)).toEqual([]);
	});

	test('5d. a backlog of bookings made without a draft: each arrives once with its contact from the request list, within the budget', async () => {
		const { sandbox, n8n, postgres } = world;
		const keyHash = hashKey(sandbox.keys.demo);
		const budget = pollBudgetMs();
		const before = await lastExecutionId(postgres);
		const tasksBefore = (await pollTasks(world, WF_TRIGGER)).map((task) => task.id);
		const from = Date.now();
		// Simplify (the default) takes these customers' contact from their booking requests: one Get each
		// would drain about 30 per poll (50 polls for these); the request list gives up to 100 per call.
		const booked = Array.from({ length: PLACEHOLDERS }, () => {
			sandbox.clock.advance(2);
			return sandbox.bookWithoutDraft();
		});
		const expected = eventKeys(booked.map(({ session }) => ({ event: 'session.completed', session_id: session.id })));
		const timedOut = () => (n8n.main.output().match(/Poll exceeded its timeout and was abandoned/g) ?? []).length;
		const timeoutsBefore = timedOut();
		let items: Array<Record<string, unknown>> = [];
		const deadline = Date.now() + 5 * 60_000;
		while (items.length < PLACEHOLDERS && Date.now() < deadline) {
			await sleep(5000);
			items = await emittedSince(world, WF_TRIGGER, before);
		}
		const to = Date.now();
		const tasks = (await pollTasks(world, WF_TRIGGER)).filter((task) => !tasksBefore.includes(task.id) && task.startedAt && task.finishedAt);
		const accepted = acceptedIn(sandbox, keyHash, from, to);
		const gets = accepted.filter((entry) => entry.path.startsWith('/api/v1/requests/')).length;
		world.report.scenario5d = {
			bookingsWithoutDraft: PLACEHOLDERS,
			emitted: items.length,
			polls: tasks.map((task) => ({ scheduledFor: task.scheduledFor, ms: taskMs(task) })),
			calls: {
				sessionList: accepted.filter((entry) => entry.path === SESSIONS_PATH).length,
				requestList: accepted.filter((entry) => entry.path === '/api/v1/requests').length,
				getRequest: gets,
			},
			abandonedByN8n: timedOut() - timeoutsBefore,
			sandbox: windowFigures(sandbox, keyHash, from, to),
		};

		expect(eventKeys(items)).toEqual(expected);
		expect(new Set(items.map((item) => item.event_id)).size).toBe(PLACEHOLDERS);
		const byRequest = new Map(booked.map(({ request }) => [request.id, request]));
		for (const item of items) {
			const request = byRequest.get(String(item.request_id));
			expect(item).toMatchObject({ email: request?.email, first_name: request?.first_name, last_name: request?.last_name });
		}
		expect(timedOut()).toBe(timeoutsBefore);
		for (const task of tasks) expect(taskMs(task)).toBeLessThanOrEqual(budget + N8N_OVERHEAD_MS);
		expect(gets).toBeLessThan(PLACEHOLDERS / 10);
		expect(pacing429s(entriesIn(sandbox, keyHash, from, to), keyHash)).toEqual([]);
	});
});
