/**
 * The items (poll/items.ts, output/itemFields.ts) as a pure function of (events, options, form names): no n8n, no API.
 */
import { pickSamples } from '../../../nodes/BookingRequestsTrigger/events';
import { idleMinutes, needsRequest } from '../../../nodes/BookingRequestsTrigger/output/itemFields';
import { shapeItems } from '../../../nodes/BookingRequestsTrigger/poll/items';
import type { ItemOptions } from '../../../nodes/BookingRequestsTrigger/output/itemFields';
import type { TriggerEvent } from '../../../nodes/BookingRequestsTrigger/events';
import { FORM_A, MIN, T0, iso, makeRequest, makeSession, makeSettings } from '../../support/triggerWorld';

const NOW = T0 + 120 * MIN;
const SIMPLE: ItemOptions = { simplify: true, includeRequest: false, now: NOW };
const RAW: ItemOptions = { ...SIMPLE, simplify: false };
const NAMES = new Map([[FORM_A, 'Spring cleaning']]);

const draft = {
	zip: '78701',
	address: '12 Elm St',
	serviceIds: ['5e1f6a1e-0000-4000-8000-000000000001'],
	scheduledDate: '2026-11-09',
	contact: { firstname: 'Zoë', lastname: 'Nguyễn', email: 'zoe@example.com', phone: '+15125550100' },
};
const attribution = { utm_source: 'google', utm_medium: 'cpc', page_url: 'https://book.example.com/f/a', gclid: 'Cj0KCQabc' };

function abandonedEvent(overrides = {}): TriggerEvent {
	const session = makeSession({ step: 'schedule', data: draft, attribution, source: 'website', created_at: iso(NOW - 80 * MIN), updated_at: iso(NOW - 47 * MIN), ...overrides });
	const at = Date.parse(session.updated_at ?? session.created_at!);
	return { event: 'session.abandoned', eventId: `session.abandoned:${session.id}:${at}`, at: at + 30 * MIN, session };
}

describe('simplified session events', () => {
	test('Session Abandoned: one flat item with the draft, the form name, flattened attribution and idle minutes', () => {
		const event = abandonedEvent();
		const [item] = shapeItems([event], SIMPLE, NAMES);
		expect(item.json).toEqual({
			event: 'session.abandoned',
			event_id: event.eventId,
			session_id: event.session!.id,
			request_id: null,
			status: 'abandoned',
			form_id: FORM_A,
			form_name: 'Spring cleaning',
			step: 'schedule',
			email: 'zoe@example.com',
			first_name: 'Zoë',
			last_name: 'Nguyễn',
			phone: '+15125550100',
			zip: '78701',
			address: '12 Elm St',
			scheduled_date: '2026-11-09',
			service_ids: draft.serviceIds,
			source: 'website',
			utm_source: 'google',
			utm_medium: 'cpc',
			utm_campaign: null,
			referrer: null,
			page_url: 'https://book.example.com/f/a',
			gclid: 'Cj0KCQabc',
			created_at: event.session!.created_at,
			updated_at: event.session!.updated_at,
			idle_minutes: 47,
		});
	});

	test('Session Completed without a saved draft: the contact comes from the attached request; recovered; request only with the option', () => {
		const request = makeRequest({ first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+15550000000' });
		const session = makeSession({ step: 'confirm', data: {}, request_id: request.id, updated_at: iso(NOW - 3 * MIN) });
		const event: TriggerEvent = { event: 'session.completed', eventId: `session.completed:${session.id}:${request.id}`, at: NOW - 3 * MIN, session, request, recovered: true, recoveredFromSessionId: 'abandoned-one', minutesToRecover: 42 };
		const [plain] = shapeItems([event], SIMPLE, NAMES);
		expect(plain.json).toMatchObject({
			event: 'session.completed',
			session_id: session.id,
			request_id: request.id,
			status: 'completed',
			email: 'ada@example.com',
			first_name: 'Ada',
			last_name: 'Lovelace',
			phone: '+15550000000',
			zip: null,
			service_ids: [],
			idle_minutes: 3,
			recovered: true,
			recovered_from_session_id: 'abandoned-one',
			minutes_to_recover: 42,
		});
		// next to `recovered`, in this order
		const keys = Object.keys(plain.json);
		expect(keys.slice(keys.indexOf('recovered'), keys.indexOf('recovered') + 3)).toEqual(['recovered', 'recovered_from_session_id', 'minutes_to_recover']);
		expect(plain.json).not.toHaveProperty('request');
		expect(plain.json).not.toHaveProperty('minutes_to_book');
		const [withRequest] = shapeItems([event], { ...SIMPLE, includeRequest: true }, NAMES);
		expect(withRequest.json.request).toMatchObject({ id: request.id, email: 'ada@example.com', intake_answers: [] });
		// a booking without a saved draft has no first save: no minutes to book (as Get Many sessions)
		expect(withRequest.json.minutes_to_book).toBeNull();
		const [missing] = shapeItems([{ ...event, request: undefined }], { ...SIMPLE, includeRequest: true }, NAMES);
		expect(missing.json.request).toBeNull();
		expect(missing.json.email).toBeNull();
	});

	test('Include Booking Request: minutes_to_book from the first save to the booking, before request, as Get Many sessions has them', () => {
		const session = makeSession({ data: draft, created_at: iso(NOW - 80 * MIN), updated_at: iso(NOW - 3 * MIN) });
		const request = makeRequest({ created_at: iso(NOW - 3 * MIN) });
		const completed: TriggerEvent = { event: 'session.completed', eventId: 'm', at: NOW - 3 * MIN, session: { ...session, request_id: request.id }, request, recovered: false };
		const [item] = shapeItems([completed], { ...SIMPLE, includeRequest: true }, NAMES);
		expect(item.json.minutes_to_book).toBe(77);
		const keys = Object.keys(item.json);
		expect(keys.slice(-2)).toEqual(['minutes_to_book', 'request']);
	});

	test('the draft\'s own contact wins over the request\'s', () => {
		const request = makeRequest({ email: 'other@example.com' });
		const session = makeSession({ data: draft, request_id: request.id });
		const [item] = shapeItems([{ event: 'session.completed', eventId: 'x', at: NOW, session, request }], SIMPLE, NAMES);
		expect(item.json.email).toBe('zoe@example.com');
	});

	test('a form the names do not know gets form_name null; a session without timestamps idle_minutes null', () => {
		const [item] = shapeItems([abandonedEvent({ created_at: null, updated_at: null })], SIMPLE, new Map());
		expect(item.json.form_name).toBeNull();
		expect(item.json.idle_minutes).toBeNull();
	});
});

describe('New Request events', () => {
	test('the simplified request of the action node, with event, event_id and form_name', () => {
		const request = makeRequest({
			attribution: { source: 'widget', utm_source: 'newsletter' },
			intake_responses: [
				{ question_id: 'q1', scope: 'form', scope_ref_id: FORM_A, scope_ref_name: 'Form', type: 'text', question: 'Pets at home?', options: [], required: false, answer: 'A cat' },
				{ question_id: 'q2', scope: 'form', scope_ref_id: FORM_A, scope_ref_name: 'Form', type: 'text', question: 'Gate code?', options: [], required: false, answer: '' },
			],
		});
		const [item] = shapeItems([{ event: 'request.created', eventId: `request.created:${request.id}`, at: NOW, request }], SIMPLE, NAMES);
		const keys = Object.keys(item.json);
		expect(keys.slice(0, 4)).toEqual(['event', 'event_id', 'id', 'status']);
		expect(keys[keys.indexOf('form_id') + 1]).toBe('form_name');
		expect(item.json).toMatchObject({
			id: request.id,
			form_name: 'Spring cleaning',
			email: 'ada@example.com',
			city: 'Springfield',
			intake_answers: [{ question: 'Pets at home?', answer: 'A cat' }],
			utm_source: 'newsletter',
			source: null,
			attribution_source: 'widget',
		});
	});
});

describe('raw mode keeps the API object', () => {
	test('session + event + event_id (+ recovered and request for completed sessions)', () => {
		const event = abandonedEvent();
		expect(shapeItems([event], RAW, NAMES)[0].json).toEqual({ ...event.session, event: event.event, event_id: event.eventId });
		const request = makeRequest();
		const session = makeSession({ request_id: request.id });
		const completed: TriggerEvent = { event: 'session.completed', eventId: 'c', at: NOW, session, request, recovered: false };
		expect(shapeItems([completed], { ...RAW, includeRequest: true }, NAMES)[0].json).toEqual({
			...session,
			event: 'session.completed',
			event_id: 'c',
			recovered: false,
			recovered_from_session_id: null,
			minutes_to_recover: null,
			minutes_to_book: 0,
			request,
		});
		const recovered: TriggerEvent = { ...completed, recovered: true, recoveredFromSessionId: 'earlier', minutesToRecover: 95 };
		expect(shapeItems([recovered], RAW, NAMES)[0].json).toMatchObject({ recovered: true, recovered_from_session_id: 'earlier', minutes_to_recover: 95 });
		expect(shapeItems([{ event: 'request.created', eventId: 'r', at: NOW, request }], RAW, NAMES)[0].json).toEqual({ ...request, event: 'request.created', event_id: 'r' });
	});
});

describe('"Only Sessions With an E-mail": decided once, by Session Abandoned (its rule and its samples), not by the items', () => {
	const withEmail = abandonedEvent();
	const noEmail = abandonedEvent({ data: { zip: '1', contact: { firstname: 'Nomail' } } });
	const blankEmail = abandonedEvent({ data: { contact: { email: '   ' } } });
	const request = makeRequest();
	const completedNoDraft: TriggerEvent = { event: 'session.completed', eventId: 'c', at: NOW, session: makeSession({ data: {}, request_id: request.id }) };

	test('off (default): samples of every session; on: abandoned sessions without an e-mail are left out, other events stay; the items keep every event they get', () => {
		const sessions = [withEmail, noEmail, blankEmail, completedNoDraft].map((event) => event.session!);
		const sampled = (onlyWithEmail: boolean) => pickSamples(sessions, [], NOW, makeSettings({ onlyWithEmail })).map((event) => event.session!.id);
		expect(sampled(false)).toEqual([withEmail.session!.id, noEmail.session!.id, blankEmail.session!.id, completedNoDraft.session!.id]);
		expect(sampled(true)).toEqual([withEmail.session!.id, completedNoDraft.session!.id]);
		expect(shapeItems([withEmail, noEmail, blankEmail, completedNoDraft], SIMPLE, NAMES)).toHaveLength(4);
	});
});

describe('needsRequest: which completed sessions need their booking request read', () => {
	test('always with Include Booking Request; with Simplify only when the draft has no e-mail; never in raw mode without the option', () => {
		const drafted = makeSession({ data: draft, request_id: 'r' });
		const placeholder = makeSession({ data: {}, request_id: 'r' });
		expect(needsRequest(drafted, { simplify: true, includeRequest: false })).toBe(false);
		expect(needsRequest(placeholder, { simplify: true, includeRequest: false })).toBe(true);
		expect(needsRequest(placeholder, { simplify: false, includeRequest: false })).toBe(false);
		expect(needsRequest(drafted, { simplify: false, includeRequest: true })).toBe(true);
	});

	test('idle minutes are whole minutes, never negative', () => {
		expect(idleMinutes(makeSession({ updated_at: iso(NOW - 90_500) }), NOW)).toBe(1);
		expect(idleMinutes(makeSession({ updated_at: iso(NOW + 60_000) }), NOW)).toBe(0);
		expect(idleMinutes(makeSession({ updated_at: null, created_at: iso(NOW - 10 * MIN) }), NOW)).toBe(10);
	});

	test('idle minutes count to the end of the Date header\'s second (it is truncated to whole seconds)', () => {
		// activity 0.6 s into a second, Date header 31 minutes later truncated to that later second
		const activity = NOW - 31 * MIN + 400;
		expect(idleMinutes(makeSession({ updated_at: iso(activity) }), NOW)).toBe(31);
		expect(idleMinutes(makeSession({ updated_at: iso(NOW - 31 * MIN + 1000) }), NOW)).toBe(30);
	});
});
