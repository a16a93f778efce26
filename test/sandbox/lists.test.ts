// List endpoints of the sandbox against the contract over real HTTP: fields of every resource,
// pagination clamps and totals, order (with ties), filters, and the shape of the seeded data.

import { OPEN_DRAFT_KEYS } from '../../sandbox/openValues';
import { startSandbox, type BookingRequest, type Sandbox, type Session } from '../../sandbox/index';
import {
	FORM_FIELDS,
	PROFILE_FIELDS,
	REQUEST_FIELDS,
	SESSION_FIELDS,
	api,
	fieldProblems,
	pageAll,
	requestNestedProblems,
} from './helpers';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false });
});
afterAll(() => sb.close());

// Independent statements of the contract's order rules (not the sandbox's own sort functions). The
// order among rows with one timestamp, and where rows without one go, are choices (choices.test.ts):
// here, the rows are checked to be newest first, those without a time where the defaults put them (first).
const desc = (a: string | null, b: string | null): number => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? 1 : -1);
/** Whether `rows` are newest first by `time`, rows without one first (the default), rows of one time in any order. */
const newestFirst = <T>(rows: T[], time: (row: T) => string | null): boolean => rows.every((row, i) => i === 0 || desc(time(rows[i - 1]), time(row)) <= 0);

describe('fields of every resource, exactly as the contract tables', () => {
	it('requests: every item has exactly the table\'s fields, in order, with the right types', async () => {
		const { items } = await pageAll<Record<string, unknown>>(sb, '/api/v1/requests', 100);
		expect(items).toHaveLength(260);
		const problems = items.flatMap((r) => [...fieldProblems(r, REQUEST_FIELDS), ...requestNestedProblems(r)].map((p) => `${r.id}: ${p}`));
		expect(problems).toEqual([]);
	});

	it('requests: nullable fields are null on some and set on others; nested arrays vary', async () => {
		const rs = sb.workspace().requests;
		for (const f of ['company', 'address_2', 'source', 'attribution', 'entrance_info', 'internal_notes', 'updated_at', 'completed_at'] as const) {
			expect([f, rs.some((r) => r[f] === null)]).toEqual([f, true]);
			expect([f, rs.some((r) => r[f] !== null)]).toEqual([f, true]);
		}
		expect(rs.some((r) => r.intake_responses.length === 0)).toBe(true);
		expect(rs.some((r) => r.intake_responses.length > 0)).toBe(true);
		expect(rs.some((r) => r.preferred_times.length > 1)).toBe(true);
		expect(rs.some((r) => r.selected_services.length > 1)).toBe(true);
		const attrKeyCounts = new Set(rs.filter((r) => r.attribution).map((r) => Object.keys(r.attribution as object).length));
		expect(attrKeyCounts.size).toBeGreaterThan(2); // objects carrying only some of the keys
		expect(new Set(rs.map((r) => r.status)).has('complete')).toBe(true);
		expect(new Set(rs.map((r) => r.lead_status)).has('new')).toBe(true);
		// Seeded timestamps in the fixed past range.
		for (const r of rs) {
			expect(r.created_at >= '2026-01-01T00:00:00.000Z' && r.created_at <= '2026-10-31T23:59:59.999Z').toBe(true);
			if (r.updated_at) expect(r.updated_at >= r.created_at).toBe(true);
		}
	});

	it('sessions: exact fields; a mix of abandoned, completed and placeholder sessions; null timestamps', async () => {
		const { items } = await pageAll<Session>(sb, '/api/v1/abandoned-sessions', 100);
		expect(items).toHaveLength(320);
		expect(items.flatMap((s) => fieldProblems(s as unknown as Record<string, unknown>, SESSION_FIELDS))).toEqual([]);
		const requests = new Map(sb.workspace().requests.map((r) => [r.id, r]));
		const abandoned = items.filter((s) => s.request_id === null);
		const placeholders = items.filter((s) => s.request_id !== null && s.step === 'confirm' && Object.keys(s.data).length === 0);
		const completed = items.filter((s) => s.request_id !== null && Object.keys(s.data).length > 0);
		expect(abandoned.length).toBeGreaterThan(100);
		expect(placeholders.length).toBeGreaterThan(10);
		expect(completed.length).toBeGreaterThan(50);
		// Most abandoned sessions hold contact details with an email.
		expect(abandoned.filter((s) => s.data.contact?.email).length / abandoned.length).toBeGreaterThan(0.7);
		expect(abandoned.some((s) => s.data.contact && !s.data.contact.email)).toBe(true);
		// request_id points at a real request of the same workspace, on the same form; one session per request.
		for (const s of [...completed, ...placeholders]) {
			const r = requests.get(s.request_id as string);
			expect(r).toBeDefined();
			expect((r as BookingRequest).form_id).toBe(s.form_id);
		}
		expect(new Set([...completed, ...placeholders].map((s) => s.request_id)).size).toBe(completed.length + placeholders.length);
		// Nulls.
		expect(items.some((s) => s.attribution === null)).toBe(true);
		expect(items.some((s) => s.source === null)).toBe(true);
		expect(items.some((s) => s.created_at === null && s.updated_at !== null)).toBe(true);
		expect(items.some((s) => s.updated_at === null && s.created_at !== null)).toBe(true);
		expect(items.some((s) => s.updated_at === null && s.created_at === null)).toBe(true);
		// Data keys: the ones the contract has seen, and on some drafts keys it has not (values: open, the
		// default: "its shape follows the widget and may change").
		const keys = new Set(items.flatMap((s) => Object.keys(s.data)));
		expect(sb.choices().values).toBe('open');
		expect([...keys].sort()).toEqual(['address', 'contact', 'scheduledDate', 'serviceIds', 'zip', ...Object.keys(OPEN_DRAFT_KEYS)].sort());
	});

	it('sessions: a few completed ones resolve through Get request', async () => {
		const withReq = sb.workspace().sessions.filter((s) => s.request_id !== null).slice(0, 3);
		for (const s of withReq) {
			const r = await api(sb, `/api/v1/requests/${s.request_id}`);
			expect(r.status).toBe(200);
			expect(r.data.id).toBe(s.request_id);
		}
	});

	it('forms and profiles: exact fields; nulls where the contract allows them', async () => {
		const forms = (await api(sb, '/api/v1/forms')).data.items as Array<Record<string, unknown>>;
		const profiles = (await api(sb, '/api/v1/profiles')).data.items as Array<Record<string, unknown>>;
		expect(forms.flatMap((f) => fieldProblems(f, FORM_FIELDS))).toEqual([]);
		expect(profiles.flatMap((p) => fieldProblems(p, PROFILE_FIELDS))).toEqual([]);
		expect(forms.filter((f) => f.is_default)).toHaveLength(1);
		expect(forms.some((f) => f.settings_branding === null && f.service_template_id === null && f.locations === null)).toBe(true);
		expect(forms.some((f) => f.created_at === null)).toBe(true);
		expect(profiles.filter((p) => p.is_default)).toHaveLength(1);
		expect(new Set(profiles.map((p) => p.reserve_with_partner)).size).toBe(2);
		// locations: comma-separated titles of the profiles assigned to the form.
		for (const f of forms) {
			const titles = profiles.filter((p) => p.form_id === f.id).map((p) => p.title);
			if (titles.length === 0) expect(f.locations).toBeNull();
			else expect(String(f.locations).split(', ').sort()).toEqual(titles.sort());
		}
	});
});

describe('pagination', () => {
	it('defaults and clamps of page and per_page (requests)', async () => {
		const pg = async (params: Record<string, string | number>) => (await api(sb, '/api/v1/requests', { params })).data;
		const def = await pg({});
		expect(def.pagination).toEqual({ page: 1, per_page: 25, total: 260 });
		expect(def.items).toHaveLength(25);
		for (const per_page of ['0', 'abc', '', '-5', '1.5']) expect([per_page, (await pg({ per_page })).pagination.per_page]).toEqual([per_page, 25]);
		const big = await pg({ per_page: 1000 });
		expect(big.pagination.per_page).toBe(100);
		expect(big.items).toHaveLength(100);
		for (const page of ['0', '-3', 'abc', '']) {
			const r = await pg({ page, per_page: 10 });
			expect([page, r.pagination.page]).toEqual([page, 1]);
			expect(r.items[0].id).toBe(def.items[0].id);
		}
		const p2 = await pg({ page: 2, per_page: 10 });
		expect(p2.items[0].id).toBe(def.items[10].id);
		const beyond = await pg({ page: 99, per_page: 10 });
		expect(beyond.items).toEqual([]);
		expect(beyond.pagination).toEqual({ page: 99, per_page: 10, total: 260 });
		const last = await pg({ page: 27, per_page: 10 });
		expect(last.items).toHaveLength(0);
		expect((await pg({ page: 26, per_page: 10 })).items).toHaveLength(10);
	});

	it('per_page clamp: 100 for sessions and forms, 50 for profiles (sandbox choice); a non-numeric one on profiles refused (choice)', async () => {
		expect((await api(sb, '/api/v1/abandoned-sessions', { params: { per_page: 500 } })).data.items).toHaveLength(100);
		expect((await api(sb, '/api/v1/forms', { params: { per_page: 500 } })).data.pagination.per_page).toBe(100);
		expect((await api(sb, '/api/v1/profiles', { params: { per_page: 500 } })).data.pagination.per_page).toBe(50);
		const bad = await api(sb, '/api/v1/profiles', { params: { per_page: 'x' } });
		expect([bad.status, bad.data.error]).toEqual([400, 'invalid_request']);
		const many = await startSandbox({ rateLimit: false, sizes: { profiles: 70 } });
		try {
			const r = await api(many, '/api/v1/profiles', { key: many.keys.demo, params: { per_page: 100 } });
			expect(r.data.pagination).toEqual({ page: 1, per_page: 50, total: 70 });
			expect(r.data.items).toHaveLength(50);
			const all = await pageAll<{ id: string }>(many, '/api/v1/profiles', 100, {}, many.keys.demo);
			expect(new Set(all.items.map((p) => p.id)).size).toBe(70);
		} finally {
			await many.close();
		}
	});

	it('paging through every list yields each record exactly once, with a constant total', async () => {
		const ws = sb.workspace();
		const cases: Array<[string, number, string[]]> = [
			['/api/v1/requests', 7, ws.requests.map((r) => r.id)],
			['/api/v1/abandoned-sessions', 33, ws.sessions.map((s) => s.id)],
			['/api/v1/forms', 1, ws.forms.map((f) => f.id)],
			['/api/v1/profiles', 4, ws.profiles.map((p) => p.id)],
		];
		for (const [path, perPage, ids] of cases) {
			const { items, totals } = await pageAll<{ id: string }>(sb, path, perPage);
			const got = items.map((x) => x.id);
			expect([path, got.length, new Set(got).size]).toEqual([path, ids.length, ids.length]);
			expect(new Set(got)).toEqual(new Set(ids));
			expect(new Set(totals)).toEqual(new Set([ids.length]));
		}
	});
});

describe('order', () => {
	it('requests: newest first by created_at (ties exist)', async () => {
		const { items } = await pageAll<BookingRequest>(sb, '/api/v1/requests', 100);
		expect(new Set(items.map((r) => r.id))).toEqual(new Set(sb.workspace().requests.map((r) => r.id)));
		expect(newestFirst(items, (r) => r.created_at)).toBe(true);
		const ties = items.filter((r, i) => i > 0 && items[i - 1].created_at === r.created_at);
		expect(ties.length).toBeGreaterThan(5);
	});

	it('sessions: by updated_at descending, those without updated_at first (ties exist)', async () => {
		const { items } = await pageAll<Session>(sb, '/api/v1/abandoned-sessions', 100);
		expect(new Set(items.map((s) => s.id))).toEqual(new Set(sb.workspace().sessions.map((s) => s.id)));
		expect(newestFirst(items, (s) => s.updated_at)).toBe(true);
		const undated = items.filter((s) => s.updated_at === null).length;
		expect(undated).toBeGreaterThan(0);
		expect(items.slice(0, undated).every((s) => s.updated_at === null)).toBe(true);
		expect(items.some((s, i) => i > 0 && s.updated_at !== null && items[i - 1].updated_at === s.updated_at)).toBe(true);
	});

	it('forms and profiles: the default first, then newest first; deleted profiles never returned', async () => {
		const forms = (await api(sb, '/api/v1/forms')).data.items as Array<{ id: string; is_default: boolean; created_at: string | null }>;
		expect(forms[0].is_default).toBe(true);
		const rest = forms.slice(1);
		expect(newestFirst(rest, (f) => f.created_at)).toBe(true);
		expect(rest[0].created_at).toBeNull(); // the legacy form without created_at, listed first after the default
		// The default form is the oldest one: "default first" really overrides "newest first".
		const created = forms.filter((f) => f.created_at).map((f) => f.created_at as string).sort();
		expect(forms[0].created_at).toBe(created[0]);

		const profiles = (await api(sb, '/api/v1/profiles')).data.items as Array<{ id: string; is_default: boolean; created_at: string }>;
		expect(profiles[0].is_default).toBe(true);
		const prest = profiles.slice(1);
		expect(newestFirst(prest, (p) => p.created_at)).toBe(true);
		const deleted = sb.workspace().deletedProfiles;
		expect(deleted.length).toBeGreaterThan(0);
		expect(profiles.some((p) => deleted.some((d) => d.id === p.id))).toBe(false);
		const byForm = await api(sb, '/api/v1/profiles', { params: { form_id: deleted[0].form_id } });
		expect(byForm.data.items.some((p: { id: string }) => p.id === deleted[0].id)).toBe(false);
	});
});

describe('filters', () => {
	it('requests: form_id and business_profile_id filter, and combine with AND', async () => {
		const ws = sb.workspace();
		const def = ws.profiles.find((p) => p.is_default) as { id: string; form_id: string };
		// A form other than the default profile's form that still has requests routed to the default profile.
		const form = ws.forms.find((f) => f.id !== def.form_id && ws.requests.some((r) => r.form_id === f.id && r.business_profile_id === def.id)) as { id: string };
		expect(form).toBeDefined();
		const byForm = await pageAll<BookingRequest>(sb, '/api/v1/requests', 100, { form_id: form.id });
		const byProfile = await pageAll<BookingRequest>(sb, '/api/v1/requests', 100, { business_profile_id: def.id });
		const both = await pageAll<BookingRequest>(sb, '/api/v1/requests', 100, { form_id: form.id, business_profile_id: def.id });
		expect(byForm.items.every((r) => r.form_id === form.id)).toBe(true);
		expect(byForm.items.length).toBe(ws.requests.filter((r) => r.form_id === form.id).length);
		expect(byProfile.items.every((r) => r.business_profile_id === def.id)).toBe(true);
		expect(byProfile.items.length).toBe(ws.requests.filter((r) => r.business_profile_id === def.id).length);
		const expected = byForm.items.filter((r) => r.business_profile_id === def.id).map((r) => r.id);
		expect(both.items.map((r) => r.id)).toEqual(expected);
		expect(both.totals[0]).toBe(expected.length);
		expect(expected.length).toBeGreaterThan(0);
		expect(expected.length).toBeLessThan(Math.min(byForm.items.length, byProfile.items.length));
	});

	it('a valid but unknown id filters to an empty list, not an error', async () => {
		const r = await api(sb, '/api/v1/requests', { params: { form_id: '00000000-0000-4000-8000-000000000000' } });
		expect(r.status).toBe(200);
		expect(r.data).toEqual({ items: [], pagination: { page: 1, per_page: 25, total: 0 } });
	});

	it('sessions and profiles: form_id filter', async () => {
		const ws = sb.workspace();
		const form = ws.forms[0];
		const sessions = await pageAll<Session>(sb, '/api/v1/abandoned-sessions', 100, { form_id: form.id });
		expect(sessions.items.length).toBe(ws.sessions.filter((s) => s.form_id === form.id).length);
		expect(sessions.items.length).toBeGreaterThan(0);
		expect(sessions.items.every((s) => s.form_id === form.id)).toBe(true);
		const profiles = (await api(sb, '/api/v1/profiles', { params: { form_id: form.id } })).data;
		expect(profiles.pagination.total).toBe(ws.profiles.filter((p) => p.form_id === form.id).length);
		expect(profiles.items.every((p: { form_id: string }) => p.form_id === form.id)).toBe(true);
		// Filters that the endpoint does not know are ignored (form_id on forms).
		const forms = (await api(sb, '/api/v1/forms', { params: { form_id: form.id } })).data;
		expect(forms.pagination.total).toBe(ws.forms.length);
	});
});
