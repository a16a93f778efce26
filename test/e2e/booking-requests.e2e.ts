/**
 * The packed n8n-nodes-booking-requests inside a real n8n, against the sandbox API (in-process):
 * every operation run as the editor's "Execute workflow" runs it (REST, mode manual), compared with
 * the sandbox's own data; 404 and 401 with their messages; the credential's test request through
 * n8n's REST API; the polling trigger's manual run ("Fetch Test Event"). One `n8n start` serves the
 * file (an `n8n execute` per workflow started n8n 18 times); `n8n execute` itself is run by
 * runtime.e2e.ts, ai-agent.e2e.ts and editions.e2e.ts.
 */
import { TEST_MESSAGES } from '../../credentials/BookingRequestsApi.credentials';
import { installTarball } from '../../harness/n8n/communityPackage';
import { makeUserFolder, type ExecutionResult, type WorkflowImport, type WorkflowNode } from '../../harness/n8n/workflows';
import { N8nCli } from '../../harness/n8n/cli';
import type { N8nRest } from '../../harness/n8n/rest';
import { acceptedEntries } from '../../harness/sandboxGaps';
import { hashKey, sortDefaultFirst, sortRequests, sortSessions, startSandbox, type Sandbox, type Workspace } from '../../sandbox';
import { loadState } from './helpers/state';
import { withN8nServer } from './helpers/server';

const PKG = 'n8n-nodes-booking-requests';
const ACTION = `${PKG}.bookingRequests`;
const TRIGGER = `${PKG}.bookingRequestsTrigger`;
const CRED_TYPE = 'bookingRequestsApi';

const CRED = {
	demo: { id: 'brCredDemo000001', name: 'Booking Requests (demo key)' },
	revoked: { id: 'brCredRevoked001', name: 'Booking Requests (revoked key)' },
	other: { id: 'brCredOther00001', name: 'Booking Requests (other workspace)' },
};
type CredName = keyof typeof CRED;

const NODE = 'Booking Requests';
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

/** Manual Trigger -> Booking Requests node with these parameters. */
function actionWorkflow(id: string, parameters: Record<string, unknown>, cred: CredName = 'demo'): WorkflowImport {
	const node: WorkflowNode = {
		id: 'b1',
		name: NODE,
		type: ACTION,
		typeVersion: 1,
		position: [220, 0],
		parameters,
		credentials: { [CRED_TYPE]: CRED[cred] },
	};
	return {
		id,
		name: `e2e ${id}`,
		nodes: [{ id: 'm1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }, node],
		connections: { Start: { main: [[{ node: NODE, type: 'main', index: 0 }]] } },
	};
}

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const ids = (items: Array<Record<string, unknown>>) => items.map((i) => i.id);
/** The sandbox's objects as they travel over the API (JSON). */
const asJson = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('n8n-nodes-booking-requests in a real n8n', () => {
	const state = loadState();
	let sandbox: Sandbox;
	let ws: Workspace;
	let userFolder: string;
	let rest: N8nRest;
	/** Workflow id -> parameters, filled while the test cases are declared. */
	const workflows: WorkflowImport[] = [];
	const results = new Map<string, Promise<ExecutionResult>>();

	// Cases need sandbox data to build their parameters, so workflows are built in beforeAll
	// from these builders, then imported with one CLI call.
	const builders: Array<(w: Workspace, other: Workspace) => WorkflowImport> = [];
	function wf(id: string, build: (w: Workspace, other: Workspace) => [Record<string, unknown>, CredName?]) {
		builders.push((w, o) => {
			const [params, cred] = build(w, o);
			return actionWorkflow(id, params, cred);
		});
		return id;
	}
	/** Executes a workflow once from its Manual Trigger (cached: several assertions may look at one run). */
	function exec(id: string): Promise<ExecutionResult> {
		if (!results.has(id)) results.set(id, rest.runFromTrigger(id, 'Start'));
		return results.get(id)!;
	}
	async function okItems(id: string): Promise<Array<Record<string, unknown>>> {
		const run = await exec(id);
		if (!run.ok) throw new Error(`workflow ${id} failed: ${run.error?.message} ${run.error?.description ?? ''}`);
		return run.items[NODE];
	}

	// ------------------------------------------------------------------ workflows
	const W = {
		requestsAll: wf('brReqAll00000001', () => [{ resource: 'bookingRequest', operation: 'getAll', returnAll: true, simplify: false }]),
		requestsLimit: wf('brReqLimit000001', () => [{ resource: 'bookingRequest', operation: 'getAll', returnAll: false, limit: 7 }]),
		requestsByForm: wf('brReqForm0000001', (w) => [
			{ resource: 'bookingRequest', operation: 'getAll', returnAll: true, filters: { formId: rl(busiestForm(w)) } },
		]),
		requestsByProfile: wf('brReqProfile0001', (w) => [
			{ resource: 'bookingRequest', operation: 'getAll', returnAll: true, filters: { businessProfileId: rl(busiestProfile(w)) } },
		]),
		requestsCreatedAfter: wf('brReqCreated0001', (w) => [
			{ resource: 'bookingRequest', operation: 'getAll', returnAll: true, filters: { createdAfter: createdAfterCut(w) } },
		]),
		requestGetRaw: wf('brReqGetRaw00001', (w) => [{ resource: 'bookingRequest', operation: 'get', requestId: sortRequests(w.requests)[3].id, simplify: false }]),
		requestGetSimple: wf('brReqGetSimple01', (w) => [{ resource: 'bookingRequest', operation: 'get', requestId: sortRequests(w.requests)[3].id }]),
		sessionsAll: wf('brSesAll00000001', () => [{ resource: 'bookingSession', operation: 'getAll', returnAll: true, simplify: false }]),
		sessionsAbandoned: wf('brSesAbandoned01', () => [
			{ resource: 'bookingSession', operation: 'getAll', returnAll: true, filters: { status: 'abandoned' } },
		]),
		sessionsCompletedWithRequest: wf('brSesCompleted01', () => [
			{
				resource: 'bookingSession',
				operation: 'getAll',
				returnAll: false,
				limit: 3,
				filters: { status: 'completed' },
				options: { includeRequest: true },
				simplify: false,
			},
		]),
		sessionsByForm: wf('brSesForm0000001', (w) => [
			{ resource: 'bookingSession', operation: 'getAll', returnAll: true, filters: { formId: rl(busiestForm(w)) } },
		]),
		forms: wf('brForms000000001', () => [{ resource: 'bookingForm', operation: 'getAll', returnAll: true, simplify: false }]),
		profiles: wf('brProfiles000001', () => [{ resource: 'businessProfile', operation: 'getAll', returnAll: true, simplify: false }]),
		profilesByForm: wf('brProfForm000001', (w) => [
			{ resource: 'businessProfile', operation: 'getAll', returnAll: true, filters: { formId: rl(formWithProfiles(w)) } },
		]),
		// errors
		getUnknown: wf('brErr404Unknown1', () => [{ resource: 'bookingRequest', operation: 'get', requestId: UNKNOWN_UUID }]),
		getOtherWorkspace: wf('brErr404Other001', (_w, o) => [{ resource: 'bookingRequest', operation: 'get', requestId: o.requests[0].id }]),
		revoked: wf('brErr401Revoked1', () => [{ resource: 'bookingForm', operation: 'getAll', returnAll: true }, 'revoked']),
		otherWorkspaceForms: wf('brOtherForms0001', () => [{ resource: 'bookingForm', operation: 'getAll', returnAll: true }, 'other']),
	};

	const TRIGGER_WF: WorkflowImport = {
		id: 'brTrigger0000001',
		name: 'e2e trigger',
		nodes: [
			{
				id: 't1',
				name: 'Booking Requests Trigger',
				type: TRIGGER,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					events: ['sessionAbandoned', 'sessionCompleted', 'requestCreated'],
					abandonedAfterMinutes: 30,
					options: { includeRequest: true },
				},
				credentials: { [CRED_TYPE]: CRED.demo },
			},
		],
		connections: {},
	};

	function busiestForm(w: Workspace): string {
		return maxBy(w.forms.map((f) => f.id), (id) => w.requests.filter((r) => r.form_id === id).length);
	}
	function busiestProfile(w: Workspace): string {
		return maxBy(w.profiles.map((p) => p.id), (id) => w.requests.filter((r) => r.business_profile_id === id).length);
	}
	function formWithProfiles(w: Workspace): string {
		return maxBy(w.forms.map((f) => f.id), (id) => w.profiles.filter((p) => p.form_id === id).length);
	}
	/** created_at of the 11th newest request: "created after" it = the 10 newest (ties aside). */
	function createdAfterCut(w: Workspace): string {
		return sortRequests(w.requests)[10].created_at;
	}

	/**
	 * A credential test is n8n's own request, outside the node's limiter: it waits until the sandbox
	 * would accept the demo key again (1 s after the last request it accepted, by its own arrival times;
	 * not a fixed sleep).
	 */
	async function demoKeyFree(): Promise<void> {
		const accepted = acceptedEntries(sandbox.log, hashKey(sandbox.keys.demo));
		const freeAt = (accepted.at(-1)?.at ?? 0) + 1000 + 50;
		const now = performance.timeOrigin + performance.now();
		if (freeAt > now) await new Promise((r) => setTimeout(r, freeAt - now));
	}

	beforeAll(async () => {
		if (!('tarball' in state.pack)) throw new Error(`the package could not be built/packed:\n${state.pack.error}`);
		sandbox = await startSandbox({ port: 0, seed: 42, sizes: { requests: 140, sessions: 160 } });
		ws = sandbox.workspace();
		const other = sandbox.workspace(sandbox.keys.other);

		userFolder = makeUserFolder(state.workDir);
		await installTarball(userFolder, state.pack.tarball);
		const cli = new N8nCli(state.install, userFolder);
		const data = (key: string) => ({ apiKey: key, baseUrl: sandbox.url });
		await cli.importCredentials([
			{ ...CRED.demo, type: CRED_TYPE, data: data(sandbox.keys.demo) },
			{ ...CRED.revoked, type: CRED_TYPE, data: data(sandbox.keys.revoked) },
			{ ...CRED.other, type: CRED_TYPE, data: data(sandbox.keys.other) },
		]);
		workflows.push(...builders.map((b) => b(ws, other)), TRIGGER_WF);
		await cli.importWorkflows(workflows);
	});
	// One `n8n start` for the file, after the imports above.
	withN8nServer(() => ({ userFolder, install: state.install }), (started) => (rest = started));

	afterAll(async () => {
		await sandbox?.close();
	});

	describe('Booking Request', () => {
		test('Get Many, Return All, raw: every request, newest first, exactly as the API has them', async () => {
			const items = await okItems(W.requestsAll);
			const expected = asJson(sortRequests(ws.requests));
			expect(ids(items)).toEqual(ids(expected as never));
			expect(items).toEqual(expected);
		});

		test('Get Many with Limit 7 (simplified)', async () => {
			const items = await okItems(W.requestsLimit);
			expect(ids(items)).toEqual(sortRequests(ws.requests).slice(0, 7).map((r) => r.id));
			expect(Object.keys(items[0])).toEqual(expect.arrayContaining(['id', 'email', 'status', 'form_id']));
			expect(items[0]).not.toHaveProperty('intake_responses');
		});

		test('Get Many filtered by form', async () => {
			const form = busiestForm(ws);
			const items = await okItems(W.requestsByForm);
			expect(items.length).toBeGreaterThan(0);
			expect(ids(items)).toEqual(sortRequests(ws.requests.filter((r) => r.form_id === form)).map((r) => r.id));
		});

		test('Get Many filtered by business profile', async () => {
			const profile = busiestProfile(ws);
			const items = await okItems(W.requestsByProfile);
			expect(items.length).toBeGreaterThan(0);
			expect(ids(items)).toEqual(sortRequests(ws.requests.filter((r) => r.business_profile_id === profile)).map((r) => r.id));
		});

		test('Get Many created after a date', async () => {
			const cut = Date.parse(createdAfterCut(ws));
			const items = await okItems(W.requestsCreatedAfter);
			expect(ids(items)).toEqual(sortRequests(ws.requests.filter((r) => Date.parse(r.created_at) > cut)).map((r) => r.id));
		});

		test('Get, raw: the request object itself', async () => {
			const items = await okItems(W.requestGetRaw);
			expect(items).toEqual([asJson(sortRequests(ws.requests)[3])]);
		});

		test('Get, simplified: the documented subset', async () => {
			const expected = sortRequests(ws.requests)[3];
			const items = await okItems(W.requestGetSimple);
			expect(items).toHaveLength(1);
			expect(items[0].id).toBe(expected.id);
			expect(items[0].email).toBe(expected.email);
			expect(items[0]).not.toHaveProperty('intake_responses');
		});
	});

	describe('Booking Session', () => {
		test('Get Many, Return All, raw: every session, most recently active first', async () => {
			const items = await okItems(W.sessionsAll);
			expect(ids(items)).toEqual(sortSessions(ws.sessions).map((s) => s.id));
			expect(items).toEqual(asJson(sortSessions(ws.sessions)));
		});

		test('Status = Abandoned: the sessions without a request', async () => {
			const items = await okItems(W.sessionsAbandoned);
			const expected = sortSessions(ws.sessions.filter((s) => s.request_id === null));
			expect(expected.length).toBeGreaterThan(0);
			expect(ids(items)).toEqual(expected.map((s) => s.id));
			for (const item of items) expect(item.status).toBe('abandoned');
		});

		test('Status = Completed with Include Booking Request', async () => {
			const items = await okItems(W.sessionsCompletedWithRequest);
			const expected = sortSessions(ws.sessions.filter((s) => s.request_id !== null)).slice(0, 3);
			expect(ids(items)).toEqual(expected.map((s) => s.id));
			for (const item of items) {
				const request = ws.requests.find((r) => r.id === item.request_id);
				expect(item.request).toEqual(asJson(request));
			}
		});

		test('Get Many filtered by form', async () => {
			const form = busiestForm(ws);
			const items = await okItems(W.sessionsByForm);
			expect(ids(items)).toEqual(sortSessions(ws.sessions.filter((s) => s.form_id === form)).map((s) => s.id));
		});
	});

	describe('Booking Form and Business Profile', () => {
		test('forms: all, default first, exactly as the API has them', async () => {
			const items = await okItems(W.forms);
			expect(items).toEqual(asJson(sortDefaultFirst(ws.forms)));
		});

		test('business profiles: the live ones, default first', async () => {
			const items = await okItems(W.profiles);
			expect(items).toEqual(asJson(sortDefaultFirst(ws.profiles)));
			const deleted = new Set(ws.deletedProfiles.map((p) => p.id));
			for (const item of items) expect(deleted.has(String(item.id))).toBe(false);
		});

		test('business profiles filtered by form', async () => {
			const form = formWithProfiles(ws);
			const items = await okItems(W.profilesByForm);
			expect(ids(items)).toEqual(sortDefaultFirst(ws.profiles.filter((p) => p.form_id === form)).map((p) => p.id));
		});

		test("another workspace's key sees only that workspace", async () => {
			const other = sandbox.workspace(sandbox.keys.other);
			const items = await okItems(W.otherWorkspaceForms);
			expect(ids(items)).toEqual(sortDefaultFirst(other.forms).map((f) => f.id));
		});
	});

	describe('errors', () => {
		test('Get with an unknown id: 404 with a clear message', async () => {
			const run = await exec(W.getUnknown);
			expect(run.ok).toBe(false);
			expect(String(run.error?.httpCode)).toBe('404');
			expect(run.error?.message).toBe(`Not found: booking request ${UNKNOWN_UUID} does not exist in this workspace`);
			expect(run.error?.description).toMatch(/belongs to another workspace/);
		});

		test("Get with another workspace's request id: the same 404", async () => {
			const run = await exec(W.getOtherWorkspace);
			expect(run.ok).toBe(false);
			expect(String(run.error?.httpCode)).toBe('404');
			expect(run.error?.message).toMatch(/^Not found: booking request .* does not exist in this workspace$/);
		});

		test('revoked key: 401 with a clear message', async () => {
			const run = await exec(W.revoked);
			expect(run.ok).toBe(false);
			expect(String(run.error?.httpCode)).toBe('401');
			expect(run.error?.message).toBe('Authorization failed: the API key was rejected (401 unauthorized)');
			expect(run.error?.description).toMatch(/revoked/);
		});
	});

	describe('REST API, as the editor uses it', () => {
		test('n8n loaded both nodes and the credential type', async () => {
			expect(await rest.nodeTypeNames()).toEqual(expect.arrayContaining([ACTION, TRIGGER]));
			expect(await rest.credentialTypeNames()).toContain(CRED_TYPE);
		});

		test('credential test: the demo key passes', async () => {
			await demoKeyFree();
			const res = await rest.testCredential({ ...CRED.demo, type: CRED_TYPE });
			expect(res).toEqual({ status: 'OK', message: 'Connection successful!' });
		});

		test('credential test: the revoked key fails with the 401 explanation', async () => {
			const res = await rest.testCredential({ ...CRED.revoked, type: CRED_TYPE });
			// the credential's declarative test: the same rules on n8n 1.x and 2.x
			expect(res).toEqual({ status: 'Error', message: TEST_MESSAGES.unauthorized });
		});

		test('credential test: a key of the wrong shape is explained, and the key is not sent', async () => {
			const before = sandbox.log.length;
			const res = await rest.testCredential({ ...CRED.demo, type: CRED_TYPE, data: { apiKey: 'brk_12345', baseUrl: sandbox.url } });
			// eslint-disable-next-line no-console
			console.log(`[credential test, wrong-shape key] ${JSON.stringify(res)}`);
			expect(res).toEqual({ status: 'Error', message: TEST_MESSAGES.unauthorized });
			expect(res.message).toMatch(/a prefix of 4 characters ending in "_", then 32 hexadecimal characters/);
			// one request, without any key
			expect(sandbox.log.slice(before).map((entry) => [entry.status, entry.keyHash ?? null])).toEqual([[401, null]]);
		});

		test('credential test: an unknown host gives the network error code', async () => {
			const res = await rest.testCredential({ ...CRED.demo, type: CRED_TYPE, data: { baseUrl: 'https://no-such-host.invalid' } });
			// eslint-disable-next-line no-console
			console.log(`[credential test, unknown host] ${JSON.stringify(res)}`);
			// n8n 2.x gives the network error's code; n8n 1.x its own sentence for an unreachable host.
			const expected = state.install.version.startsWith('1.')
				? /^The connection cannot be established, this usually occurs due to an incorrect host \(domain\) value$/
				: /^(ENOTFOUND|EAI_AGAIN)$/;
			expect(res).toEqual({ status: 'Error', message: expect.stringMatching(expected) });
		});

		test('trigger "Fetch Test Event" (manual poll) returns up to 3 simplified samples per selected event', async () => {
			await demoKeyFree();
			const run = await rest.runFromTrigger(TRIGGER_WF.id, 'Booking Requests Trigger');
			expect(run.ok).toBe(true);
			const items = run.items['Booking Requests Trigger'];
			// eslint-disable-next-line no-console
			console.log(`[Fetch Test Event in n8n ${state.install.version}: one simplified item per event]\n${JSON.stringify(
				['session.abandoned', 'session.completed', 'request.created'].map((event) => items.find((i) => i.event === event)),
				null,
				2,
			)}`);
			const of = (event: string) => items.filter((i) => i.event === event);
			for (const event of ['session.abandoned', 'session.completed', 'request.created']) expect(of(event)).toHaveLength(3);
			const session = (id: unknown) => ws.sessions.find((s) => s.id === id);
			const formName = (id: unknown) => ws.forms.find((f) => f.id === id)?.name;
			for (const item of of('session.abandoned')) {
				expect(session(item.session_id)?.request_id).toBeNull();
				expect(item.email).toBe(session(item.session_id)?.data.contact?.email);
				expect(item.form_name).toBe(formName(item.form_id));
				expect(item).not.toHaveProperty('data');
			}
			for (const item of of('session.completed')) {
				const completed = session(item.session_id);
				expect(completed?.request_id).toBeTruthy();
				expect(item.request_id).toBe(completed?.request_id);
				expect((item.request as { id: string }).id).toBe(completed?.request_id);
			}
			expect(of('request.created').map((i) => i.id)).toEqual(sortRequests(ws.requests).slice(0, 3).map((r) => r.id));
			expect(of('request.created')[0].form_name).toBe(formName(of('request.created')[0].form_id));
		});
	});
});

function maxBy<T>(list: T[], score: (t: T) => number): T {
	let best = list[0];
	let bestScore = -Infinity;
	for (const item of list) {
		const s = score(item);
		if (s > bestScore) {
			best = item;
			bestScore = s;
		}
	}
	return best;
}
