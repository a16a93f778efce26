/**
 * The CRM sync recipe (examples/sync-requests-to-crm.json) in a real n8n 2.x (2.41.1), as
 * an agency runs it: the packed package, the sandbox API in this process, the workflow as shipped
 * except "Watch the Newest (Requests)" = 50 and a poll at a fixed second of every minute.
 *
 *  1. 60 requests; the backfill (Manual Trigger -> Data table: create the table -> Get Many, Return
 *     All -> upsert keyed on booking_request_id) fills the table: 60 rows;
 *  2. the workflow is published through the REST API (the editor's Publish): the trigger's first poll
 *     records the newest 50 silently;
 *  3. two rounds of changes between polls (25 changes: some requests changed twice between two polls,
 *     some with updated_at null, 3 on requests older than the newest 50) and 3 new requests; after
 *     each round the next poll's execution upserts New Request and Request Updated items;
 *  4. the Data table (read through n8n's REST API) then matches the sandbox row for row, except the
 *     3 changes older than the window, which are exactly the rows still as the backfill wrote them;
 *     no request has two rows;
 *  5. the backfill run again brings those 3 in line, still without a duplicate.
 */
import * as path from 'node:path';

import { hashKey, sortRequests, startSandbox, type BookingRequest, type Sandbox } from '../../sandbox';
import type { RequestChange } from '../../sandbox/types';
import { installTarball } from '../../harness/n8n/communityPackage';
import { N8nCli } from '../../harness/n8n/cli';
import { sleep } from '../../harness/n8n/process';
import { N8nRest } from '../../harness/n8n/rest';
import { startN8n, type N8nServer } from '../../harness/n8n/server';
import { loadExampleWorkflows, makeUserFolder, type ExampleWorkflow, type WorkflowImport } from '../../harness/n8n/workflows';
import { dataTableRows, restData } from './helpers/dataTable';
import { loadState } from './helpers/state';
import { pacing429s } from '../support/pacing429';

const FILE = 'sync-requests-to-crm.json';
const CREDENTIAL = { id: 'brCrmSyncCred01', name: 'Booking Requests (CRM sync e2e)' };
const CRED_TYPE = 'bookingRequestsApi';
const TABLE = 'booking_requests';
const WATCH_NEWEST = 50;
/** The second of every minute the trigger polls at (n8n polls at most once a minute). */
const POLL_SECOND = 0;

// node names in the example file
const NODES = {
	manual: 'Backfill (run once)',
	create: 'Create table if missing',
	list: 'Get all requests (backfill)',
	trigger: 'Booking Requests Trigger',
	upsert: 'CRM: create or update by booking_request_id',
};

/** The columns of the table, as the recipe maps them from a simplified request. */
const COLUMNS = ['booking_request_id', 'status', 'lead_status', 'internal_notes', 'completed_at', 'first_name', 'last_name', 'email', 'phone', 'created_at', 'updated_at'] as const;
const DATE_COLUMNS = new Set(['completed_at', 'created_at', 'updated_at']);
type Row = Record<(typeof COLUMNS)[number], string | null>;

const iso = (value: unknown): string | null => (value === null || value === undefined || value === '' ? null : new Date(String(value)).toISOString());

/** What the table should hold for a request. */
function expectedRow(r: BookingRequest): Row {
	const row = {} as Row;
	for (const column of COLUMNS) {
		const value = column === 'booking_request_id' ? r.id : (r as unknown as Record<string, unknown>)[column];
		row[column] = DATE_COLUMNS.has(column) ? iso(value) : value === undefined || value === null ? null : String(value);
	}
	return row;
}

/** A row of the Data table as n8n's REST API gives it, reduced to the recipe's columns. */
function tableRow(raw: Record<string, unknown>): Row {
	const row = {} as Row;
	for (const column of COLUMNS) {
		const value = raw[column];
		row[column] = DATE_COLUMNS.has(column) ? iso(value) : value === undefined || value === null ? null : String(value);
	}
	return row;
}

/** The example as this test imports it: Watch the Newest 50, a poll at POLL_SECOND of every minute. */
function forThisTest(workflow: WorkflowImport): WorkflowImport {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) =>
			node.name === NODES.trigger
				? {
						...node,
						parameters: {
							...node.parameters,
							pollTimes: { item: [{ mode: 'custom', cronExpression: `${POLL_SECOND} * * * * *` }] },
							options: { ...((node.parameters.options as Record<string, unknown>) ?? {}), watchNewest: WATCH_NEWEST },
						},
					}
				: node,
		),
	};
}

interface ExecutionSummary {
	id: string;
	status: string;
	mode: string;
}

describe('CRM sync recipe (examples/sync-requests-to-crm.json) in a real n8n', () => {
	const state = loadState();
	let sandbox: Sandbox;
	let server: N8nServer | undefined;
	let rest: N8nRest;
	let example: ExampleWorkflow;
	const timings: Record<string, number> = {};
	const t0 = Date.now();
	const log = (message: string) => process.stderr.write(`[crm-sync +${((Date.now() - t0) / 1000).toFixed(1)} s] ${message}\n`);

	beforeAll(async () => {
		if (!('tarball' in state.pack)) throw new Error(`the package could not be built/packed:\n${state.pack.error}`);
		sandbox = await startSandbox({ port: 0, seed: 42, sizes: { requests: 60, sessions: 10 } });
		const userFolder = makeUserFolder(state.workDir, 'crm-sync-');
		await installTarball(userFolder, state.pack.tarball);
		const cli = new N8nCli(state.install, userFolder);
		await cli.importCredentials([{ ...CREDENTIAL, type: CRED_TYPE, data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } }]);
		const found = loadExampleWorkflows(path.join(state.repoDir, 'examples'), CREDENTIAL).find((e) => e.file === FILE);
		if (!found) throw new Error(`examples/${FILE} is missing`);
		example = { ...found, workflow: forThisTest(found.workflow) };
		await cli.importWorkflows([example.workflow]);
		server = await startN8n({ userFolder, install: state.install });
		rest = new N8nRest(server.url, state.install);
		await rest.setupOwner();
		timings.setupSeconds = (Date.now() - t0) / 1000;
		log(`n8n ${state.install.version} on ${server.url}, sandbox ${sandbox.url}`);
	});

	afterAll(async () => {
		await server?.stop();
		await sandbox?.close();
		// eslint-disable-next-line no-console
		console.log(`[crm-sync] timings: ${JSON.stringify(timings)}`);
	});

	const api = <T>(method: string, route: string, body?: unknown): Promise<T> => restData<T>(rest, method, route, body);

	/** Every row of the recipe's table. */
	async function tableRows(): Promise<Row[]> {
		return (await dataTableRows(rest, TABLE)).map(tableRow);
	}

	async function triggerExecutions(): Promise<ExecutionSummary[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId: example.workflow.id }));
		const page = await api<{ results: ExecutionSummary[] }>('GET', `/executions?filter=${filter}&limit=100`);
		return page.results.filter((e) => e.mode === 'trigger');
	}

	/** Waits for the next poll whose execution ends, after `before` trigger executions; returns its items per node. */
	async function nextPollExecution(before: number, timeoutMs = 150_000) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const list = await triggerExecutions();
			if (list.length > before && list.every((e) => !['new', 'running', 'waiting'].includes(e.status))) {
				const newest = list.map((e) => Number(e.id)).sort((a, b) => b - a)[0];
				return rest.waitForExecution(String(newest));
			}
			if (Date.now() > deadline) throw new Error(`no trigger execution within ${timeoutMs / 1000} s: ${JSON.stringify(list)}`);
			await sleep(1000);
		}
	}

	/** Resolves when the wall clock is at least 5 s after and 15 s before the poll second (changes never race a poll). */
	async function betweenPolls(): Promise<void> {
		for (;;) {
			const now = new Date();
			const sincePoll = (now.getUTCSeconds() + now.getUTCMilliseconds() / 1000 - POLL_SECOND + 60) % 60;
			if (sincePoll >= 5 && sincePoll <= 45) return;
			await sleep(500);
		}
	}

	/** A change through the sandbox's control route, as the workspace makes it; it must change a watched value. */
	const changed = new Map<string, number>();
	async function change(r: BookingRequest, c: RequestChange): Promise<void> {
		const before = expectedRow(r);
		const res = await fetch(`${sandbox.url}/__sandbox/requests/${r.id}/update`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(c),
		});
		expect(res.status).toBe(200);
		const after = sandbox.workspace().requests.find((x) => x.id === r.id)!;
		const { updated_at: _b, ...watchedBefore } = before;
		const { updated_at: _a, ...watchedAfter } = expectedRow(after);
		expect(watchedAfter).not.toEqual(watchedBefore);
		changed.set(r.id, (changed.get(r.id) ?? 0) + 1);
	}

	test('the recipe as shipped: New Request + Request Updated into one keyed upsert, a backfill from a Manual Trigger, readable sticky notes', () => {
		const nodes = example.workflow.nodes;
		const byName = new Map(nodes.map((n) => [n.name, n]));
		expect(example.via).toBe('execute');
		expect(example.startNode).toBe(NODES.manual);
		expect(byName.get(NODES.trigger)).toMatchObject({ type: 'n8n-nodes-booking-requests.bookingRequestsTrigger', typeVersion: 1.1 });
		expect(byName.get(NODES.trigger)?.parameters.events).toEqual(['requestCreated', 'requestUpdated']);
		expect(byName.get(NODES.list)?.parameters).toMatchObject({ resource: 'bookingRequest', operation: 'getAll', returnAll: true });
		const upsert = byName.get(NODES.upsert)!;
		expect(upsert).toMatchObject({ type: 'n8n-nodes-base.dataTable', parameters: { resource: 'row', operation: 'upsert', dataTableId: { mode: 'name', value: TABLE } } });
		expect(upsert.parameters.filters).toEqual({ conditions: [{ keyName: 'booking_request_id', condition: 'eq', keyValue: '={{ $json.id }}' }] });
		expect(Object.keys((upsert.parameters.columns as { value: Record<string, string> }).value)).toEqual([...COLUMNS]);
		// both branches end in the same upsert
		const connections = example.workflow.connections as Record<string, { main: Array<Array<{ node: string }>> }>;
		expect(connections[NODES.trigger].main[0].map((c) => c.node)).toEqual([NODES.upsert]);
		expect(connections[NODES.list].main[0].map((c) => c.node)).toEqual([NODES.upsert]);
		// sticky notes: short, and big enough for their text at the default zoom
		const stickies = nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote');
		expect(stickies.length).toBeGreaterThanOrEqual(4);
		const text = stickies.map((s) => String(s.parameters.content)).join('\n');
		for (const word of ['HubSpot', 'Pipedrive', 'Airtable', 'Google Sheets', 'booking_request_id', 'credential', '1 request/s', 'Watch the Newest']) expect(text).toContain(word);
		for (const s of stickies) {
			const content = String(s.parameters.content);
			expect(content.split(/\s+/).length).toBeLessThanOrEqual(70);
			const lines = content.split('\n').reduce((n, line) => n + Math.max(1, Math.ceil(line.length / ((Number(s.parameters.width) - 30) / 8))), 0);
			// about 8 px per character and 22 px per line (n8n's sticky note font at zoom 1)
			expect(lines * 22 + 20).toBeLessThanOrEqual(Number(s.parameters.height));
		}
	});

	test('backfill, publish, 25 changes and 3 new requests: the table matches the sandbox row for row except the 3 changes older than the window; a second backfill fixes those', async () => {
		const requests = () => sortRequests(sandbox.workspace().requests);
		const initial = requests();
		expect(initial).toHaveLength(60);

		// 1. backfill
		let t = Date.now();
		const backfill = await rest.runFromTrigger(example.workflow.id, NODES.manual);
		if (!backfill.ok) throw new Error(`backfill failed: ${backfill.error?.message} ${backfill.error?.description ?? ''}`);
		timings.backfillSeconds = (Date.now() - t) / 1000;
		expect(backfill.items[NODES.list]).toHaveLength(60);
		expect(backfill.items[NODES.upsert]).toHaveLength(60);
		const afterBackfill = await tableRows();
		expect(afterBackfill.sort(byId)).toEqual(initial.map(expectedRow).sort(byId));
		log(`backfill: 60 rows in ${timings.backfillSeconds} s`);

		// running it again changes nothing: keyed, no duplicate
		const again = await rest.runFromTrigger(example.workflow.id, NODES.manual);
		expect(again.ok).toBe(true);
		expect((await tableRows()).sort(byId)).toEqual(afterBackfill);

		// 2. publish (the editor's Publish button): the trigger's first poll records the window silently
		await betweenPolls();
		t = Date.now();
		const wf = await api<{ versionId: string }>('GET', `/workflows/${example.workflow.id}`);
		await api('POST', `/workflows/${example.workflow.id}/activate`, { versionId: wf.versionId });
		timings.publishSeconds = (Date.now() - t) / 1000;
		// the first poll (at activation, or at the next poll second) reads the requests list
		const demoKey = hashKey(sandbox.keys.demo);
		const reads = () => sandbox.log.filter((e) => e.keyHash === demoKey && e.path === '/api/v1/requests' && e.status !== 0).length;
		const backfillReads = reads();
		while (reads() === backfillReads) {
			if (Date.now() - t > 90_000) throw new Error('the published trigger did not poll within 90 s');
			await sleep(250);
		}
		timings.firstPollAfterPublishSeconds = (Date.now() - t) / 1000;
		await sleep(3000); // the first poll's reads end (1 request/s)
		log(`published in ${timings.publishSeconds} s, first poll ${timings.firstPollAfterPublishSeconds} s after`);

		// 3a. round 1, between two polls: 12 changes (3 requests changed twice, 4 with updated_at null,
		// 2 older than the newest 50) and 2 new requests
		await betweenPolls();
		const r = initial; // newest first; the window is r[0..49] (r[0..46] after the 3 new requests)
		const old = [r[55], r[57], r[59]];
		const backfilled = new Map(afterBackfill.map((row) => [row.booking_request_id, row]));
		await change(r[0], { status: 'confirmed', completed_at: 'now' });
		await change(r[1], { lead_status: 'follow_up' });
		await change(r[1], { lead_status: 'proposal_sent' });
		await change(r[2], { internal_notes: 'Called back, wants a quote', updatedAt: 'null' });
		await change(r[3], { email: 'new.address@example.com', phone: '+15125550199' });
		await change(r[4], { status: 'rescheduled', updatedAt: 'null' });
		await change(r[4], { internal_notes: 'Cancelled by phone', updatedAt: 'null' });
		await change(r[5], { first_name: 'Renamed', last_name: 'Customer' });
		await change(r[6], { lead_status: 'negotiation', completed_at: 'now' });
		await change(r[7], { internal_notes: 'VIP' });
		await change(old[0], { status: 'no_show', completed_at: 'now' });
		await change(old[1], { lead_status: 'follow_up', updatedAt: 'null' });
		const new1 = sandbox.addRequest({ first_name: 'New', last_name: 'One' });
		const new2 = sandbox.addRequest({ first_name: 'New', last_name: 'Two' });
		let before = (await triggerExecutions()).length;
		t = Date.now();
		const poll1 = await nextPollExecution(before);
		timings.round1WaitSeconds = (Date.now() - t) / 1000;
		const emitted1 = poll1.items[NODES.trigger] ?? [];
		log(`poll 1: ${emitted1.length} items (${emitted1.map((i) => `${String(i.event)}:${String(i.id).slice(0, 8)}`).join(', ')})`);
		expect(poll1.ok).toBe(true);
		expect(emitted1.filter((i) => i.event === 'request.created').map((i) => i.id).sort()).toEqual([new1.id, new2.id].sort());
		// one event per changed request, however often it changed; none for the requests older than the window
		expect(emitted1.filter((i) => i.event === 'request.updated').map((i) => i.id).sort()).toEqual([r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]].map((x) => x.id).sort());

		// 3b. round 2: 13 changes (2 requests changed twice, 3 with updated_at null, a request changed again,
		// a request new in round 1 changed, 1 older than the newest 50) and 1 new request
		await betweenPolls();
		await change(r[0], { internal_notes: 'Invoice sent' });
		await change(r[1], { status: 'in_progress', completed_at: 'now', updatedAt: 'null' });
		await change(r[8], { status: 'in_progress' });
		await change(r[8], { status: 'confirmed' });
		await change(r[9], { phone: '+15125550100', updatedAt: 'null' });
		await change(r[10], { lead_status: 'proposal_sent', internal_notes: 'Budget confirmed' });
		await change(r[11], { status: 'confirmed', updatedAt: 'null' });
		await change(r[11], { status: 'rescheduled', updatedAt: 'null' });
		await change(r[12], { lead_status: 'negotiation' });
		await change(r[20], { email: 'someone.else@example.com' });
		await change(r[39], { status: 'no_show' });
		await change(new1, { lead_status: 'follow_up' });
		await change(old[2], { internal_notes: 'Old request, noted late' });
		const new3 = sandbox.addRequest({ first_name: 'New', last_name: 'Three' });
		expect([...changed.values()].reduce((a, b) => a + b, 0)).toBe(25);
		before = (await triggerExecutions()).length;
		t = Date.now();
		const poll2 = await nextPollExecution(before);
		timings.round2WaitSeconds = (Date.now() - t) / 1000;
		const emitted2 = poll2.items[NODES.trigger] ?? [];
		log(`poll 2: ${emitted2.length} items`);
		expect(poll2.ok).toBe(true);
		expect(emitted2.filter((i) => i.event === 'request.created').map((i) => i.id)).toEqual([new3.id]);
		expect(emitted2.filter((i) => i.event === 'request.updated').map((i) => i.id).sort()).toEqual(
			[r[0], r[1], r[8], r[9], r[10], r[11], r[12], r[20], r[39], new1].map((x) => x.id).sort(),
		);

		// 4. the table against the sandbox
		const rows = await tableRows();
		const ids = rows.map((row) => row.booking_request_id);
		expect(new Set(ids).size).toBe(ids.length); // no duplicate
		const world = requests();
		expect(world).toHaveLength(63);
		expect([...ids].sort()).toEqual(world.map((x) => x.id).sort());
		const byRequest = new Map(rows.map((row) => [row.booking_request_id!, row]));
		const differing = world.filter((x) => JSON.stringify(byRequest.get(x.id)) !== JSON.stringify(expectedRow(x))).map((x) => x.id);
		expect(differing.sort()).toEqual(old.map((x) => x.id).sort());
		// those 3 are the rows as the backfill wrote them
		for (const x of old) expect(byRequest.get(x.id)).toEqual(backfilled.get(x.id));
		// and everything else, row for row
		for (const x of world.filter((w) => !old.some((o) => o.id === w.id))) expect(byRequest.get(x.id)).toEqual(expectedRow(x));
		timings.rowsExpected = world.length;
		timings.rowsMatching = world.length - differing.length;
		timings.rowsInTable = rows.length;
		log(`table: ${rows.length} rows, ${timings.rowsMatching} match the sandbox, ${differing.length} differ (the 3 older than the window)`);

		// 5. what the trigger cannot see, a backfill run again brings in line, still one row per request
		await betweenPolls();
		const rerun = await rest.runFromTrigger(example.workflow.id, NODES.manual);
		expect(rerun.ok).toBe(true);
		const healed = await tableRows();
		expect(healed).toHaveLength(63);
		expect(healed.sort(byId)).toEqual(requests().map(expectedRow).sort(byId));
		expect(pacing429s(sandbox.log)).toEqual([]);
	});
});

const byId = (a: Row, b: Row) => String(a.booking_request_id).localeCompare(String(b.booking_request_id));
