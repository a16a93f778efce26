/**
 * Issue 8, secrets: during a run full of failures (retries, 401, 404, 500, 429, dropped connections,
 * broken answers, a TLS failure, a refused Base URL, trigger polls that fail), the API key — whole, or
 * its 32-hex secret part — never appears in error messages and descriptions, n8n's execution data (the
 * whole IRun, JSON), the trigger's static data, limiter ids, or anything logged (console, stdout /
 * stderr, n8n's LoggerProxy and container Logger).
 */
import type { INodeParameters } from 'n8n-workflow';

import { createHarness } from '../../harness/inProcessN8n';
import type { ActionResult } from '../../harness/inProcessN8n';
import { everythingIn } from '../support/secrets';
import type { FaultOptions, Sandbox } from '../../sandbox';
import { sortRequests, startSandbox } from '../../sandbox';
import { TriggerRun } from '../nodes/BookingRequestsTrigger/trigger';
import { API_PATHS } from '../../nodes/shared/constants';
import { limiterIds } from '../../nodes/shared/transport/limiter/registry';
import { paginate } from '../../nodes/shared/transport/paginate';
import { apiRequest } from '../../nodes/shared/transport/request';
import type { LogCapture } from './helpers';
import { captureLogs, leaksOf, safeJson } from './helpers';

let sandbox: Sandbox;
let logs: LogCapture;

beforeAll(async () => {
	logs = captureLogs(); // before anything of n8n's HTTP layer is created, so its logger is ours too
	sandbox = await startSandbox({ sizes: { requests: 120, sessions: 120, forms: 3, profiles: 6 } });
});
afterAll(async () => {
	logs.restore();
	await sandbox.close();
});

test('a run with failures leaks the API key nowhere', async () => {
	const keys = () => [sandbox.keys.demo, sandbox.keys.second, sandbox.keys.revoked, sandbox.keys.other, `${sandbox.keys.demo}x`];
	const runs: ActionResult[] = [];
	const errors: unknown[] = [];
	const staticData: unknown[] = [];

	const demo = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
	const action = async (parameters: INodeParameters, faults: FaultOptions = {}, options: Parameters<typeof demo.runAction>[1] = {}) => {
		sandbox.setFaults(faults);
		const result = await demo.runAction(parameters, options);
		sandbox.setFaults({});
		runs.push(result);
		if (result.error) errors.push(result.error);
		return result;
	};
	const all = (resource: string): INodeParameters => ({ resource, operation: 'getAll', returnAll: true });

	// Retried and recovered: 429s, 500s, dropped connections, latency, churn.
	const recovered = await action(all('bookingSession'), { every429: 3, every500: 5, dropEvery: 7, latencyMs: [0, 100], churnSessionsPerPage: 3 });
	expect(recovered.error).toBeUndefined();
	// Failed for good, or broken answers.
	for (const faults of [{ malformed: 'html' }, { malformed: 'truncated' }, { malformed: 'errorBody200' }, { malformed: 'duplicateIds' }] as FaultOptions[]) {
		const failed = await action(all('bookingRequest'), faults);
		expect(failed.error).toBeDefined();
	}
	// 404 of another workspace's id, hostile ids, Continue On Fail.
	const otherId = sandbox.workspace(sandbox.keys.other).requests[0].id;
	const good = sortRequests(sandbox.workspace().requests)[0].id;
	const mixed = await action(
		{ resource: 'bookingRequest', operation: 'get', requestId: '={{ $json.rid }}' },
		{},
		{ input: [{ rid: otherId }, { rid: '../forms' }, { rid: good }], continueOnFail: true },
	);
	expect(mixed.items.map((item) => Boolean(item.json.error))).toEqual([true, true, false]);
	await action({ resource: 'bookingRequest', operation: 'get', requestId: otherId });

	// Rejected keys: revoked, and of the wrong shape (a pasted key with one character too many).
	for (const apiKey of [sandbox.keys.revoked, `${sandbox.keys.demo}x`]) {
		const rejected = createHarness({ apiKey, baseUrl: sandbox.url });
		const result = await rejected.runAction(all('bookingForm'));
		expect(result.error?.message).toMatch(/401 unauthorized/);
		runs.push(result);
		errors.push(result.error);
		errors.push(await rejected.listSearch('searchForms').catch((e: unknown) => e));
		errors.push(await apiRequest(rejected.context(), API_PATHS.forms).catch((e: unknown) => e));
	}
	// TLS failure and a refused Base URL.
	for (const baseUrl of [sandbox.url.replace('http://', 'https://'), 'http://api.example.com']) {
		const result = await createHarness({ apiKey: sandbox.keys.second, baseUrl }).runAction(all('bookingForm'));
		expect(result.error).toBeDefined();
		runs.push(result);
		errors.push(result.error);
	}
	// The transport called directly, failing.
	sandbox.setFaults({ malformed: 'noItems' });
	errors.push(await paginate(demo.context(), API_PATHS.profiles).catch((e: unknown) => e));
	sandbox.setFaults({});

	// The trigger: baseline, events, a failing poll, a test event; its static data after each.
	const run = new TriggerRun(demo, sandbox, { events: ['sessionAbandoned', 'sessionCompleted', 'requestCreated'], options: { includeRequest: true } });
	await run.poll();
	staticData.push(run.state.staticData);
	const session = sandbox.startSession();
	sandbox.completeSession(sandbox.startSession().id);
	sandbox.setFaults({ every500: 2, every429: 3 });
	const events = await run.poll();
	expect(events.items?.length).toBeGreaterThan(0);
	staticData.push(run.state.staticData);
	sandbox.setFaults({ malformed: 'html' });
	errors.push(await run.poll().catch((e: unknown) => e));
	sandbox.setFaults({});
	sandbox.clock.advance(31 * 60_000);
	sandbox.saveSession(session.id);
	await run.poll();
	await run.poll('manual');
	staticData.push(run.state.staticData);
	const revokedTrigger = new TriggerRun(createHarness({ apiKey: sandbox.keys.revoked, baseUrl: sandbox.url }), sandbox, { events: ['requestCreated'] });
	errors.push(await revokedTrigger.poll().catch((e: unknown) => e));

	// The search finds a key where there is one.
	expect(leaksOf(`Authorization: Bearer ${sandbox.keys.demo}`, keys())).toHaveLength(1);
	expect(leaksOf(`secret ${sandbox.keys.revoked.slice(4).toUpperCase()}`, keys())).toHaveLength(1);

	// Now search everything for the keys.
	expect(errors.length).toBeGreaterThan(15);
	for (const error of errors) {
		expect(typeof error === 'object' && error !== null && 'message' in error).toBe(true);
		expect(leaksOf(everythingIn(error), keys())).toEqual([]);
	}
	for (const result of runs) {
		const execution = safeJson(result.run);
		expect(execution.length).toBeGreaterThan(100);
		// The execution data holds the error as n8n stores it: searched, not skipped.
		if (result.error) expect(execution).toContain(JSON.stringify(result.error.message).slice(1, -1));
		expect(leaksOf(execution, keys())).toEqual([]);
		expect(leaksOf(safeJson(result.items), keys())).toEqual([]);
	}
	for (const data of staticData) expect(leaksOf(safeJson(data), keys())).toEqual([]);
	expect(limiterIds().length).toBeGreaterThanOrEqual(3);
	expect(leaksOf(limiterIds().join('\n'), keys())).toEqual([]);
	// The capture works (n8n's engine logged the executions), and holds no key.
	expect(logs.lines.some((line) => line.startsWith('LoggerProxy.debug: Workflow execution started'))).toBe(true);
	expect(logs.lines.some((line) => line.startsWith('n8nLogger.debug: Booking Requests Trigger poll'))).toBe(true);
	expect(leaksOf(logs.text(), keys())).toEqual([]);
}, 150_000);
