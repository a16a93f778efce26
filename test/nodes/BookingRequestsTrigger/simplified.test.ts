/**
 * The trigger's simplified items (the default) in n8n's real PollContext against the sandbox API:
 * one flat item per event, form names at most one call per poll and none when cached, "Only
 * Sessions With an E-mail", and completed bookings without a saved draft getting the request's
 * contact. The engine's rules (which events, when) are tested in BookingRequestsTrigger.node.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { clearFormNamesCache, FORM_NAMES_TTL_MS, formNamesFor } from '../../../nodes/BookingRequestsTrigger/poll/formNames';
import { createHarness } from '../../../harness/inProcessN8n';
import type { Harness } from '../../../harness/inProcessN8n';
import { hashKey, startSandbox } from '../../../sandbox';
import type { Sandbox } from '../../../sandbox';
import { TriggerRun } from './trigger';
import { captureN8nLog, type N8nLogCapture } from '../../support/n8nLog';
import { pacing429s } from '../../support/pacing429';
import { printFigures } from '../../support/figures';

jest.setTimeout(120_000);

const MIN = 60_000;
const ALL = ['sessionAbandoned', 'sessionCompleted', 'requestCreated'];
const FORMS = '/api/v1/forms';

let sandbox: Sandbox;
let harness: Harness;

beforeEach(async () => {
	clearFormNamesCache();
	sandbox = await startSandbox({ sizes: { forms: 3, requests: 20, sessions: 30 } });
	harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
});
afterEach(async () => {
	expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	await sandbox.close();
});

const byEvent = (items: IDataObject[] | null, event: string) => (items ?? []).filter((item) => item.event === event);

describe('simplified trigger items (default)', () => {
	test('one flat item per event; form names cost one call, none on the next poll', async () => {
		const [formA, formB] = sandbox.workspace().forms;
		const run = new TriggerRun(harness, sandbox, { events: ALL, simplify: true });
		expect((await run.poll()).items).toBeNull(); // baseline

		const left = sandbox.startSession({
			formId: formA.id,
			contact: { firstname: 'Zoë', lastname: 'Nguyễn', email: 'zoe.nguyen@example.com', phone: '+15125550100' },
			source: 'google-ads',
			attribution: { utm_source: 'google', utm_medium: 'cpc', utm_campaign: 'spring_sale', page_url: 'https://book.example.com/f/a', gclid: 'Cj0KCQabc' },
		});
		sandbox.saveSession(left.id, { step: 'schedule', data: { ...left.data, zip: '78701', address: '12 Elm St', scheduledDate: '2026-11-09', serviceIds: [] } });
		const noEmail = sandbox.startSession({ formId: formB.id });
		sandbox.saveSession(noEmail.id, { step: 'address', data: { zip: '78702', contact: { firstname: 'Nomail', lastname: 'Customer' } } });
		sandbox.clock.advance(45 * MIN);
		const booked = sandbox.startSession({ formId: formA.id, contact: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com', phone: '+15550000000' } });
		const { request } = sandbox.completeSession(booked.id);
		const placeholder = sandbox.bookWithoutDraft({ formId: formB.id });

		const poll = await run.poll();
		const items = poll.items!;
		printFigures(`[simplified trigger items from the sandbox]\n${JSON.stringify(items, null, 2)}`);

		const [abandoned, abandonedNoEmail] = [left, noEmail].map((s) => byEvent(items, 'session.abandoned').find((item) => item.session_id === s.id)!);
		expect(abandoned).toEqual({
			event: 'session.abandoned',
			event_id: expect.stringMatching(new RegExp(`^session\\.abandoned:${left.id}:\\d+$`)),
			session_id: left.id,
			request_id: null,
			status: 'abandoned',
			form_id: formA.id,
			form_name: formA.name,
			step: 'schedule',
			email: 'zoe.nguyen@example.com',
			first_name: 'Zoë',
			last_name: 'Nguyễn',
			phone: '+15125550100',
			zip: '78701',
			address: '12 Elm St',
			scheduled_date: '2026-11-09',
			service_ids: [],
			source: 'google-ads',
			utm_source: 'google',
			utm_medium: 'cpc',
			utm_campaign: 'spring_sale',
			referrer: null,
			page_url: 'https://book.example.com/f/a',
			gclid: 'Cj0KCQabc',
			created_at: expect.any(String),
			updated_at: expect.any(String),
			idle_minutes: 45,
		});
		expect(abandonedNoEmail).toMatchObject({ email: null, first_name: 'Nomail', form_name: formB.name });

		const completed = byEvent(items, 'session.completed');
		expect(completed.find((item) => item.session_id === booked.id)).toMatchObject({
			request_id: request.id,
			status: 'completed',
			email: 'ada@example.com',
			first_name: 'Ada',
			recovered: false,
			idle_minutes: 0,
		});
		// Booked without a saved draft: the contact comes from the request (here from the request list
		// read in the same poll for New Request, so no extra call).
		expect(completed.find((item) => item.session_id === placeholder.session.id)).toMatchObject({
			step: 'confirm',
			email: placeholder.request.email,
			first_name: placeholder.request.first_name,
			last_name: placeholder.request.last_name,
			phone: placeholder.request.phone,
			form_name: formB.name,
		});

		const requests = byEvent(items, 'request.created');
		expect(requests.map((item) => item.id).sort()).toEqual([request.id, placeholder.request.id].sort());
		expect(requests.find((item) => item.id === request.id)).toMatchObject({ email: 'ada@example.com', form_id: formA.id, form_name: formA.name });
		expect(requests[0]).not.toHaveProperty('intake_responses');

		expect(poll.byPath).toEqual({ '/api/v1/abandoned-sessions': 1, '/api/v1/requests': 1, [FORMS]: 1 });

		// Next poll: names cached and fresh, no forms call.
		const next = sandbox.startSession({ formId: formA.id, contact: { email: 'next@example.com' } });
		sandbox.clock.advance(45 * MIN);
		const second = await run.poll();
		expect(second.items!.map((item) => [item.session_id, item.form_name])).toEqual([[next.id, formA.name]]);
		expect(second.byPath[FORMS]).toBeUndefined();
	});

	test('"Only Sessions With an E-mail": abandoned sessions without one are not emitted (not later either); one saved again with an e-mail is, once abandoned again', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionAbandoned'], simplify: true, options: { onlyWithEmail: true } });
		await run.poll();
		const withEmail = sandbox.startSession({ contact: { firstname: 'Has', email: 'has@example.com' } });
		const without: string[] = [];
		for (const contact of [{ firstname: 'Nomail' }, { firstname: 'Blank', email: '' }]) {
			const id = sandbox.startSession().id;
			without.push(id);
			sandbox.saveSession(id, { step: 'address', data: { zip: '78701', contact } });
		}
		sandbox.clock.advance(31 * MIN);
		expect((await run.poll()).items!.map((item) => item.session_id)).toEqual([withEmail.id]);
		sandbox.clock.advance(31 * MIN);
		expect((await run.poll()).items).toBeNull();
		// never reported, so not "seen": the customer comes back and adds an e-mail, then leaves again
		sandbox.saveSession(without[0], { step: 'schedule', data: { zip: '78701', contact: { firstname: 'Nomail', email: 'now@example.com' } } });
		sandbox.clock.advance(31 * MIN);
		expect((await run.poll()).items!.map((item) => [item.session_id, item.email])).toEqual([[without[0], 'now@example.com']]);
	});

	test('Session Completed alone: a booking without a saved draft costs one Get request for its contact', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionCompleted'], simplify: true });
		await run.poll();
		const { session, request } = sandbox.bookWithoutDraft();
		const poll = await run.poll();
		expect(poll.items).toEqual([expect.objectContaining({ session_id: session.id, email: request.email, first_name: request.first_name })]);
		expect(poll.byPath).toEqual({ '/api/v1/abandoned-sessions': 1, '/api/v1/requests/{id}': 1, [FORMS]: 1 });
	});

	test('"Fetch Test Event": up to 3 samples per event in the simplified shape, those with an e-mail first', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ALL, simplify: true });
		const { items } = await run.poll('manual');
		for (const event of ALL.map((e) => ({ sessionAbandoned: 'session.abandoned', sessionCompleted: 'session.completed', requestCreated: 'request.created' })[e]!)) {
			expect(byEvent(items, event)).toHaveLength(3);
		}
		for (const item of byEvent(items, 'session.abandoned')) expect(item.email).toEqual(expect.stringContaining('@'));
		for (const item of items!) expect(typeof item.form_name).toBe('string');
		expect(run.state.staticData).toEqual({});
	});
});

describe('form names (formNames.ts)', () => {
	let n8nLog: N8nLogCapture;
	beforeEach(() => (n8nLog = captureN8nLog()));
	afterEach(() => n8nLog.restore());

	test('refresh rule: one call, cached for an hour, a new form triggers one refresh; no time left or a failure: names from the cache or null', async () => {
		const context = harness.context();
		const [formA, formB] = sandbox.workspace().forms;
		const unknown = '00000000-0000-4000-8000-00000000abcd';
		const names = await formNamesFor(context, [formA.id, unknown]);
		expect([names.get(formA.id), names.get(unknown)]).toEqual([formA.name, null]);
		expect(sandbox.log).toHaveLength(1);
		// cached: known and unknown forms alike
		expect((await formNamesFor(context, [formB.id, unknown])).get(formB.id)).toBe(formB.name);
		expect(sandbox.log).toHaveLength(1);

		// an hour later: one refresh, which fails here (a 500 on every attempt) -> the stale names, no error
		const anHourLater = () => Date.now() + FORM_NAMES_TTL_MS + 1;
		sandbox.setFaults({ always: 500 });
		sandbox.clearLog();
		const stale = await formNamesFor(context, [formA.id], { clock: anHourLater });
		expect(stale.get(formA.id)).toBe(formA.name);
		expect(sandbox.log.length).toBeGreaterThan(0);
		// n8n's log says so, with the error
		expect(n8nLog.entries.filter((entry) => entry.level === 'warn')).toEqual([
			expect.objectContaining({ message: 'Booking Requests Trigger: could not read form names; items carry form_name from the cache or null', meta: { error: expect.any(String) } }),
		]);
		sandbox.setFaults({});
		// and a new form (not in the cache) triggers one refresh
		await new Promise((resolve) => setTimeout(resolve, 1_100));
		sandbox.clearLog();
		const fresh = await formNamesFor(context, [formB.id, '00000000-0000-4000-8000-00000000beef']);
		expect(fresh.get(formB.id)).toBe(formB.name);
		expect(sandbox.log).toHaveLength(1);

		// no time left in the poll: nothing is sent, names from the cache or null
		clearFormNamesCache();
		sandbox.clearLog();
		const late = await formNamesFor(context, [formA.id], { deadline: Date.now() });
		expect(late.get(formA.id)).toBeNull();
		expect(sandbox.log).toHaveLength(0);
		expect(n8nLog.messages('warn').slice(1)).toEqual(['Booking Requests Trigger: no time left in this poll to read form names; items carry form_name from the cache or null']);
	});
});
