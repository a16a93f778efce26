// The control routes that take a customer's contact, over real HTTP: both of the contract's spellings
// (a session draft's contact.firstname, a request's first_name), in `contact` or at the top of the
// body, give the same customer; what a route cannot use is refused with the names it accepts. And
// the routes that list ids, and `newest` in place of an id.

import { startSandbox, type Sandbox } from '../../sandbox/index';
import { control } from './helpers';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false });
});
afterAll(() => sb.close());

const DRAFT = { firstname: 'Sam', lastname: 'Lee', email: 'sam@example.com', phone: '+15125550100' };
const REQUEST = { first_name: 'Sam', last_name: 'Lee', email: 'sam@example.com', phone: '+15125550100' };

/** The same customer written four ways. */
const SPELLINGS: Array<[string, Record<string, unknown>]> = [
	["a session draft's contact", { contact: DRAFT }],
	["a request's fields", { ...REQUEST }],
	["a request's fields in contact", { contact: REQUEST }],
	["a session draft's names at the top", { ...DRAFT }],
];

describe('routes that make a session draft: the contact in either spelling', () => {
	test.each(SPELLINGS)('POST /__sandbox/sessions with %s', async (_how, body) => {
		const res = await control(sb, 'POST', '/__sandbox/sessions', body);
		expect(res.status).toBe(200);
		expect(res.data.data.contact).toEqual(DRAFT);
	});

	test.each(SPELLINGS)('POST /__sandbox/abandon with %s', async (_how, body) => {
		const res = await control(sb, 'POST', '/__sandbox/abandon', { ...body, idleMinutes: 1 });
		expect(res.status).toBe(200);
		expect(res.data.session.data.contact).toEqual(DRAFT);
		expect(res.data.session.request_id).toBeNull();
	});

	test.each(SPELLINGS)('POST /__sandbox/sessions/:id/save with %s in data', async (_how, body) => {
		const started = await control(sb, 'POST', '/__sandbox/sessions', {});
		const contact = 'contact' in body ? body.contact : body;
		const res = await control(sb, 'POST', `/__sandbox/sessions/${started.data.id}/save`, { step: 'schedule', data: { zip: '78701', contact } });
		expect(res.status).toBe(200);
		expect(res.data.data).toEqual({ zip: '78701', contact: DRAFT });
	});
});

describe('routes that make a request: the contact in either spelling', () => {
	test.each(SPELLINGS)('POST /__sandbox/bookings with %s: the request is the customer\'s', async (_how, body) => {
		const res = await control(sb, 'POST', '/__sandbox/bookings', body);
		expect(res.status).toBe(200);
		expect(res.data.request).toMatchObject(REQUEST);
		expect(res.data.session).toMatchObject({ step: 'confirm', data: {}, request_id: res.data.request.id });
	});

	test.each(SPELLINGS)('POST /__sandbox/requests with %s', async (_how, body) => {
		const res = await control(sb, 'POST', '/__sandbox/requests', { ...body, status: 'pending' });
		expect(res.status).toBe(200);
		expect(res.data).toMatchObject({ ...REQUEST, status: 'pending' });
	});

	test.each(SPELLINGS)('POST /__sandbox/requests/:id/update with %s', async (_how, body) => {
		const { data: request } = await control(sb, 'POST', '/__sandbox/requests', {});
		const res = await control(sb, 'POST', `/__sandbox/requests/${request.id}/update`, { ...body, lead_status: 'contacted' });
		expect(res.status).toBe(200);
		expect(res.data).toMatchObject({ id: request.id, ...REQUEST, lead_status: 'contacted' });
	});

	test('a completed draft gives its contact to the request: what /abandon made, /sessions/:id/complete books', async () => {
		const { data } = await control(sb, 'POST', '/__sandbox/abandon', { first_name: 'Ines', email: 'ines@example.com' });
		const done = await control(sb, 'POST', `/__sandbox/sessions/${data.session.id}/complete`);
		expect(done.status).toBe(200);
		expect(done.data.request).toMatchObject({ first_name: 'Ines', email: 'ines@example.com' });
		expect(done.data.session.request_id).toBe(done.data.request.id);
	});
});

describe('what a route cannot use is refused with the names it takes (never dropped)', () => {
	test.each([
		['/__sandbox/sessions', { contact: { first: 'Sam' } }, /contact\.first is not a contact field \(firstname or first_name, lastname or last_name, email, phone\)/],
		['/__sandbox/abandon', { contact: 'Sam' }, /contact must be an object/],
		['/__sandbox/bookings', { contact: { email: 7 } }, /contact\.email must be a string/],
		['/__sandbox/requests', { contact: { firstname: 'Sam' }, first_name: 'Samuel' }, /first_name and contact\.firstname differ/],
		['/__sandbox/abandon', { firstname: 'Sam', contact: { first_name: 'Max' } }, /firstname and contact\.first_name differ/],
		['/__sandbox/abandon', { idle: 5 }, /does not take idle; it takes formId, key, idleMinutes, a contact/],
		['/__sandbox/bookings', { form_id: 'x' }, /does not take form_id/],
		['/__sandbox/requests', { frist_name: 'Sam' }, /frist_name is not a field of a request/],
		['/__sandbox/requests', { formId: '00000000-0000-4000-8000-000000000000' }, /no form 00000000-0000-4000-8000-000000000000/],
	] as Array<[string, Record<string, unknown>, RegExp]>)('POST %s %j', async (route, body, message) => {
		const res = await control(sb, 'POST', route, body);
		expect(res.status).toBeGreaterThanOrEqual(400);
		expect(res.data.message).toMatch(message);
	});

	test('a request update refuses a field it cannot change, and one given twice', async () => {
		const { data: request } = await control(sb, 'POST', '/__sandbox/requests', {});
		const city = await control(sb, 'POST', `/__sandbox/requests/${request.id}/update`, { city: 'Austin' });
		expect(city.status).toBe(400);
		expect(city.data.message).toMatch(/does not take city/);
		const twice = await control(sb, 'POST', `/__sandbox/requests/${request.id}/update`, { email: 'a@example.com', contact: { email: 'b@example.com' } });
		expect(twice.status).toBe(400);
		expect((await control(sb, 'GET', `/__sandbox/requests?limit=100`)).data.items.find((r: { id: string }) => r.id === request.id).email).toBe(request.email);
	});
});

describe('listing ids, and newest in place of an id', () => {
	test('GET /__sandbox/requests: the newest first, short; limit; another workspace by key', async () => {
		const { data: made } = await control(sb, 'POST', '/__sandbox/requests', { first_name: 'Newest' });
		const res = await control(sb, 'GET', '/__sandbox/requests?limit=2');
		expect(res.status).toBe(200);
		expect(res.data.total).toBe(sb.workspace().requests.length);
		expect(res.data.items).toHaveLength(2);
		expect(Object.keys(res.data.items[0])).toEqual(['id', 'first_name', 'last_name', 'email', 'phone', 'status', 'lead_status', 'created_at', 'updated_at']);
		expect(res.data.items[0]).toMatchObject({ id: made.id, first_name: 'Newest' });
		const other = await control(sb, 'GET', `/__sandbox/requests?key=${sb.keys.other}`);
		expect(other.data.total).toBe(sb.workspace(sb.keys.other).requests.length);
		expect((await control(sb, 'GET', '/__sandbox/requests?limit=0')).status).toBe(400);
		expect((await control(sb, 'GET', '/__sandbox/requests?key=nope')).status).toBe(404);
	});

	test('GET /__sandbox/sessions?status=abandoned|completed: the most recently active first, with the draft\'s contact', async () => {
		const { data } = await control(sb, 'POST', '/__sandbox/abandon', { contact: { firstname: 'Lia' }, idleMinutes: 1 });
		const abandoned = await control(sb, 'GET', '/__sandbox/sessions?status=abandoned&limit=1');
		expect(abandoned.data.items).toEqual([
			{
				id: data.session.id,
				form_id: data.session.form_id,
				step: 'address',
				contact: data.session.data.contact,
				request_id: null,
				created_at: data.session.created_at,
				updated_at: data.session.updated_at,
			},
		]);
		const completed = await control(sb, 'GET', '/__sandbox/sessions?status=completed&limit=100');
		expect(completed.data.items.every((s: { request_id: string | null }) => s.request_id !== null)).toBe(true);
		expect(completed.data.total + abandoned.data.total).toBe(sb.workspace().sessions.length);
		expect((await control(sb, 'GET', '/__sandbox/sessions?status=open')).status).toBe(400);
	});

	test('GET /__sandbox/forms: id, name, default', async () => {
		const res = await control(sb, 'GET', '/__sandbox/forms');
		expect(res.data.items).toEqual(sb.workspace().forms.map(({ id, name, is_default }) => ({ id, name, is_default })));
	});

	test('newest: the newest request, and the most recently active abandoned session', async () => {
		const { data: made } = await control(sb, 'POST', '/__sandbox/requests', {});
		const updated = await control(sb, 'POST', '/__sandbox/requests/newest/update', { status: 'complete', completed_at: 'now' });
		expect(updated.data).toMatchObject({ id: made.id, status: 'complete' });
		const { data } = await control(sb, 'POST', '/__sandbox/abandon', { email: 'kai@example.com', idleMinutes: 1 });
		await control(sb, 'POST', '/__sandbox/bookings', {}); // a completed session on top: newest skips it
		const saved = await control(sb, 'POST', '/__sandbox/sessions/newest/save', { step: 'schedule' });
		expect(saved.data).toMatchObject({ id: data.session.id, step: 'schedule' });
		const done = await control(sb, 'POST', '/__sandbox/sessions/newest/complete');
		expect(done.data.session.id).toBe(data.session.id);
		expect(done.data.request.email).toBe('kai@example.com');
		const empty = await startSandbox({ rateLimit: false, sizes: { requests: 0, sessions: 0 } });
		try {
			expect((await control(empty, 'POST', '/__sandbox/requests/newest/update', { status: 'x' })).status).toBe(404);
			expect((await control(empty, 'POST', '/__sandbox/sessions/newest/complete')).status).toBe(404);
		} finally {
			await empty.close();
		}
	});
});
