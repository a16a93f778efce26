/**
 * Every run of the package works without n8n's regex engine. n8n-workflow runs the regular expressions
 * a node or credential description asks for (a `_cnd: { regex }` display condition, a resource
 * locator's `validation`, an `extractValue` regex) in its safe regex engine: a `vm` with a 250 ms
 * watchdog that throws "Regular expression execution timed out" on a starved server. n8n evaluates a
 * credential's display conditions whenever it resolves the credential (every execution, poll,
 * credential test and Fetch Test Event: n8n's CLI, CredentialsHelper.applyDefaultsAndOverwrites, puts
 * the saved values through NodeHelpers.getNodeParameters with the credential's properties), and checks
 * a workflow's parameters (resource locators included) before every execution (WorkflowExecute).
 *
 * Here the engine throws that error on every call, as on a starved server, and the package runs in
 * n8n-core's real execution contexts against the sandbox: the credential test, all six operations (Form
 * filters By ID), the Form picker, a poll of the trigger and Fetch Test Event.
 */
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type { INode, INodeExecutionData, INodeParameters, IWorkflowExecuteAdditionalData, RegexEngine } from 'n8n-workflow';
import { NodeHelpers, resetSafeRegexEngine, setSafeRegexEngine, Workflow } from 'n8n-workflow';

import { BookingRequestsApi } from '../../credentials/BookingRequestsApi.credentials';
import { TRIGGER_TYPE, type Harness, type TestCredentials } from '../../harness/inProcessN8n';
import type { Sandbox } from '../../sandbox';
import { hashKey } from '../../sandbox';
import { pressTest } from '../support/credentialTester';
import { pacing429s, withoutOwn429s } from '../support/pacing429';
import { withSandbox } from '../support/sandboxSuite';

jest.setTimeout(120_000);

const STARVED = 'Regular expression execution timed out';

/** n8n's regex engine on a starved server: every call times out. Counts the calls (patterns). */
const engineCalls: string[] = [];
const starvedEngine: RegexEngine = {
	exec: (pattern) => starve(pattern),
	test: (pattern) => starve(pattern),
	replace: (pattern) => starve(pattern),
	matchAll: (pattern) => starve(pattern),
	split: (pattern) => starve(pattern),
};
function starve(pattern: string): never {
	engineCalls.push(pattern);
	throw new Error(STARVED);
}

const CREDENTIAL_PROPERTIES = new BookingRequestsApi().properties;

/** The credential's values as n8n's CLI hands them to a node or to the credential test: defaults applied, display conditions evaluated. */
function resolvedAsN8nDoes(saved: TestCredentials): TestCredentials {
	return NodeHelpers.getNodeParameters(CREDENTIAL_PROPERTIES, saved, true, false, null, null) as TestCredentials;
}

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

let sandbox: Sandbox;
let harness: Harness;
withSandbox({ sizes: { requests: 30, sessions: 30, forms: 3, profiles: 3 } }, (started, ready) => {
	sandbox = started;
	harness = ready;
	harness.credentialsHelper.getDecrypted = async () => resolvedAsN8nDoes(harness.credentials);
});

beforeAll(() => setSafeRegexEngine(starvedEngine));
afterAll(() => resetSafeRegexEngine());
beforeEach(() => {
	engineCalls.length = 0;
});
// Not one call, rather than only "no error": n8n could catch an engine error somewhere and carry on
// (a condition read as false, an issue dropped), and on a busy server even a regex that finishes costs
// a vm round trip under the watchdog; a run that never asks the engine cannot meet either.
afterEach(() => expect(engineCalls).toEqual([]));

/** "Fetch Test Event" as n8n runs it: a manual execution from the trigger (WorkflowExecute, its parameter checks included). */
async function fetchTestEvent(parameters: INodeParameters): Promise<{ items: INodeExecutionData[]; error?: Error }> {
	const trigger: INode = {
		id: 'trigger',
		name: 'Booking Requests Trigger',
		type: TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { bookingRequestsApi: { id: 'cred-1', name: 'Booking Requests (test)' } },
	};
	const description = harness.nodeTypes.getByNameAndVersion(TRIGGER_TYPE).description;
	trigger.parameters = NodeHelpers.getNodeParameters(description.properties, parameters, true, false, trigger, description) ?? {};
	const workflow = new Workflow({ id: 'wf-fetch', nodes: [trigger], connections: {}, active: false, nodeTypes: harness.nodeTypes });
	const hooks = new ExecutionLifecycleHooks('manual', 'fetch-1', { id: workflow.id, name: 'fetch', nodes: [trigger], connections: {} } as never);
	const additionalData = { ...harness.additionalData, executionId: 'fetch-1', hooks } as IWorkflowExecuteAdditionalData;
	const run = await new WorkflowExecute(additionalData, 'manual').run({ workflow, startNode: trigger });
	const taskData = run.data.resultData.runData[trigger.name]?.[0];
	return { items: taskData?.data?.main?.[0] ?? [], error: (taskData?.error ?? run.data.resultData.error) as Error | undefined };
}

describe("with n8n's regex engine timing out on every call (a starved server)", () => {
	test('the credential test answers as usual', async () => {
		const result = await pressTest(resolvedAsN8nDoes({ apiKey: sandbox.keys.second, baseUrl: sandbox.url }));
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	test('all six operations work, with a Form filter By ID where the operation has one', async () => {
		const workspace = sandbox.workspace();
		const request = workspace.requests[0];
		const form = byId(request.form_id);
		const runs: Array<[string, INodeParameters]> = [
			['Get by ID', { resource: 'bookingRequest', operation: 'get', requestId: request.id }],
			['Get Many requests of a form', { resource: 'bookingRequest', operation: 'getAll', limit: 5, filters: { formId: form } }],
			['Find by Customer', { resource: 'bookingRequest', operation: 'findByCustomer', email: request.email, filters: { formId: form } }],
			['Get Many sessions of a form', { resource: 'bookingSession', operation: 'getAll', limit: 5, filters: { formId: form } }],
			['Get Many forms', { resource: 'bookingForm', operation: 'getAll', limit: 5 }],
			['Get Many business profiles of a form', { resource: 'businessProfile', operation: 'getAll', limit: 5, filters: { formId: form } }],
		];
		for (const [label, parameters] of runs) {
			const result = await harness.runAction(parameters);
			expect([label, result.error?.message]).toEqual([label, undefined]);
			if (label === 'Get by ID') expect(result.items.map((item) => item.json.id)).toEqual([request.id]);
		}
		// One call each (none refused, none of them a 429 of the pacing's), the Form filter sent where it
		// was set. The API's own 429s left out: a stall of this busy process can bring a paced call in
		// short of the last one's second (the server's 429, retried); pacing429s judges whether the pacing caused any.
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
		expect(withoutOwn429s(sandbox.log).map((entry) => [entry.path, entry.status, entry.query.form_id])).toEqual([
			[`/api/v1/requests/${request.id}`, 200, undefined],
			['/api/v1/requests', 200, request.form_id],
			['/api/v1/requests', 200, request.form_id],
			['/api/v1/abandoned-sessions', 200, request.form_id],
			['/api/v1/forms', 200, undefined],
			['/api/v1/profiles', 200, request.form_id],
		]);
	});

	test('the Form picker lists the forms', async () => {
		const result = await harness.listSearch('searchForms');
		expect(result.results.map((entry) => entry.value).sort()).toEqual(sandbox.workspace().forms.map((form) => form.id).sort());
	});

	test('polls of the published trigger (Form By ID): the first sets the baseline, the next emits a new request', async () => {
		const formId = sandbox.workspace().forms[0].id;
		const parameters = { events: ['requestCreated'], formId: byId(formId) };
		const state = { staticData: {} };
		expect(await harness.poll(parameters, state)).toBeNull();
		sandbox.clock.advance(60_000);
		const added = sandbox.addRequest({ form_id: formId });
		const emitted = await harness.poll(parameters, state);
		expect(emitted?.[0].map((item) => item.json.id)).toEqual([added.id]);
	});

	test('Fetch Test Event (Form By ID) gives the samples', async () => {
		const formId = sandbox.workspace().forms[0].id;
		const { items, error } = await fetchTestEvent({ events: ['sessionAbandoned', 'requestCreated'], formId: byId(formId) });
		expect(error?.message).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
	});
});
