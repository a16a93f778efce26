/**
 * Changing a published trigger's events keeps what still applies (issue 29 item 2), in n8n's real
 * PollContext against the sandbox over loopback. Before: the events were part of the state's
 * fingerprint, so any change started afresh — the customer memories went (a customer reminded
 * yesterday completed today with `recovered: false`), and whatever happened since the last poll was
 * never reported. Now: an added event starts from the last poll, the windows and memories the change
 * does not concern are kept; only removing every session event drops the session memories.
 */
import type { IDataObject } from 'n8n-workflow';

import { createHarness } from '../../../harness/inProcessN8n';
import type { Harness } from '../../../harness/inProcessN8n';
import { hashKey, startSandbox } from '../../../sandbox';
import type { Sandbox } from '../../../sandbox';
import { TriggerRun } from './trigger';
import { pacing429s } from '../../support/pacing429';

jest.setTimeout(120_000);

const MIN = 60_000;

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
const poll = (run: TriggerRun) => run.poll('trigger', { typeVersion: 1.1 });

function leaveDraft(name: string) {
	const session = sandbox.startSession({ contact: { firstname: name, lastname: 'Changes', email: `${name.toLowerCase()}@example.com`, phone: `+1512555${String(name.length).padStart(4, '0')}` } });
	sandbox.saveSession(session.id, { step: 'address', data: { ...session.data } });
	return session;
}

describe('changing the events of a published trigger', () => {
	test('adding Session Completed keeps the memory of reminded customers: the recovery is told; nothing before the change is replayed', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned'], abandonedAfterMinutes: 30 });
		await poll(run);
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

	test('adding New Request reports the requests created since the last poll once; removing an event keeps the rest', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned', 'sessionCompleted'], abandonedAfterMinutes: 30, skipIfBooked: false });
		await poll(run);
		const cy = leaveDraft('Cy');
		sandbox.clock.advance(MIN);
		const created = sandbox.addRequest({});
		run.parameters = { ...run.parameters, events: ['sessionAbandoned', 'requestCreated'] };
		expect(ofEvent((await poll(run)).items, 'request.created').map((item) => item.id)).toEqual([created.id]);
		sandbox.clock.advance(31 * MIN);
		const later = (await poll(run)).items;
		expect(ofEvent(later, 'session.abandoned').map((item) => item.id)).toEqual([cy.id]);
		expect(ofEvent(later, 'request.created')).toEqual([]);
	});

	test('adding session events to a New Request trigger keeps its place in the request list; sessions count from the last poll', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['requestCreated'] });
		await poll(run);
		const dee = leaveDraft('Dee');
		const created = sandbox.addRequest({});
		run.parameters = { events: ['requestCreated', 'sessionAbandoned'], abandonedAfterMinutes: 30, skipIfBooked: false };
		expect(ofEvent((await poll(run)).items, 'request.created').map((item) => item.id)).toEqual([created.id]);
		sandbox.clock.advance(31 * MIN);
		const items = (await poll(run)).items;
		expect(ofEvent(items, 'session.abandoned').map((item) => item.id)).toEqual([dee.id]);
		expect(ofEvent(items, 'request.created')).toEqual([]);
	});

	test('a form filter change starts the lists afresh from that moment but keeps the memory of customers', async () => {
		const [formA, formB] = sandbox.workspace().forms;
		const parameters = { events: ['sessionAbandoned', 'requestCreated'], abandonedAfterMinutes: 30, options: { customerCooldownDays: 7 } };
		const run = new TriggerRun(harness, sandbox, { ...parameters, formId: { __rl: true, mode: 'id', value: formA.id } });
		await poll(run);
		const contact = { firstname: 'Eve', lastname: 'Forms', email: 'eve.forms@example.com', phone: '+15125550188' };
		const onA = sandbox.startSession({ formId: formA.id, contact });
		sandbox.saveSession(onA.id, { step: 'address', data: { ...onA.data } });
		sandbox.clock.advance(31 * MIN);
		expect(ofEvent((await poll(run)).items, 'session.abandoned').map((item) => item.id)).toEqual([onA.id]);

		sandbox.addRequest({ form_id: formB.id });
		run.parameters = { ...parameters, formId: { __rl: true, mode: 'id', value: formB.id } };
		expect((await poll(run)).items).toBeNull(); // a new start: what came before is history
		const next = sandbox.addRequest({ form_id: formB.id });
		// Eve leaves a draft on form B the next day: her 7-day cooldown still holds (before: reminded again).
		sandbox.clock.advance(24 * 60 * MIN);
		const onB = sandbox.startSession({ formId: formB.id, contact });
		sandbox.saveSession(onB.id, { step: 'address', data: { ...onB.data } });
		sandbox.clock.advance(31 * MIN);
		const items = (await poll(run)).items;
		expect(ofEvent(items, 'request.created').map((item) => item.id)).toEqual([next.id]);
		expect(ofEvent(items, 'session.abandoned')).toEqual([]);
	});
});
