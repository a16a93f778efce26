/**
 * Retargeting by customer in n8n's real PollContext against the sandbox over loopback:
 * node version 1.1 skips customers who booked (on by default), version 1 keeps its behaviour; the
 * customer's booking through another session or without a draft, on another form, with the phone typed
 * differently; recovery by customer with `recovered_from_session_id` and `minutes_to_recover`; no
 * e-mail or phone in clear in the static data.
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { BookingRequestsTrigger } from '../../../nodes/BookingRequestsTrigger/BookingRequestsTrigger.node';
import { createHarness } from '../../../harness/inProcessN8n';
import type { Harness } from '../../../harness/inProcessN8n';
import { hashKey, startSandbox } from '../../../sandbox';
import type { Sandbox } from '../../../sandbox';
import { TriggerRun } from './trigger';
import { pacing429s } from '../../support/pacing429';

jest.setTimeout(180_000);

const MIN = 60_000;
const SESSIONS = '/api/v1/abandoned-sessions';
const REQUESTS = '/api/v1/requests';

let sandbox: Sandbox;
let harness: Harness;

beforeEach(async () => {
	sandbox = await startSandbox();
	harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
});
afterEach(async () => {
	expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	await sandbox.close();
});

const ofEvent = (items: IDataObject[] | null, event: string) => (items ?? []).filter((item) => item.event === event);

describe('node versions', () => {
	it('"Skip Customers Who Booked" is on in new nodes (1.1) and off in nodes of version 1, resolved by n8n from @version', () => {
		const description = new BookingRequestsTrigger().description;
		expect(description.version).toEqual([1, 1.1]);
		expect(description.defaultVersion).toBe(1.1);
		const resolve = (typeVersion: number) =>
			NodeHelpers.getNodeParameters(
				description.properties,
				{ events: ['sessionAbandoned'] },
				true,
				false,
				{ typeVersion },
				description,
			);
		expect(resolve(1.1)?.skipIfBooked).toBe(true);
		expect(resolve(1)?.skipIfBooked).toBe(false);
	});
});

describe('a day of retargeting through n8n', () => {
	async function day(typeVersion: number) {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned', 'sessionCompleted'], abandonedAfterMinutes: 30 });
		const poll = () => run.poll('trigger', { typeVersion });
		const baseline = await poll();
		expect(baseline.items).toBeNull();
		const forms = sandbox.workspace().forms;
		// Cleo leaves a draft, then books from another device (a new session).
		const cleo = sandbox.startSession({ contact: { firstname: 'Cleo', email: 'Cleo.Park@example.com ', phone: '(512) 555-0199' } });
		sandbox.clock.advance(4 * MIN);
		const cleoAgain = sandbox.startSession({ contact: { firstname: 'Cleo', email: 'cleo.park@example.com', phone: '+1 512 555 0199' } });
		sandbox.clock.advance(MIN);
		sandbox.completeSession(cleoAgain.id);
		// Dana leaves a draft with only a phone, then books without a draft, on another form.
		const dana = sandbox.startSession({ contact: { firstname: 'Dana', email: undefined, phone: '(512) 555-0142' } });
		sandbox.clock.advance(2 * MIN);
		const danaBooking = sandbox.bookWithoutDraft({ formId: forms[forms.length - 1].id, contact: { email: 'dana@example.org', phone: '+15125550142' } });
		// Eve leaves a draft and does not book.
		const eve = sandbox.startSession({ contact: { firstname: 'Eve', email: 'eve@example.com', phone: '(512) 555-0177' } });
		sandbox.clock.advance(40 * MIN);
		const judged = await poll();
		return { run, poll, judged, cleo, cleoAgain, dana, danaBooking, eve };
	}

	it('version 1.1: no reminder to Cleo and Dana, who booked; Eve, who returns, is a recovery from her abandoned session', async () => {
		const { run, poll, judged, cleoAgain, danaBooking, eve } = await day(1.1);
		expect(ofEvent(judged.items, 'session.abandoned').map((item) => item.id)).toEqual([eve.id]);
		expect(ofEvent(judged.items, 'session.completed').map((item) => [item.id, item.recovered])).toEqual([
			[cleoAgain.id, false],
			[danaBooking.session.id, false],
		]);
		// the request list is read too (for the bookings), once
		expect(judged.byPath[REQUESTS]).toBe(1);
		const stored = JSON.stringify(run.stored);
		expect(stored).not.toMatch(/@|example|5550(199|142|177)/i);

		// Eve comes back through a retargeting ad 2 hours later: a new session, completed.
		sandbox.clock.advance(120 * MIN);
		const back = sandbox.startSession({ contact: { firstname: 'Eve', email: 'EVE@example.com', phone: '(512) 555-0177' } });
		sandbox.clock.advance(3 * MIN);
		sandbox.completeSession(back.id);
		sandbox.clock.advance(MIN);
		const recovered = await poll();
		const [completion] = ofEvent(recovered.items, 'session.completed');
		expect(completion).toMatchObject({ id: back.id, recovered: true, recovered_from_session_id: eve.id });
		expect(completion.minutes_to_recover).toBe(Math.floor((Date.parse(String(completion.updated_at)) - Date.parse(eve.updated_at!)) / MIN));

		// quiet: 1 call per list
		sandbox.clock.advance(MIN);
		const quiet = await poll();
		expect(quiet.items).toBeNull();
		expect(quiet.byPath).toEqual({ [SESSIONS]: 1, [REQUESTS]: 1 });
	});

	it('version 1 (existing workflows): every idle draft is reported as before; the request list is not read', async () => {
		const { judged, cleo, dana, eve } = await day(1);
		expect(ofEvent(judged.items, 'session.abandoned').map((item) => item.id).sort()).toEqual([cleo.id, dana.id, eve.id].sort());
		expect(judged.byPath[REQUESTS]).toBeUndefined();
	});
});

describe('placeholder contact values identify nobody', () => {
	it('a booking with the phone 0000000000 or the e-mail test@test.com does not suppress a stranger’s reminder that shares it', async () => {
		// Before: the shared placeholder made strangers one customer, so Ana's booking skipped Bo and Cy.
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned'], abandonedAfterMinutes: 30 });
		const poll = () => run.poll('trigger', { typeVersion: 1.1 });
		await poll();
		const bo = sandbox.startSession({ contact: { firstname: 'Bo', lastname: 'Placeholder', email: 'bo.placeholder@example.com', phone: '0000000000' } });
		sandbox.saveSession(bo.id, { step: 'address', data: { ...bo.data } });
		const cy = sandbox.startSession({ contact: { firstname: 'Cy', lastname: 'Placeholder', email: 'test@test.com', phone: '+15125550177' } });
		sandbox.saveSession(cy.id, { step: 'address', data: { ...cy.data } });
		sandbox.clock.advance(5 * MIN);
		sandbox.bookWithoutDraft({ contact: { email: 'ana.placeholder@example.com', phone: '(000) 000-0000' } });
		sandbox.bookWithoutDraft({ contact: { email: 'TEST@test.com', phone: '+15125550178' } });
		sandbox.clock.advance(31 * MIN);
		const reminded = ofEvent((await poll()).items, 'session.abandoned').map((item) => item.id);
		expect(reminded).toEqual(expect.arrayContaining([bo.id, cy.id]));
	});
});

describe('a phone shared by many customers identifies nobody', () => {
	it('an office phone with more than 3 different e-mails in the bookings: its bookings no longer skip a stranger, its reminders no longer start a stranger’s cooldown', async () => {
		// Before: the front desk's number on four bookings made every draft with that number "booked".
		const office = '+1 512 555 0190';
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned'], abandonedAfterMinutes: 30, options: { customerCooldownDays: 7 } });
		const poll = () => run.poll('trigger', { typeVersion: 1.1 });
		await poll();
		const [gus, hal] = ['gus', 'hal'].map((name) => {
			const session = sandbox.startSession({ contact: { firstname: name, lastname: 'Office', email: `${name}.office@example.com`, phone: office } });
			sandbox.saveSession(session.id, { step: 'address', data: { ...session.data } });
			return session;
		});
		sandbox.clock.advance(5 * MIN);
		for (const name of ['ann', 'bea', 'cal', 'dee']) sandbox.bookWithoutDraft({ contact: { email: `${name}.desk@example.com`, phone: office } });
		sandbox.clock.advance(31 * MIN);
		const reminded = ofEvent((await poll()).items, 'session.abandoned').map((item) => item.id);
		// Both reminded: neither booked (the phone is shared), and Gus's reminder does not start Hal's cooldown.
		expect(reminded.sort()).toEqual([gus.id, hal.id].sort());
		// The e-mail still identifies: Gus books, his next draft is skipped.
		sandbox.bookWithoutDraft({ contact: { email: 'gus.office@example.com', phone: office } });
		const again = sandbox.startSession({ contact: { firstname: 'gus', lastname: 'Office', email: 'gus.office@example.com', phone: office } });
		sandbox.saveSession(again.id, { step: 'address', data: { ...again.data } });
		sandbox.clock.advance(31 * MIN);
		expect(ofEvent((await poll()).items, 'session.abandoned').map((item) => item.id)).toEqual([]);
	});
});
