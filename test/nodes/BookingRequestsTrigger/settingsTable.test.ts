/**
 * The trigger's page says what each change of a published trigger's settings keeps
 * (docs/booking-requests-trigger.md, "Changing the settings of a published trigger"): each row of that
 * table is tested here, in n8n's real PollContext against the sandbox over loopback, and a row added to
 * the table without a test here fails.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { createHarness } from '../../../harness/inProcessN8n';
import type { Harness } from '../../../harness/inProcessN8n';
import { hashKey, startSandbox } from '../../../sandbox';
import type { Sandbox } from '../../../sandbox';
import { TriggerRun } from './trigger';
import { pacing429s } from '../../support/pacing429';

jest.setTimeout(120_000);

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

let sandbox: Sandbox;
let harness: Harness;
beforeEach(async () => {
	sandbox = await startSandbox({ sizes: { forms: 2, requests: 20, sessions: 10 } });
	harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
});
afterEach(async () => {
	expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	await sandbox.close();
});

const ofEvent = (items: IDataObject[] | null, event: string) => (items ?? []).filter((item) => item.event === event);
const idsOf = (items: IDataObject[] | null, event: string) => ofEvent(items, event).map((item) => item.id);
const poll = (run: TriggerRun) => run.poll('trigger', { typeVersion: 1.1 });

const customers = new Map<string, number>();
/** A customer by name: the same name, the same e-mail and phone; another name, others. */
function contactOf(name: string) {
	if (!customers.has(name)) customers.set(name, customers.size + 1);
	const number = String(customers.get(name)).padStart(4, '0');
	return { firstname: name, lastname: 'Changes', email: `${name.toLowerCase()}@example.com`, phone: `+1512555${number}` };
}

function leaveDraft(name: string, formId?: string) {
	const session = sandbox.startSession({ contact: contactOf(name), ...(formId ? { formId } : {}) });
	sandbox.saveSession(session.id, { step: 'address', data: { ...session.data } });
	return session;
}

/** A trigger published with `parameters`, its first poll done. */
async function published(parameters: INodeParameters): Promise<TriggerRun> {
	const run = new TriggerRun(harness, sandbox, parameters);
	await poll(run);
	return run;
}

/** The rows of the table, by their first column, as the page has them. */
function documentedRows(): string[] {
	const page = readFileSync(path.join(__dirname, '../../../docs/booking-requests-trigger.md'), 'utf8');
	const start = page.indexOf('| You change | Kept | Starts afresh |');
	const rows: string[] = [];
	for (const line of page.slice(start).split('\n').slice(2)) {
		const cells = line.trim().split('|');
		if (cells.length < 4) break;
		rows.push(cells[1].trim());
	}
	return rows;
}

const ROWS = {
	'Add an event': 'Add an event',
	'Remove an event': 'Remove an event',
	options: 'Skip Customers Who Booked, the reminder limit, Abandoned After, other options',
	key: 'The API key (same workspace)',
	form: 'The Form',
	baseUrl: "The credential's Base URL",
} as const;

test('every row of the table is tested here', () => {
	expect(documentedRows()).toEqual(Object.values(ROWS));
});

describe(ROWS['Add an event'], () => {
	test('Session Completed added to a trigger with only Session Abandoned (no reminder limit): a customer reminded before it books through a new session after it, recovered', async () => {
		const run = await published({ events: ['sessionAbandoned'], abandonedAfterMinutes: 30, skipIfBooked: false });
		const early = leaveDraft('Early');
		sandbox.completeSession(early.id); // completed while Session Completed was off: never reported
		const ann = leaveDraft('Ann');
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([ann.id]);

		run.parameters = { ...run.parameters, events: ['sessionAbandoned', 'sessionCompleted'] };
		sandbox.clock.advance(MIN);
		const again = sandbox.startSession({ contact: contactOf('Ann') });
		sandbox.completeSession(again.id);
		const completed = ofEvent((await poll(run)).items, 'session.completed');
		expect(completed.map((item) => [item.id, item.recovered, item.recovered_from_session_id])).toEqual([[again.id, true, ann.id]]);
	});

	test('Session Completed added: the reminded session itself completes, recovered; nothing before the change is replayed', async () => {
		const run = await published({ events: ['sessionAbandoned'], abandonedAfterMinutes: 30 });
		const early = leaveDraft('Early');
		sandbox.completeSession(early.id); // completed while Session Completed was off: not reported later
		const bo = leaveDraft('Bo');
		sandbox.clock.advance(31 * MIN);
		expect(ofEvent((await poll(run)).items, 'session.abandoned').map((item) => item.id)).toEqual([bo.id]);

		run.parameters = { ...run.parameters, events: ['sessionAbandoned', 'sessionCompleted'] };
		sandbox.clock.advance(MIN);
		sandbox.completeSession(bo.id);
		const items = (await poll(run)).items;
		const completed = ofEvent(items, 'session.completed');
		expect(completed.map((item) => [item.id, item.recovered])).toEqual([[bo.id, true]]);
		expect(ofEvent(items, 'session.abandoned')).toEqual([]);
	});

	test('New Request added: the requests created since the last check are reported once; the abandonments go on', async () => {
		const run = await published({ events: ['sessionAbandoned', 'sessionCompleted'], abandonedAfterMinutes: 30, skipIfBooked: false });
		const cy = leaveDraft('Cy');
		sandbox.clock.advance(MIN);
		const created = sandbox.addRequest({});
		run.parameters = { ...run.parameters, events: ['sessionAbandoned', 'requestCreated'] };
		expect(idsOf((await poll(run)).items, 'request.created')).toEqual([created.id]);
		sandbox.clock.advance(31 * MIN);
		const later = (await poll(run)).items;
		expect(idsOf(later, 'session.abandoned')).toEqual([cy.id]);
		expect(ofEvent(later, 'request.created')).toEqual([]);
	});

	test('session events added to a New Request trigger: its place in the request list is kept; sessions count from the last check', async () => {
		const run = await published({ events: ['requestCreated'] });
		const dee = leaveDraft('Dee');
		const created = sandbox.addRequest({});
		run.parameters = { events: ['requestCreated', 'sessionAbandoned'], abandonedAfterMinutes: 30, skipIfBooked: false };
		expect(idsOf((await poll(run)).items, 'request.created')).toEqual([created.id]);
		sandbox.clock.advance(31 * MIN);
		const items = (await poll(run)).items;
		expect(idsOf(items, 'session.abandoned')).toEqual([dee.id]);
		expect(ofEvent(items, 'request.created')).toEqual([]);
	});

	test("Request Updated added: its first check only remembers; a change after it is reported", async () => {
		const run = await published({ events: ['requestCreated'] });
		const request = sandbox.addRequest({});
		expect(idsOf((await poll(run)).items, 'request.created')).toEqual([request.id]);
		sandbox.updateRequest(request.id, { status: 'in_progress' }); // before Request Updated: not reported
		run.parameters = { events: ['requestCreated', 'requestUpdated'] };
		expect((await poll(run)).items).toBeNull();
		sandbox.clock.advance(MIN);
		sandbox.updateRequest(request.id, { lead_status: 'qualified' });
		const updated = ofEvent((await poll(run)).items, 'request.updated');
		expect(updated.map((item) => [item.id, item.changed_fields])).toEqual([[request.id, ['lead_status']]]);
	});
});

describe(ROWS['Remove an event'], () => {
	test('removing New Request keeps the abandonments and the memory of customers', async () => {
		const run = await published({ events: ['sessionAbandoned', 'requestCreated'], abandonedAfterMinutes: 30, skipIfBooked: false, options: { customerCooldownDays: 7 } });
		const fay = leaveDraft('Fay');
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([fay.id]);
		run.parameters = { ...run.parameters, events: ['sessionAbandoned'] };
		const pending = leaveDraft('Gus');
		leaveDraft('Fay'); // within Fay's 7-day limit
		sandbox.addRequest({});
		sandbox.clock.advance(31 * MIN);
		const items = (await poll(run)).items;
		expect(idsOf(items, 'session.abandoned')).toEqual([pending.id]);
		expect(ofEvent(items, 'request.created')).toEqual([]);
	});

	test('removing every session event drops the memory of customers: added back, a customer reminded before is reminded again', async () => {
		const parameters = { events: ['sessionAbandoned', 'requestCreated'], abandonedAfterMinutes: 30, skipIfBooked: false, options: { customerCooldownDays: 7 } };
		const run = await published(parameters);
		const hal = leaveDraft('Hal');
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([hal.id]);
		run.parameters = { ...parameters, events: ['requestCreated'] };
		await poll(run);
		run.parameters = parameters;
		const second = leaveDraft('Hal');
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([second.id]);
	});

	test('removing Request Updated drops its memory: added back, its first check only remembers', async () => {
		const run = await published({ events: ['requestCreated', 'requestUpdated'] });
		const request = sandbox.addRequest({});
		expect(idsOf((await poll(run)).items, 'request.created')).toEqual([request.id]);
		run.parameters = { events: ['requestCreated'] };
		sandbox.updateRequest(request.id, { status: 'in_progress' });
		expect((await poll(run)).items).toBeNull();
		run.parameters = { events: ['requestCreated', 'requestUpdated'] };
		expect((await poll(run)).items).toBeNull();
		sandbox.clock.advance(MIN);
		sandbox.updateRequest(request.id, { status: 'complete' });
		const updated = ofEvent((await poll(run)).items, 'request.updated');
		expect(updated.map((item) => [item.id, item.changed_fields, item.previous])).toEqual([[request.id, ['status'], { status: 'in_progress' }]]);
	});
});

describe(ROWS.options, () => {
	test('the reminder limit turned on later counts the reminders sent while it was off', async () => {
		const parameters = { events: ['sessionAbandoned'], abandonedAfterMinutes: 30, skipIfBooked: false };
		const run = await published(parameters);
		const ida = leaveDraft('Ida');
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([ida.id]);
		run.parameters = { ...parameters, options: { customerCooldownDays: 7 } };
		leaveDraft('Ida');
		const jo = leaveDraft('Jo');
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([jo.id]);
	});

	test('Skip Customers Who Booked turned off and on again: a booking it read before it was off still counts, though no longer among the newest requests', async () => {
		const parameters = { events: ['sessionAbandoned'], abandonedAfterMinutes: 30, skipIfBooked: true };
		const run = await published(parameters);
		leaveDraft('Kim');
		const max = leaveDraft('Max');
		sandbox.clock.advance(MIN);
		sandbox.bookWithoutDraft({ contact: contactOf('Kim') });
		await poll(run); // reads Kim's booking while Skip is on
		run.parameters = { ...parameters, skipIfBooked: false };
		for (let i = 0; i < 150; i++) sandbox.addRequest({}); // Kim's booking is now beyond page 1
		sandbox.clock.advance(MIN);
		await poll(run);
		run.parameters = parameters;
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([max.id]);
	});

	test('Abandoned After changed: nothing is reported twice, an idle draft is reported once by the new time', async () => {
		const run = await published({ events: ['sessionAbandoned'], abandonedAfterMinutes: 30, skipIfBooked: false });
		const max = leaveDraft('Max');
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([max.id]);
		run.parameters = { ...run.parameters, abandonedAfterMinutes: 10 };
		const ned = leaveDraft('Ned');
		sandbox.clock.advance(11 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([ned.id]);
		run.parameters = { ...run.parameters, abandonedAfterMinutes: 60 };
		sandbox.clock.advance(60 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([]);
	});
});

describe(ROWS.key, () => {
	test('another key of the same workspace goes on where the trigger stopped; a key of another workspace starts afresh', async () => {
		const parameters = { events: ['sessionAbandoned', 'requestCreated'], abandonedAfterMinutes: 30, skipIfBooked: false, options: { customerCooldownDays: 7 } };
		const run = await published(parameters);
		const oli = leaveDraft('Oli');
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([oli.id]);

		const second = new TriggerRun(createHarness({ apiKey: sandbox.keys.second, baseUrl: sandbox.url }), sandbox, parameters);
		second.state = run.state;
		const created = sandbox.addRequest({});
		leaveDraft('Oli'); // within the limit: the memory went on
		sandbox.clock.advance(31 * MIN);
		const items = (await poll(second)).items;
		expect(idsOf(items, 'request.created')).toEqual([created.id]);
		expect(ofEvent(items, 'session.abandoned')).toEqual([]);

		const other = new TriggerRun(createHarness({ apiKey: sandbox.keys.other, baseUrl: sandbox.url }), sandbox, parameters);
		other.state = second.state;
		expect((await poll(other)).items).toBeNull(); // another workspace: a new start, nothing replayed
	});
});

describe(ROWS.form, () => {
	test('a form filter change starts the lists afresh from that moment but keeps the memory of customers', async () => {
		const [formA, formB] = sandbox.workspace().forms;
		const parameters = { events: ['sessionAbandoned', 'requestCreated'], abandonedAfterMinutes: 30, options: { customerCooldownDays: 7 } };
		const run = await published({ ...parameters, formId: { __rl: true, mode: 'id', value: formA.id } });
		const onA = leaveDraft('Eve', formA.id);
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([onA.id]);

		sandbox.addRequest({ form_id: formB.id });
		run.parameters = { ...parameters, formId: { __rl: true, mode: 'id', value: formB.id } };
		expect((await poll(run)).items).toBeNull(); // a new start: what came before is history
		const next = sandbox.addRequest({ form_id: formB.id });
		// Eve leaves a draft on form B the next day: her 7-day limit still holds.
		sandbox.clock.advance(DAY);
		leaveDraft('Eve', formB.id);
		sandbox.clock.advance(31 * MIN);
		const items = (await poll(run)).items;
		expect(idsOf(items, 'request.created')).toEqual([next.id]);
		expect(ofEvent(items, 'session.abandoned')).toEqual([]);
	});
});

describe(ROWS.baseUrl, () => {
	test('another Base URL starts everything afresh: nothing replayed, no memory of customers', async () => {
		// The same API under two addresses (both loopback): to the trigger, two APIs.
		await sandbox.close();
		sandbox = await startSandbox({ host: '0.0.0.0', sizes: { forms: 2, requests: 20, sessions: 10 } });
		const port = new URL(sandbox.url).port;
		const parameters = { events: ['sessionAbandoned', 'requestCreated'], abandonedAfterMinutes: 30, skipIfBooked: false, options: { customerCooldownDays: 7 } };
		const run = new TriggerRun(createHarness({ apiKey: sandbox.keys.demo, baseUrl: `http://127.0.0.1:${port}` }), sandbox, parameters);
		await poll(run);
		const pat = leaveDraft('Pat');
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(run)).items, 'session.abandoned')).toEqual([pat.id]);

		const moved = new TriggerRun(createHarness({ apiKey: sandbox.keys.demo, baseUrl: `http://127.0.0.2:${port}` }), sandbox, parameters);
		await sleep(1_100); // each address has its own limiter: a second between the two, as for two programs
		moved.state = run.state;
		sandbox.addRequest({});
		expect((await poll(moved)).items).toBeNull();
		const again = leaveDraft('Pat');
		sandbox.clock.advance(31 * MIN);
		expect(idsOf((await poll(moved)).items, 'session.abandoned')).toEqual([again.id]);
	});
});
