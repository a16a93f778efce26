import type { IDataObject } from 'n8n-workflow';

import type { Harness } from '../../../harness/inProcessN8n';
import { withSandbox } from '../../support/sandboxSuite';
import type { Sandbox } from '../../../sandbox';
import { sortDefaultFirst, sortRequests, sortSessions } from '../../../sandbox';
import { ATTRIBUTION_FIELDS } from '../../../nodes/shared/output/attribution';
import { SIMPLE_REQUEST_FIELDS } from '../../../nodes/shared/output/request';
import { pacing429s, withoutOwn429s } from '../../support/pacing429';
import { hashKey } from '../../../sandbox';
import { printFigures } from '../../support/figures';

let sandbox: Sandbox;
let harness: Harness;

const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const jsonOf = (items: Array<{ json: IDataObject }>) => items.map((item) => item.json);
const idsOf = (items: Array<{ json: IDataObject }>) => items.map((item) => item.json.id as string);
// The calls the API served: its own 429s left out (a stall of this busy process can bring a paced call
// in short of the last one's second); noPacing429s judges whether the pacing caused any.
const served = () => withoutOwn429s(sandbox.log);
const noPacing429s = () => expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);

withSandbox({ sizes: { requests: 260, sessions: 150, forms: 4, profiles: 6 } }, (started, ready) => {
	sandbox = started;
	harness = ready;
});

describe('Booking Request → Get', () => {
	test('returns the request, simplified by default, raw when Simplify is off', async () => {
		const request = sortRequests(sandbox.workspace().requests)[0];
		const simple = await harness.runAction({ resource: 'bookingRequest', operation: 'get', requestId: request.id });
		expect(simple.error).toBeUndefined();
		const keys = Object.keys(simple.items[0].json);
		expect(keys.slice(0, SIMPLE_REQUEST_FIELDS.length)).toEqual([...SIMPLE_REQUEST_FIELDS]);
		expect(keys).toEqual(expect.arrayContaining([...ATTRIBUTION_FIELDS]));
		expect(simple.items[0].json.email).toBe(request.email);
		const raw = await harness.runAction({ resource: 'bookingRequest', operation: 'get', requestId: request.id, simplify: false });
		expect(raw.items[0].json).toEqual(request);
	});

	test('runs once per input item, ids from expressions, pairedItem set', async () => {
		const requests = sortRequests(sandbox.workspace().requests).slice(0, 3);
		const result = await harness.runAction(
			{ resource: 'bookingRequest', operation: 'get', requestId: '={{ $json.rid }}' },
			{ input: requests.map((request) => ({ rid: request.id })) },
		);
		expect(idsOf(result.items)).toEqual(requests.map((request) => request.id));
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(served()).toHaveLength(3);
		noPacing429s();
	});

	test("404 for another workspace's id: the clear error, and an { error } item under Continue On Fail", async () => {
		const otherId = sandbox.workspace(sandbox.keys.other).requests[0].id;
		const failed = await harness.runAction({ resource: 'bookingRequest', operation: 'get', requestId: otherId });
		expect(failed.error?.message).toBe(`Not found: booking request ${otherId} does not exist in this workspace`);

		const good = sortRequests(sandbox.workspace().requests)[0].id;
		const continued = await harness.runAction(
			{ resource: 'bookingRequest', operation: 'get', requestId: '={{ $json.rid }}' },
			{ input: [{ rid: otherId }, { rid: good }], continueOnFail: true },
		);
		expect(continued.error).toBeUndefined();
		expect(continued.items[0].json).toEqual({ error: `Not found: booking request ${otherId} does not exist in this workspace` });
		expect(continued.items[0].pairedItem).toEqual({ item: 0 });
		expect(continued.items[1].json.id).toBe(good);
		expect(continued.items[1].pairedItem).toEqual({ item: 1 });
	});

	test.each([
		['empty', ''],
		['whitespace', '   '],
		['a path', '../forms'],
		['a URL', 'https://evil.example/x'],
		['a long string', 'a'.repeat(10_000)],
	])('a bad id from the input (%s) is a clear error that costs no request', async (_label, rid) => {
		const result = await harness.runAction(
			{ resource: 'bookingRequest', operation: 'get', requestId: '={{ $json.rid }}' },
			{ input: [{ rid }] },
		);
		expect(result.error?.message).toMatch(/^Parameter "Request ID" must be a UUID, got /);
		expect(result.error?.message.length).toBeLessThan(120);
		expect(sandbox.log).toHaveLength(0);
	});
});

describe('simplified booking request: what a CRM sync maps, flat', () => {
	test('address block, services, completion time, flattened attribution and the intake answers as question → answer', async () => {
		const requests = sortRequests(sandbox.workspace().requests);
		const request = requests.find((r) => r.intake_responses.length > 0 && r.attribution && r.completed_at)!;
		expect(request).toBeDefined();
		const { items } = await harness.runAction({ resource: 'bookingRequest', operation: 'get', requestId: request.id });
		const item = items[0].json;
		expect(item).toMatchObject({
			id: request.id,
			address: request.address,
			address_2: request.address_2,
			city: request.city,
			state: request.state,
			zip: request.zip,
			country: request.country,
			selected_services: request.selected_services,
			preferred_times: request.preferred_times,
			completed_at: request.completed_at,
			intake_answers: request.intake_responses.filter((r) => r.answer.trim() !== '').map((r) => ({ question: r.question, answer: r.answer })),
		});
		const attribution = request.attribution as Record<string, string>;
		for (const key of ATTRIBUTION_FIELDS) expect(item[key]).toBe(attribution[key] ?? null);
		// the attribution's own "source" does not overwrite the request's channel tag
		expect(item.source).toBe(request.source);
		if (attribution.source !== undefined) expect(item.attribution_source).toBe(attribution.source);
		expect(item).not.toHaveProperty('intake_responses');
		expect(item).not.toHaveProperty('attribution');
		// the business's notes are part of what a CRM sync keeps (Request Updated watches them)
		expect(item.internal_notes).toBe(request.internal_notes ?? null);
	});
});

describe('Booking Request → Get Many', () => {
	test('Return All: every request exactly once, in API order, with the fewest calls', async () => {
		const started = Date.now();
		const result = await harness.runAction({ resource: 'bookingRequest', operation: 'getAll', returnAll: true, simplify: false });
		const seconds = (Date.now() - started) / 1000;
		const expected = sortRequests(sandbox.workspace().requests);
		expect(idsOf(result.items)).toEqual(expected.map((request) => request.id));
		expect(result.items.every((item) => item.pairedItem && (item.pairedItem as { item: number }).item === 0)).toBe(true);
		const n = expected.length;
		expect(served()).toHaveLength(Math.ceil(n / 100));
		noPacing429s();
		printFigures(
			`Return All of ${n} requests: ${sandbox.log.length} calls (ceil(N/100) = ${Math.ceil(n / 100)}), ${seconds.toFixed(2)} s (ceil(N/100) - 1 = ${Math.ceil(n / 100) - 1} s)`,
		);
	});

	test('Limit is honoured with the fewest calls', async () => {
		const result = await harness.runAction({ resource: 'bookingRequest', operation: 'getAll', limit: 5 });
		expect(result.items).toHaveLength(5);
		expect(served()).toHaveLength(1);
		expect(served()[0].query.per_page).toBe('5');
		noPacing429s();
	});

	test('form and business profile filters combine with AND', async () => {
		const all = sortRequests(sandbox.workspace().requests);
		const { form_id: formId, business_profile_id: profileId } = all[0];
		const result = await harness.runAction({
			resource: 'bookingRequest',
			operation: 'getAll',
			returnAll: true,
			filters: { formId: rl(formId), businessProfileId: rl(profileId) },
		});
		const expected = all.filter((request) => request.form_id === formId && request.business_profile_id === profileId);
		expect(idsOf(result.items)).toEqual(expected.map((request) => request.id));
		expect(sandbox.log[0].query).toMatchObject({ form_id: formId, business_profile_id: profileId });
	});

	test('Created After stops paging at the first older request: 30 new requests cost one call', async () => {
		const all = sortRequests(sandbox.workspace().requests);
		const after = all[30].created_at;
		const result = await harness.runAction({
			resource: 'bookingRequest',
			operation: 'getAll',
			returnAll: true,
			filters: { createdAfter: after },
		});
		expect(idsOf(result.items)).toEqual(
			all.filter((request) => Date.parse(request.created_at) > Date.parse(after)).map((request) => request.id),
		);
		expect(served()).toHaveLength(1);
		noPacing429s();
	});

	test('a bad form id in the filter names the parameter and costs no request', async () => {
		const result = await harness.runAction({
			resource: 'bookingRequest',
			operation: 'getAll',
			filters: { formId: rl('not-a-uuid') },
		});
		expect(result.error?.message).toBe('Parameter "Form" must be a UUID, got "not-a-uuid"');
		expect(sandbox.log).toHaveLength(0);
	});

	test('a bad date is a clear error', async () => {
		const result = await harness.runAction({ resource: 'bookingRequest', operation: 'getAll', filters: { createdAfter: 'yesterday-ish' } });
		expect(result.error?.message).toBe('Parameter "Created After" is not a valid date');
	});
});

describe('Booking Session → Get Many', () => {
	test('Status filter: abandoned are the sessions without request_id, completed the others', async () => {
		const sessions = sortSessions(sandbox.workspace().sessions);
		const abandoned = await harness.runAction({
			resource: 'bookingSession',
			operation: 'getAll',
			returnAll: true,
			filters: { status: 'abandoned' },
		});
		expect(idsOf(abandoned.items)).toEqual(sessions.filter((s) => s.request_id === null).map((s) => s.id));
		expect(jsonOf(abandoned.items).every((session) => session.status === 'abandoned')).toBe(true);

		const completed = await harness.runAction({
			resource: 'bookingSession',
			operation: 'getAll',
			limit: 3,
			filters: { status: 'completed' },
		});
		expect(idsOf(completed.items)).toEqual(sessions.filter((s) => s.request_id !== null).slice(0, 3).map((s) => s.id));
	});

	test('simplified sessions carry the contact, progress and attribution of the saved draft, flat', async () => {
		const session = sortSessions(sandbox.workspace().sessions).find(
			(s) => s.request_id === null && s.data?.contact?.email && s.data.scheduledDate && s.attribution?.utm_source,
		)!;
		expect(session).toBeDefined();
		const result = await harness.runAction({ resource: 'bookingSession', operation: 'getAll', returnAll: true });
		const found = jsonOf(result.items).find((item) => item.id === session.id)!;
		expect(found).toMatchObject({
			email: session.data.contact!.email,
			first_name: session.data.contact!.firstname ?? null,
			status: 'abandoned',
			request_id: null,
			zip: session.data.zip ?? null,
			address: session.data.address ?? null,
			scheduled_date: session.data.scheduledDate,
			service_ids: session.data.serviceIds ?? [],
			utm_source: session.attribution!.utm_source,
			page_url: session.attribution!.page_url ?? null,
		});
		expect(found).not.toHaveProperty('data');
	});

	test('Include Booking Request attaches the request of each completed session (one call each)', async () => {
		const completed = sortSessions(sandbox.workspace().sessions).filter((s) => s.request_id !== null).slice(0, 2);
		const result = await harness.runAction({
			resource: 'bookingSession',
			operation: 'getAll',
			limit: 2,
			filters: { status: 'completed' },
			options: { includeRequest: true },
			simplify: false,
		});
		expect(jsonOf(result.items).map((session) => (session.request as IDataObject).id)).toEqual(completed.map((s) => s.request_id));
		noPacing429s();
		expect(served().map((entry) => entry.path)).toEqual([
			'/api/v1/abandoned-sessions',
			`/api/v1/requests/${completed[0].request_id}`,
			`/api/v1/requests/${completed[1].request_id}`,
		]);
	});

	test('Return All while customers are active: every session that existed at the start exactly once', async () => {
		const before = sandbox.workspace().sessions.map((s) => s.id);
		sandbox.setFaults({ churnSessionsPerPage: 4 });
		const result = await harness.runAction({ resource: 'bookingSession', operation: 'getAll', returnAll: true });
		const got = idsOf(result.items);
		expect(new Set(got).size).toBe(got.length);
		expect(got.filter((id) => before.includes(id)).sort()).toEqual([...before].sort());
	});

	test('Updated After stops at the first older session', async () => {
		const sessions = sortSessions(sandbox.workspace().sessions);
		const after = sessions[10].updated_at as string;
		const result = await harness.runAction({
			resource: 'bookingSession',
			operation: 'getAll',
			returnAll: true,
			filters: { updatedAfter: after },
		});
		expect(idsOf(result.items)).toEqual(
			sessions.filter((s) => s.updated_at && Date.parse(s.updated_at) > Date.parse(after)).map((s) => s.id),
		);
		expect(served()).toHaveLength(1);
		noPacing429s();
	});
});

describe('Booking Form and Business Profile → Get Many', () => {
	test('forms: default first, simplified', async () => {
		const result = await harness.runAction({ resource: 'bookingForm', operation: 'getAll', returnAll: true });
		expect(idsOf(result.items)).toEqual(sortDefaultFirst(sandbox.workspace().forms).map((form) => form.id));
		expect(Object.keys(result.items[0].json).sort()).toEqual(['created_at', 'id', 'is_default', 'locations', 'name', 'updated_at']);
	});

	test('profiles filtered by form', async () => {
		const profiles = sortDefaultFirst(sandbox.workspace().profiles);
		const formId = profiles[0].form_id;
		const result = await harness.runAction({
			resource: 'businessProfile',
			operation: 'getAll',
			returnAll: true,
			filters: { formId: rl(formId) },
			simplify: false,
		});
		expect(idsOf(result.items)).toEqual(profiles.filter((p) => p.form_id === formId).map((p) => p.id));
	});
});

describe('resource locator lists', () => {
	test('forms and business profiles load through the API and filter by the search text', async () => {
		const forms = await harness.listSearch('searchForms');
		expect(forms.results.map((r) => r.value)).toEqual(sortDefaultFirst(sandbox.workspace().forms).map((form) => form.id));
		expect(forms.results[0].name).toMatch(/\(default\)$/);
		const profile = sandbox.workspace().profiles[0];
		const filtered = await harness.listSearch('searchBusinessProfiles', profile.title.slice(0, 6));
		expect(filtered.results.map((r) => r.value)).toContain(profile.id);
		expect(filtered.results.length).toBeLessThanOrEqual(sandbox.workspace().profiles.length);
	});
});
