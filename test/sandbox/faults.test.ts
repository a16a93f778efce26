// Fault injection of the sandbox over real HTTP: injected 429/500, dropped connections, latency,
// malformed list answers, and session churn while a client pages.

import axios from 'axios';
import { startSandbox, type Sandbox, type Session } from '../../sandbox/index';
import { Faults } from '../../sandbox/faults';
import { api, apiRaw, control, sleep } from './helpers';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false });
});
afterAll(() => sb.close());
beforeEach(() => {
	sb.setFaults({});
	sb.clearLog();
});

async function statuses(n: number, path = '/api/v1/forms'): Promise<number[]> {
	const out: number[] = [];
	for (let i = 0; i < n; i++) out.push((await api(sb, path)).status);
	return out;
}

describe('request faults', () => {
	it('every429: every Nth request answered 429 rate_limited with the contract headers', async () => {
		sb.setFaults({ every429: 3 });
		const before = sb.stats();
		const rs = [];
		for (let i = 0; i < 7; i++) rs.push(await api(sb, '/api/v1/forms'));
		expect(rs.map((r) => r.status)).toEqual([200, 200, 429, 200, 200, 429, 200]);
		const r = rs[2];
		expect(r.data.error).toBe('rate_limited');
		expect(r.headers['retry-after']).toBe('1');
		expect(r.headers['x-ratelimit-limit']).toBe('1');
		expect(r.headers['x-ratelimit-remaining']).toBe('0');
		expect(sb.log.map((e) => e.fault ?? null)).toEqual([null, null, 'every429', null, null, 'every429', null]);
		const after = sb.stats();
		expect(after.rateLimited - before.rateLimited).toBe(0); // injected, not real rate limiting
		expect(after.errors - before.errors).toBe(2);
		expect(after.accepted - before.accepted).toBe(7);
	});

	it('every500: every Nth request answered 500 internal_server_error', async () => {
		sb.setFaults({ every500: 2 });
		const rs = [];
		for (let i = 0; i < 4; i++) rs.push(await api(sb, '/api/v1/requests'));
		expect(rs.map((r) => r.status)).toEqual([200, 500, 200, 500]);
		expect(rs[1].data).toEqual({ error: 'internal_server_error', message: expect.any(String) });
		expect(sb.log[1].fault).toBe('every500');
	});

	it('dropEvery: every Nth request gets its connection destroyed without an answer', async () => {
		sb.setFaults({ dropEvery: 2 });
		const outcomes: string[] = [];
		for (let i = 0; i < 4; i++) {
			try {
				const r = await axios.get(`${sb.url}/api/v1/forms`, { headers: { Authorization: `Bearer ${sb.keys.demo}` }, timeout: 5000 });
				outcomes.push(String(r.status));
			} catch (e) {
				const err = e as { code?: string; response?: unknown };
				expect(err.response).toBeUndefined();
				outcomes.push(err.code === 'ECONNRESET' || err.code === 'ECONNABORTED' || err.code === 'ERR_SOCKET_HANG_UP' ? 'dropped' : `error:${err.code}`);
			}
		}
		expect(outcomes).toEqual(['200', 'dropped', '200', 'dropped']);
		expect(sb.log.map((e) => [e.status, e.fault ?? null])).toEqual([
			[200, null],
			[0, 'drop'],
			[200, null],
			[0, 'drop'],
		]);
	});

	it('always: every request answers 429 or 500; auth still comes first; setFaults({}) clears', async () => {
		sb.setFaults({ always: 500 });
		expect(await statuses(3)).toEqual([500, 500, 500]);
		expect((await api(sb, '/api/v1/forms', { key: null })).status).toBe(401);
		sb.setFaults({ always: 429 });
		const r = await api(sb, '/api/v1/requests');
		expect(r.status).toBe(429);
		expect(r.headers['retry-after']).toBe('1');
		expect(sb.log[sb.log.length - 1].fault).toBe('always429');
		sb.setFaults({});
		expect(await statuses(2)).toEqual([200, 200]);
	});

	it('latencyMs delays answers within the range', async () => {
		sb.setFaults({ latencyMs: [150, 200] });
		const t0 = Date.now();
		const r = await api(sb, '/api/v1/forms');
		const took = Date.now() - t0;
		expect(r.status).toBe(200);
		expect(took).toBeGreaterThanOrEqual(145);
		sb.setFaults({});
		expect((await api(sb, '/api/v1/forms')).status).toBe(200);
		// the delays drawn (a busy machine adds to a round trip, so the upper end is checked on the draws)
		const faults = new Faults(42);
		faults.set({ latencyMs: [150, 200] });
		const draws = Array.from({ length: 50 }, () => faults.latency());
		expect(Math.min(...draws)).toBeGreaterThanOrEqual(150);
		expect(Math.max(...draws)).toBeLessThanOrEqual(200);
		faults.set({});
		expect(faults.latency()).toBe(0);
	});

	it('invalid fault options are refused', () => {
		expect(() => sb.setFaults({ every429: 0 })).toThrow();
		expect(() => sb.setFaults({ latencyMs: [50, 10] })).toThrow();
		expect(() => sb.setFaults({ malformed: 'nonsense' as never })).toThrow();
		expect(() => sb.setFaults({ always: 404 as never })).toThrow();
	});
});

describe('malformed list answers', () => {
	const get = (path = '/api/v1/requests', params: Record<string, string | number> = { per_page: 5 }) => apiRaw(sb, path, params);

	it('html: an HTML proxy page, first with 200 then with 502', async () => {
		sb.setFaults({ malformed: 'html' });
		const a = await get();
		const b = await get();
		expect([a.status, b.status]).toEqual([200, 502]);
		for (const r of [a, b]) {
			expect(r.headers['content-type']).toMatch(/^text\/html/);
			expect(r.data).toMatch(/^<!DOCTYPE html>/);
			expect(() => JSON.parse(r.data)).toThrow();
		}
		expect(sb.log[0].fault).toBe('malformed:html');
	});

	it('truncated: a JSON body cut short that does not parse', async () => {
		sb.setFaults({ malformed: 'truncated' });
		const r = await get();
		expect(r.status).toBe(200);
		expect(r.headers['content-type']).toMatch(/^application\/json/);
		expect(r.data.startsWith('{"items":[')).toBe(true);
		expect(() => JSON.parse(r.data)).toThrow();
	});

	it('noItems, missingTotal, wrongTotal, errorBody200', async () => {
		sb.setFaults({ malformed: 'noItems' });
		const noItems = JSON.parse((await get()).data);
		expect(noItems.items).toBeUndefined();
		expect(noItems.pagination.total).toBe(260);

		sb.setFaults({ malformed: 'missingTotal' });
		const missing = JSON.parse((await get()).data);
		expect(missing.items).toHaveLength(5);
		expect(missing.pagination).toEqual({ page: 1, per_page: 5 });

		sb.setFaults({ malformed: 'wrongTotal' });
		const wrong = JSON.parse((await get('/api/v1/forms', {})).data);
		expect(wrong.items).toHaveLength(4);
		expect(wrong.pagination.total).toBe(1004);
		const beyond = JSON.parse((await get('/api/v1/forms', { page: 2 })).data);
		expect(beyond.items).toEqual([]); // an empty page is the only reliable stop

		sb.setFaults({ malformed: 'errorBody200' });
		const err = await get();
		expect(err.status).toBe(200);
		expect(JSON.parse(err.data)).toEqual({ error: 'internal_server_error', message: expect.any(String) });
	});

	it('oversizedPage, duplicateIds, wrongTypes', async () => {
		sb.setFaults({ malformed: 'oversizedPage' });
		const over = JSON.parse((await get()).data);
		expect(over.pagination.per_page).toBe(5);
		expect(over.items.length).toBeGreaterThan(5);
		const overForms = JSON.parse((await get('/api/v1/forms', { per_page: 25 })).data);
		expect(overForms.items.length).toBeGreaterThan(25);

		sb.setFaults({ malformed: 'duplicateIds' });
		const dup = JSON.parse((await get()).data);
		const ids = dup.items.map((x: { id: string }) => x.id);
		expect(ids).toHaveLength(5);
		expect(new Set(ids).size).toBeLessThan(5);

		sb.setFaults({ malformed: 'wrongTypes' });
		const typed = JSON.parse((await get()).data);
		expect(typeof typed.pagination.total).toBe('string');
		expect(typeof typed.pagination.page).toBe('string');
		expect(typeof typed.items[0].created_at).toBe('number');
	});

	it('applies to every list endpoint but not to Get request or errors; malformedEvery spaces them', async () => {
		sb.setFaults({ malformed: 'noItems' });
		for (const p of ['/api/v1/abandoned-sessions', '/api/v1/forms', '/api/v1/profiles']) {
			expect(JSON.parse((await get(p, {})).data).items).toBeUndefined();
		}
		const one = await api(sb, `/api/v1/requests/${sb.workspace().requests[0].id}`);
		expect(one.data.id).toBe(sb.workspace().requests[0].id);
		const invalid = await api(sb, '/api/v1/requests', { params: { form_id: 'bad' } });
		expect(invalid.status).toBe(sb.choices().invalidUuid); // an error answer, not a malformed list
		expect(invalid.data.items).toBeUndefined();

		sb.setFaults({ malformed: 'noItems', malformedEvery: 3 });
		const seen: boolean[] = [];
		for (let i = 0; i < 6; i++) seen.push(JSON.parse((await get()).data).items !== undefined);
		expect(seen).toEqual([true, true, false, true, true, false]);
	});
});

describe('session churn while paging', () => {
	it('churnSessionsPerPage: N sessions get a widget save before each page, moving to the top', async () => {
		const fresh = await startSandbox({ rateLimit: false });
		try {
			const before = new Map(fresh.workspace().sessions.map((s) => [s.id, s.updated_at]));
			const undated = fresh.workspace().sessions.filter((s) => s.updated_at === null).length;
			fresh.setFaults({ churnSessionsPerPage: 3 });
			const seededNewest = [...before.values()].filter((at): at is string => at !== null).sort().pop() as string;
			const r = await api(fresh, '/api/v1/abandoned-sessions', { key: fresh.keys.demo, params: { per_page: 30 } });
			const changed = fresh.workspace().sessions.filter((s) => s.updated_at !== before.get(s.id));
			expect(changed.length).toBe(3);
			// the saved sessions are the newest: on top, below the sessions without updated_at (listed first by default)
			const items = r.data.items as Session[];
			expect(fresh.choices().nulls).toBe('first');
			expect(items.slice(0, undated).every((s) => s.updated_at === null)).toBe(true);
			const top = items.slice(undated, undated + 3);
			expect(new Set(top.map((s) => s.id))).toEqual(new Set(changed.map((s) => s.id)));
			for (const s of top) {
				expect(s.updated_at as string > seededNewest).toBe(true);
				expect(s.request_id).toBeNull(); // active customers are the ones still on a draft
			}
			expect((items[undated + 3].updated_at as string) <= seededNewest).toBe(true);
		} finally {
			await fresh.close();
		}
	});

	it('a client paging while customers are active sees shifted pages (duplicates), with a constant total', async () => {
		const fresh = await startSandbox({ rateLimit: false });
		try {
			fresh.setFaults({ churnSessionsPerPage: 4 });
			const seen: string[] = [];
			const totals = new Set<number>();
			for (let page = 1; page <= 13; page++) {
				const r = await api(fresh, '/api/v1/abandoned-sessions', { key: fresh.keys.demo, params: { page, per_page: 25 } });
				totals.add(r.data.pagination.total);
				seen.push(...r.data.items.map((s: Session) => s.id));
			}
			expect([...totals]).toEqual([320]);
			expect(seen.length).toBe(320);
			expect(new Set(seen).size).toBeLessThan(320); // some sessions seen twice, so some were missed
			// The control route sets it too.
			const c = await control(fresh, 'POST', '/__sandbox/faults', { churnSessionsPerPage: 2 });
			expect(c.status).toBe(200);
			expect(c.data).toEqual({ churnSessionsPerPage: 2 });
			await sleep(1);
		} finally {
			await fresh.close();
		}
	});
});
