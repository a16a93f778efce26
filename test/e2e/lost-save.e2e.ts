/**
 * A lost save in a real n8n 2.x (2.41.1; regular mode, SQLite): n8n holds an older static data of the
 * trigger than the one this n8n process wrote last, and loads it again while the process still keeps
 * the decoded memory of the newer state (poll/memory.ts). The next poll must start from the older
 * state: deliver again what happened since it (at least once, with the same `event_id`s), skip nothing,
 * and go on from there.
 *
 * How n8n 2.x (2.40.7, 2.41.1) hands a polling trigger its static data (n8n's dist/, the files named): Publish and
 * Unpublish (`POST /rest/workflows/:id/activate`, `/deactivate`: workflows/workflow.service.js) only
 * record the change in the publication outbox (the default, N8N_USE_WORKFLOW_PUBLICATION_SERVICE); the
 * outbox consumer applies it (workflows/publication/workflow-publication-outbox-consumer.js,
 * workflow-publication-applier.js) and reports it at `GET /rest/workflows/:id/publication-status`. A
 * publish loads the workflow from the database, static data included, builds one Workflow object with
 * it (workflows/triggers/workflow-trigger-activator.js createWorkflow) and registers the poll trigger,
 * which polls once right away (n8n-core active-workflow-triggers.js activatePollTrigger). Every later
 * poll of that publication reads and changes that object in memory
 * (workflows/triggers/trigger-execution-context.factory.js getExecutePollFunctions); n8n writes it to
 * `workflow_entity.staticData` after a poll that emits (`void saveStaticData` in __emit: a failed write
 * is only logged, workflows/workflow-static-data.service.js) and after registering. So a save that did
 * not reach the database (or a database restored from a backup) reaches the process only when n8n
 * registers the trigger again: an unpublish and a publish, a publish whose trigger node changed
 * (workflows/publication/trigger-diff.js; publishing an unchanged trigger again keeps the registered
 * one and its memory), or a restart. Polls of one publication never read the database.
 *
 * The test polls only by publishing: the trigger has no poll time, so n8n polls when it registers the
 * trigger, in mode `trigger`, whose items start an execution as a scheduled poll's do. The test decides
 * when n8n polls: no minute to wait, no scheduled poll racing the restore. Each round of traffic in
 * the sandbox is followed by an unpublish and a publish:
 *
 *  1. publish: the baseline (nothing emitted);
 *  2. round A, republish: A delivered; the static data n8n then holds is S1;
 *  3. round B, republish: B delivered; n8n holds a newer state, and this process keeps its memory;
 *  4. unpublish, S1 written back into n8n's database, publish: the poll delivers B again, with the same
 *     `event_id`s, and nothing of A;
 *  5. round C, republish: C delivered, once (the state written after step 4 goes on).
 *
 * The oracle is the sandbox's own data (the ids of the sessions and requests each round made) and the
 * executions n8n recorded; it never asks the trigger's code. n8n 1.x has no publication (the 1.x e2e run
 * leaves this file out: jest.config.js).
 */
import { installTarball } from '../../harness/n8n/communityPackage';
import { sleep } from '../../harness/n8n/process';
import { N8nRest } from '../../harness/n8n/rest';
import { startN8n, type N8nServer } from '../../harness/n8n/server';
import { makeUserFolder } from '../../harness/n8n/workflows';
import { sortRequests, startSandbox, type BookingRequest, type Sandbox, type Session } from '../../sandbox';
import { restData } from './helpers/dataTable';
import { N8nDatabase } from './helpers/n8nDatabase';
import { loadState } from './helpers/state';

const TRIGGER_TYPE = 'n8n-nodes-booking-requests.bookingRequestsTrigger';
const TRIGGER_NODE = 'Booking Requests Trigger';
const CRED_TYPE = 'bookingRequestsApi';
/** Sessions idle longer than this are abandoned; each round ends by moving the sandbox clock past it. */
const ABANDONED_AFTER_MINUTES = 1;
const UNFINISHED = ['new', 'running', 'waiting'];

interface Execution {
	id: string;
	status: string;
	mode: string;
}

/** An emitted item as the test judges it: its event and the id of the session or request it is about. */
const eventKey = (item: Record<string, unknown>): string => `${String(item.event)}|${String(item.event === 'session.abandoned' || item.event === 'session.completed' ? item.session_id : item.id)}`;
const sortedKeys = (items: Array<Record<string, unknown>>): string[] => items.map(eventKey).sort();
const sortedEventIds = (items: Array<Record<string, unknown>>): string[] => items.map((item) => String(item.event_id)).sort();

/** What one round of traffic made in the sandbox, and the events it must bring. */
interface Round {
	/** `event|id` of every event the round's traffic makes, sorted. */
	expected: string[];
	/** Sessions left unfinished: abandoned once the sandbox clock moved on. */
	abandoned: Session[];
}

describe('a lost save in a real n8n: the trigger starts again from the older static data n8n loads, and nothing is lost', () => {
	const state = loadState();
	let sandbox: Sandbox;
	let server: N8nServer | undefined;
	let rest: N8nRest;
	let database: N8nDatabase;
	let workflowId = '';
	/** Requests of the seeded data no round has changed yet (each round changes some: Request Updated). */
	let unchangedRequests: BookingRequest[] = [];
	const started = Date.now();
	const log = (message: string) => process.stderr.write(`[lost-save +${((Date.now() - started) / 1000).toFixed(1)} s] ${message}\n`);

	const api = <T>(method: string, route: string, body?: unknown): Promise<T> => restData<T>(rest, method, route, body);

	beforeAll(async () => {
		if (!('tarball' in state.pack)) throw new Error(`the package could not be built/packed:\n${state.pack.error}`);
		sandbox = await startSandbox({ port: 0, seed: 4242, sizes: { requests: 30, sessions: 30, forms: 2 } });
		unchangedRequests = sortRequests(sandbox.workspace().requests).slice(0, 12);
		const userFolder = makeUserFolder(state.workDir, 'lost-save-');
		await installTarball(userFolder, state.pack.tarball);
		server = await startN8n({ userFolder, install: state.install });
		rest = new N8nRest(server.url, state.install);
		await rest.setupOwner();
		database = new N8nDatabase(state.install, userFolder);
		// created as the editor does (saves two CLI starts)
		const credential = await api<{ id: string; name: string }>('POST', '/credentials', {
			name: 'Booking Requests (lost save)',
			type: CRED_TYPE,
			data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url },
		});
		const workflow = await api<{ id: string }>('POST', '/workflows', {
			name: 'lost save',
			nodes: [
				{
					id: 'trigger',
					name: TRIGGER_NODE,
					type: TRIGGER_TYPE,
					typeVersion: 1.1,
					position: [0, 0],
					parameters: {
						events: ['sessionAbandoned', 'sessionCompleted', 'requestCreated', 'requestUpdated'],
						abandonedAfterMinutes: ABANDONED_AFTER_MINUTES,
						// no scheduled poll: n8n polls when it publishes the workflow, and only then
						pollTimes: { item: [] },
					},
					credentials: { [CRED_TYPE]: { id: credential.id, name: credential.name } },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		});
		workflowId = workflow.id;
		log(`n8n ${state.install.version} on ${server.url}, sandbox ${sandbox.url}, workflow ${workflowId}`);
	});

	afterAll(async () => {
		await server?.stop();
		await sandbox?.close();
	});

	/** The trigger's executions, oldest first. */
	async function executions(): Promise<Execution[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const page = await api<{ results: Execution[] }>('GET', `/executions?filter=${filter}&limit=100`);
		return page.results.sort((a, b) => Number(a.id) - Number(b.id));
	}

	/** Waits until n8n recorded `count` executions of the trigger, all finished; returns them. */
	async function executionsSettled(count: number, what: string, timeoutMs = 90_000): Promise<Execution[]> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const list = await executions();
			if (list.length >= count && list.every((execution) => !UNFINISHED.includes(execution.status))) {
				// one execution per poll that emitted: a poll nobody expected shows here
				expect(list).toHaveLength(count);
				return list;
			}
			if (Date.now() > deadline) {
				const recorded = list.map(({ id, mode, status }) => ({ id, mode, status }));
				throw new Error(`${what}: expected ${count} finished executions of the trigger within ${timeoutMs / 1000} s, n8n has ${JSON.stringify(recorded)}`);
			}
			await sleep(500);
		}
	}

	/** The items the trigger emitted in an execution. */
	async function emittedIn(execution: Execution): Promise<Array<Record<string, unknown>>> {
		const run = await rest.waitForExecution(execution.id);
		if (!run.ok) throw new Error(`execution ${execution.id} failed: ${run.error?.message}`);
		return run.items[TRIGGER_NODE] ?? [];
	}

	/** What the editor shows of the publication: `in_progress` while n8n applies a publish or an unpublish. */
	async function publicationStatus(): Promise<string> {
		return (await api<{ status: string }>('GET', `/workflows/${workflowId}/publication-status`)).status;
	}

	/** Waits until n8n has applied the last publish or unpublish (its publication outbox is asynchronous). */
	async function publicationApplied(expected: 'published' | 'not_published', timeoutMs = 60_000): Promise<void> {
		const deadline = Date.now() + timeoutMs;
		let status = await publicationStatus();
		while (status !== expected) {
			if (Date.now() > deadline) throw new Error(`the workflow's publication status is ${status} after ${timeoutMs / 1000} s, not ${expected}`);
			await sleep(250);
			status = await publicationStatus();
		}
	}

	/** The editor's Publish; resolves once n8n has applied it: the triggers registered and the poll at publishing done. */
	async function publish(): Promise<void> {
		const { versionId } = await api<{ versionId: string }>('GET', `/workflows/${workflowId}`);
		await api('POST', `/workflows/${workflowId}/activate`, { versionId });
		await publicationApplied('published');
	}

	/** The editor's Unpublish; resolves once n8n has removed the triggers. */
	async function unpublish(): Promise<void> {
		await api('POST', `/workflows/${workflowId}/deactivate`, {});
		await publicationApplied('not_published');
	}

	/**
	 * One round of traffic: new sessions left unfinished, bookings from new drafts, from earlier rounds'
	 * abandoned drafts and without a draft, requests added and seeded requests changed; then the sandbox
	 * clock moves past Abandoned After.
	 */
	function playRound(name: string, recover: Session[] = []): Round {
		const abandoned = Array.from({ length: 4 }, () => sandbox.startSession());
		const booked = [
			...Array.from({ length: 2 }, () => sandbox.completeSession(sandbox.startSession().id)),
			...recover.map((session) => sandbox.completeSession(session.id)),
			sandbox.bookWithoutDraft(),
		];
		const added = [sandbox.addRequest()];
		const changed = unchangedRequests.splice(0, 2).map((request) => sandbox.updateRequest(request.id, { internal_notes: `round ${name}` }));
		sandbox.clock.advance((ABANDONED_AFTER_MINUTES + 1) * 60_000);
		const expected = [
			...abandoned.map((session) => `session.abandoned|${session.id}`),
			...booked.map(({ session }) => `session.completed|${session.id}`),
			...booked.map(({ request }) => `request.created|${request.id}`),
			...added.map((request) => `request.created|${request.id}`),
			...changed.map((request) => `request.updated|${request.id}`),
		].sort();
		return { expected, abandoned };
	}

	/** Unpublishes and publishes again: n8n loads the workflow, and its static data, from the database and polls. */
	async function republish(): Promise<void> {
		await unpublish();
		await publish();
	}

	let roundA: Round;
	let roundB: Round;
	/** The static data n8n held after round A was delivered (the older state the lost save leaves). */
	let staticDataAfterA = '';
	/** What round B's poll emitted, for the comparison with what the poll after the lost save emits. */
	let emittedB: Array<Record<string, unknown>> = [];

	test('publishing takes the baseline: the trigger emits nothing, and n8n saves its state', async () => {
		await publish();
		expect((await database.staticDataText(workflowId)) ?? 'nothing saved').toContain(`node:${TRIGGER_NODE}`);
		// round A's executions are counted from here: none yet (the baseline emits nothing)
		expect(await executions()).toEqual([]);
	});

	test('round A is delivered once by the next poll, and n8n saves the state after it (S1)', async () => {
		const before = await database.staticDataText(workflowId);
		roundA = playRound('A');
		await republish();
		const [execution] = await executionsSettled(1, 'the poll after round A');
		expect(sortedKeys(await emittedIn(execution))).toEqual(roundA.expected);
		staticDataAfterA = (await database.staticDataText(workflowId)) ?? '';
		expect(staticDataAfterA).not.toBe(before);
	});

	test('round B is delivered once, and n8n saves a newer state than S1', async () => {
		roundB = playRound('B', roundA.abandoned.slice(0, 2));
		await republish();
		const list = await executionsSettled(2, 'the poll after round B');
		emittedB = await emittedIn(list[1]);
		expect(sortedKeys(emittedB)).toEqual(roundB.expected);
		expect(await database.staticDataText(workflowId)).not.toBe(staticDataAfterA);
	});

	test('the lost save: n8n loads S1 again while this process keeps the memory of the newer state; the next poll delivers B again with the same event_ids, and nothing of A', async () => {
		await unpublish();
		await database.restoreStaticData(workflowId, staticDataAfterA);
		expect(await database.staticDataText(workflowId)).toBe(staticDataAfterA);
		log('S1 written back into workflow_entity.staticData; publishing');
		await publish();
		const list = await executionsSettled(3, 'the poll after the lost save');
		const again = await emittedIn(list[2]);
		log(`the poll after the lost save emitted ${again.length} items (round B: ${roundB.expected.length})`);
		expect(sortedKeys(again)).toEqual(roundB.expected);
		expect(sortedEventIds(again)).toEqual(sortedEventIds(emittedB));
		for (const key of roundA.expected) expect(sortedKeys(again)).not.toContain(key);
	});

	test('round C after the lost save is delivered once, and over the whole run every event came, only B twice', async () => {
		const roundC = playRound('C', roundB.abandoned.slice(0, 1));
		await republish();
		const list = await executionsSettled(4, 'the poll after round C');
		expect(sortedKeys(await emittedIn(list[3]))).toEqual(roundC.expected);

		// no other poll emitted anything, and every execution succeeded
		const all = await executions();
		expect(all.map((execution) => [execution.mode, execution.status])).toEqual(Array.from({ length: 4 }, () => ['trigger', 'success']));
		const delivered = new Map<string, number>();
		for (const execution of all) for (const key of sortedKeys(await emittedIn(execution))) delivered.set(key, (delivered.get(key) ?? 0) + 1);
		const times = (round: Round) => round.expected.map((key) => delivered.get(key));
		expect(times(roundA)).toEqual(roundA.expected.map(() => 1));
		expect(times(roundB)).toEqual(roundB.expected.map(() => 2));
		expect(times(roundC)).toEqual(roundC.expected.map(() => 1));
		expect(delivered.size).toBe(roundA.expected.length + roundB.expected.length + roundC.expected.length);
		log(`rounds A, B, C: ${roundA.expected.length}, ${roundB.expected.length}, ${roundC.expected.length} events; B delivered twice (the lost save), the others once`);
	});
});
