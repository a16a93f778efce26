/**
 * Booking Request → Find by Customer over real HTTP against the sandbox (1 request/s enforced), and
 * on a stub list server for a request without created_at in the middle of the list.
 *
 * The sandbox gets a few customers whose requests carry e-mail variants and phones; the customer is
 * looked up the way a reminder workflow does it: the e-mail as typed and the phone as a draft holds
 * it ("(512) 555-0199") while requests hold "+15125550199".
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { execute } from '../../../../../nodes/BookingRequests/actions/bookingRequest/findByCustomer.operation';
import { setPacingGapForTests } from '../../../../../harness/limiterSettings';
import type { BookingRequest, Sandbox } from '../../../../../sandbox';
import type { Harness } from '../../../../../harness/inProcessN8n';
import { withSandbox } from '../../../../support/sandboxSuite';
import { stubListServer } from '../../../../support/stubList';
import { pacing429s, withoutOwn429s } from '../../../../support/pacing429';
import { hashKey } from '../../../../../sandbox';

let sandbox: Sandbox;
let harness: Harness;

const DAY = 24 * 60 * 60 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();
const idsOf = (items: Array<{ json: IDataObject }>) => items.map((item) => item.json.id as string);
// The API's own 429s left out (a stall of this busy process can bring a call in short of the last one's
// second); pacing429s judges whether the pacing caused any.
const requestCalls = () => withoutOwn429s(sandbox.log).filter((entry) => entry.path === '/api/v1/requests');
const pagesRead = () => requestCalls().map((entry) => [entry.query.page, entry.query.per_page]);
const FIND = { resource: 'bookingRequest', operation: 'findByCustomer' };

withSandbox({ sizes: { requests: 260, sessions: 20, forms: 4, profiles: 6 } }, (started, ready) => {
	sandbox = started;
	harness = ready;
});

/** The seeded customers (added once, before every test). */
const ann: Record<string, BookingRequest> = {};
let bob: BookingRequest;
let nearMiss: BookingRequest;
const NOW = Date.now();
/** Deep in the list: about 200 seeded requests are newer. */
const DEEP = Date.UTC(2026, 2, 15);

beforeAll(() => {
	const add = (fields: Partial<BookingRequest>) => sandbox.addRequest(fields);
	ann.recent = add({ email: 'ann.lee@example.com', phone: '+15125550199', first_name: 'Ann', created_at: iso(NOW - 2 * DAY) });
	ann.emailVariant = add({ email: '  ANN.Lee@Example.COM ', phone: '+15125550100', first_name: 'Ann', created_at: iso(NOW - 10 * DAY) });
	ann.phoneOnly = add({ email: 'ann.work@example.org', phone: '+15125550199', first_name: 'Ann', created_at: iso(NOW - 20 * DAY) });
	ann.older = add({ email: 'ann.lee@example.com', phone: '+447700900123', first_name: 'Ann', created_at: iso(NOW - 45 * DAY) });
	ann.deep = add({ email: 'Ann.Lee@example.com', phone: '+33142685300', first_name: 'Ann', created_at: iso(DEEP) });
	bob = add({ email: 'bob.stone@example.com', phone: '+15125550777', first_name: 'Bob', created_at: iso(NOW - 3 * DAY) });
	nearMiss = add({ email: 'ann.lee@example.co', phone: '+15125550198', first_name: 'Anne', created_at: iso(NOW - 1 * DAY) });
});

/** Requests newer than `after` (what the read has to go through). */
const newerThan = (after: number) => sandbox.workspace().requests.filter((r) => r.created_at !== null && Date.parse(r.created_at) > after).length;

describe('Booking Request → Find by Customer', () => {
	test('default: the last 30 days, e-mail as typed + phone as a draft holds it; newest first; 1 call of 100', async () => {
		const result = await harness.runAction({ ...FIND, email: '  Ann.Lee@EXAMPLE.com', phone: '(512) 555-0199' });
		expect(result.error).toBeUndefined();
		expect(idsOf(result.items)).toEqual([ann.recent.id, ann.emailVariant.id, ann.phoneOnly.id]);
		expect(result.items[0].json).toMatchObject({ first_name: 'Ann', email: 'ann.lee@example.com', phone: '+15125550199' });
		expect(idsOf(result.items)).not.toContain(nearMiss.id);
		expect(newerThan(NOW - 30 * DAY)).toBeLessThan(100);
		expect(pagesRead()).toEqual([['1', '100']]);
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	});

	test('Created After deep in the list: reads down to it over several pages, 1 call + 1 per 100 newer requests', async () => {
		const after = DEEP - DAY;
		const result = await harness.runAction({ ...FIND, email: 'ann.lee@example.com', createdAfter: iso(after), returnAll: true });
		expect(result.error).toBeUndefined();
		expect(idsOf(result.items)).toEqual([ann.recent.id, ann.emailVariant.id, ann.older.id, ann.deep.id]);
		const newer = newerThan(after);
		expect(newer).toBeGreaterThan(200);
		const calls = Math.floor(newer / 100) + 1;
		expect(pagesRead()).toEqual(Array.from({ length: calls }, (_, i) => [String(i + 1), '100']));
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	});

	test('phone only, any format: the requests with the same international digits', async () => {
		const result = await harness.runAction({ ...FIND, phone: '512.555.0199', createdAfter: iso(NOW - 30 * DAY) });
		expect(idsOf(result.items)).toEqual([ann.recent.id, ann.phoneOnly.id]);
		const plus = await harness.runAction({ ...FIND, phone: '+1 512 555 0777' });
		expect(idsOf(plus.items)).toEqual([bob.id]);
	});

	test('Limit stops the read once enough requests matched', async () => {
		const result = await harness.runAction({ ...FIND, email: 'ann.lee@example.com', createdAfter: iso(DEEP - DAY), limit: 1 });
		expect(idsOf(result.items)).toEqual([ann.recent.id]);
		expect(pagesRead()).toEqual([['1', '100']]);
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	});

	test('a customer without requests in the range: no items, 1 call', async () => {
		const result = await harness.runAction({ ...FIND, email: 'nobody@example.com' });
		expect(result.error).toBeUndefined();
		expect(result.items).toEqual([]);
		expect(requestCalls()).toHaveLength(1);
	});

	test('one run per input item from expressions, each item paired with its input', async () => {
		const result = await harness.runAction(
			{ ...FIND, email: '={{ $json.email }}', phone: '={{ $json.phone }}', createdAfter: '={{ $json.since }}' },
			{
				input: [
					{ email: 'ANN.LEE@example.com', phone: '', since: iso(NOW - 15 * DAY) },
					{ email: '', phone: '(512) 555-0777', since: iso(NOW - 15 * DAY) },
					{ email: 'nobody@example.com', phone: null, since: iso(NOW - 15 * DAY) },
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json.id, item.pairedItem])).toEqual([
			[ann.recent.id, { item: 0 }],
			[ann.emailVariant.id, { item: 0 }],
			[bob.id, { item: 1 }],
		]);
		expect(requestCalls()).toHaveLength(3);
	});

	test('Output "One Summary per Input Item": booked true/false for every input item, paired', async () => {
		const since = iso(NOW - 15 * DAY);
		const result = await harness.runAction(
			{ ...FIND, output: 'summary', email: '={{ $json.email }}', phone: '={{ $json.phone }}', createdAfter: since },
			{ input: [{ email: 'ann.lee@example.com', phone: '(512) 555-0199' }, { email: 'nobody@example.com', phone: '' }] },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		const [booked, notBooked] = result.items.map((item) => item.json);
		expect(booked).toMatchObject({ email: 'ann.lee@example.com', phone: '(512) 555-0199', created_after: since, booked: true, request_count: 2 });
		expect((booked.requests as IDataObject[]).map((r) => r.id)).toEqual([ann.recent.id, ann.emailVariant.id]);
		expect(notBooked).toEqual({ email: 'nobody@example.com', phone: null, created_after: since, booked: false, request_count: 0, requests: [] });
	});

	test('Simplify off: the raw API objects', async () => {
		const result = await harness.runAction({ ...FIND, email: 'bob.stone@example.com', simplify: false });
		expect(result.items.map((item) => item.json)).toEqual([JSON.parse(JSON.stringify(bob))]);
	});

	test('Form filter: read on the server (form_id), only that form\'s requests', async () => {
		const formId = ann.recent.form_id;
		const result = await harness.runAction({
			...FIND,
			email: 'ann.lee@example.com',
			phone: '5125550199',
			filters: { formId: { __rl: true, mode: 'id', value: formId } },
		});
		const expected = [ann.recent, ann.emailVariant, ann.phoneOnly].filter((r) => r.form_id === formId).map((r) => r.id);
		expect(idsOf(result.items)).toEqual(expected);
		expect(requestCalls().map((entry) => entry.query.form_id)).toEqual([formId]);
	});

	test.each([
		[{ email: '', phone: '' }, 'Give the customer\'s "E-Mail" or "Phone" (or both)'],
		[{ email: '   ', phone: '  ' }, 'Give the customer\'s "E-Mail" or "Phone" (or both)'],
		[{ email: 'ann.lee at example.com' }, 'Parameter "E-Mail" is not an e-mail address, got "ann.lee at example.com"'],
		[{ email: 'ann@example.com', phone: '555-01' }, 'Parameter "Phone" has fewer than 7 digits, got "555-01"'],
		[{ email: 'ann@example.com', createdAfter: 'last tuesday' }, 'Parameter "Created After" is not a valid date'],
		[{ email: 'ann@example.com', filters: { formId: { __rl: true, mode: 'id', value: 'spring-form' } } }, 'Parameter "Form" must be a UUID, got "spring-form"'],
	])('bad input %j: a clear error naming the parameter, no request', async (parameters, message) => {
		const result = await harness.runAction({ ...FIND, ...parameters });
		expect(result.error?.message).toBe(message);
		expect(sandbox.log).toHaveLength(0);
	});

	test('Continue On Fail: an item without e-mail or phone yields { error }, the others go on, all paired', async () => {
		const result = await harness.runAction(
			{ ...FIND, email: '={{ $json.email }}' },
			{ input: [{ email: '' }, { email: 'bob.stone@example.com' }], continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json, item.pairedItem])).toEqual([
			[{ error: 'Give the customer\'s "E-Mail" or "Phone" (or both)' }, { item: 0 }],
			[expect.objectContaining({ id: bob.id }), { item: 1 }],
		]);
		expect(requestCalls()).toHaveLength(1);
	});

	test('as an AI Agent tool, n8n describes the operation to the model in plain words', async () => {
		const { NodeHelpers } = await import('n8n-workflow');
		const nodeType = harness.nodeTypes.getByNameAndVersion('n8n-nodes-booking-requests.bookingRequests');
		const node = { id: 't', name: 'Booking Requests', type: 'x', typeVersion: 1, position: [0, 0] as [number, number], parameters: { ...FIND } };
		expect(NodeHelpers.getToolDescriptionForNode(node, nodeType)).toBe("Find a customer's booking requests by e-mail or phone in Booking Requests");
	});
});

describe('a request without created_at in the middle of the list (stub list server)', () => {
	beforeAll(() => setPacingGapForTests(2));
	afterAll(() => setPacingGapForTests(1015));

	test('neither ends the read nor matches; the older matching request above Created After is still found', async () => {
		const T = Date.UTC(2026, 10, 20);
		const row = (i: number, createdAt: string | null, email = `someone${i}@example.com`) => ({ id: `r-${String(i).padStart(4, '0')}`, created_at: createdAt, email, phone: null });
		const list = [
			...Array.from({ length: 150 }, (_, i) => row(i, iso(T - i * 60_000))),
			row(150, null, 'ann.lee@example.com'),
			row(151, iso(T - 151 * 60_000), 'ann.lee@example.com'),
			row(152, iso(T - 10 * DAY), 'ann.lee@example.com'),
		];
		const stub = stubListServer(() => list);
		const parameters: IDataObject = { email: 'ANN.LEE@example.com', phone: '', createdAfter: iso(T - DAY), output: 'requests', returnAll: true, filters: {}, simplify: false };
		const ctx = Object.assign(Object.create(stub.ctx as object) as object, {
			getNodeParameter: (name: string, _i: number, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
			getTimezone: () => 'UTC',
		}) as unknown as IExecuteFunctions;
		const found = await execute.call(ctx, 0);
		expect(found.map((r) => r.id)).toEqual(['r-0151']);
		expect(stub.calls.map((call) => call.page)).toEqual([1, 2]);
	});
});
