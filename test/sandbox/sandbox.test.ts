// The sandbox against the contract over real HTTP on loopback: authentication, rate limit,
// routing and errors, Get request, Date header, determinism of the seed.

import { KEY_PATTERN, startSandbox, type Sandbox } from '../../sandbox/index';
import { api, control } from './helpers';

describe('sandbox: start, keys and seed', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await startSandbox({ rateLimit: false });
	});
	afterAll(() => sb.close());

	it('listens on a free loopback port and exposes four distinct keys of the contract format', () => {
		expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(Number(new URL(sb.url).port)).toBeGreaterThan(0);
		const keys = Object.values(sb.keys);
		expect(keys).toHaveLength(4);
		expect(new Set(keys).size).toBe(4);
		for (const k of keys) expect(k).toMatch(KEY_PATTERN);
	});

	it('same seed gives the same data, ids and keys; another seed gives other ids', async () => {
		const a = await startSandbox({ seed: 7 });
		const b = await startSandbox({ seed: 7 });
		const c = await startSandbox({ seed: 8 });
		try {
			expect(JSON.stringify(a.workspace())).toBe(JSON.stringify(b.workspace()));
			expect(JSON.stringify(a.workspace(a.keys.other))).toBe(JSON.stringify(b.workspace(b.keys.other)));
			expect(a.keys).toEqual(b.keys);
			expect(c.keys.demo).not.toBe(a.keys.demo);
			const idsA = new Set(a.workspace().requests.map((r) => r.id));
			expect(c.workspace().requests.some((r) => idsA.has(r.id))).toBe(false);
			// Over HTTP too.
			const ra = await api(a, '/api/v1/requests', { key: a.keys.demo });
			const rb = await api(b, '/api/v1/requests', { key: b.keys.demo });
			expect(ra.data).toEqual(rb.data);
		} finally {
			await Promise.all([a.close(), b.close(), c.close()]);
		}
	});

	it('default sizes: 260 requests, 320 sessions, 4 forms, 6 profiles; custom sizes apply', async () => {
		const ws = sb.workspace();
		expect([ws.requests.length, ws.sessions.length, ws.forms.length, ws.profiles.length]).toEqual([260, 320, 4, 6]);
		const small = await startSandbox({ sizes: { requests: 10, sessions: 20, forms: 2, profiles: 3 } });
		try {
			const w = small.workspace();
			expect([w.requests.length, w.sessions.length, w.forms.length, w.profiles.length]).toEqual([10, 20, 2, 3]);
			const r = await api(small, '/api/v1/abandoned-sessions', { key: small.keys.demo });
			expect(r.data.pagination.total).toBe(20);
		} finally {
			await small.close();
		}
	});
});

describe('sandbox: authentication', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		// Real 1000 ms limit here: every request of the tests below is a 401, and 401s are never rate limited.
		sb = await startSandbox();
	});
	afterAll(() => sb.close());

	const expect401 = (r: { status: number; headers: Record<string, unknown>; data: unknown }): void => {
		expect(r.status).toBe(401);
		expect(r.headers['www-authenticate']).toBe('Bearer');
		expect(r.headers['content-type']).toMatch(/^application\/json/);
		const body = r.data as { error: string; message: string };
		expect(body.error).toBe('unauthorized');
		expect(typeof body.message).toBe('string');
		expect(Object.keys(body).sort()).toEqual(['error', 'message']);
	};

	it('missing Authorization header -> 401 unauthorized with WWW-Authenticate: Bearer', async () => {
		expect401(await api(sb, '/api/v1/requests', { key: null }));
	});

	it('other schemes and malformed keys -> 401', async () => {
		expect401(await api(sb, '/api/v1/requests', { key: null, headers: { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } }));
		expect401(await api(sb, '/api/v1/requests', { key: null, headers: { Authorization: sb.keys.demo } })); // no scheme
		expect401(await api(sb, '/api/v1/requests', { key: 'brk_1234' }));
		expect401(await api(sb, '/api/v1/requests', { key: 'xyz_' + '0'.repeat(32) })); // wrong prefix
		expect401(await api(sb, '/api/v1/requests', { key: sb.keys.demo.toUpperCase() })); // not lowercase hex
		expect401(await api(sb, '/api/v1/requests', { key: sb.keys.demo + '0' })); // 33 hex chars
	});

	it('unknown well-formed key and revoked key -> 401', async () => {
		expect401(await api(sb, '/api/v1/forms', { key: 'brk_' + 'ab'.repeat(16) }));
		expect401(await api(sb, '/api/v1/forms', { key: sb.keys.revoked }));
	});

	it('401s are not rate limited and are logged with the key hash', async () => {
		sb.clearLog();
		const before = sb.stats(sb.keys.revoked).errors;
		const rs = await Promise.all([1, 2, 3, 4, 5].map(() => api(sb, '/api/v1/forms', { key: sb.keys.revoked })));
		expect(rs.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
		expect(sb.stats(sb.keys.revoked)).toEqual({ accepted: 0, rateLimited: 0, errors: before + 5, minGapMs: null });
		expect(sb.log).toHaveLength(5);
		expect(sb.log.every((e) => e.status === 401 && e.keyHash !== null && e.keyHash.length === 12)).toBe(true);
	});

	it('a key revoked at runtime works until revoked, then gets 401 on its next request', async () => {
		const own = await startSandbox({ rateLimit: false });
		try {
			expect((await api(own, '/api/v1/forms', { key: own.keys.second })).status).toBe(200);
			own.revokeKey(own.keys.second);
			expect401(await api(own, '/api/v1/forms', { key: own.keys.second }));
			expect((await api(own, '/api/v1/forms')).status).toBe(200); // the demo key is unaffected
			expect(() => own.revokeKey('brk_' + '0'.repeat(32))).toThrow(/unknown/);
		} finally {
			await own.close();
		}
	});
});

describe('sandbox: rate limit', () => {
	// The limiter decides on arrival times. Here they come from a simulated clock (arrivalClock) that
	// each request's time is set on before it is sent, so every decision below is exact however late
	// the machine runs any line: nothing here depends on wall-clock scheduling.
	const GAP = 400;
	let sb: Sandbox;
	let now = 0;
	beforeAll(async () => {
		sb = await startSandbox({ minGapMs: GAP, arrivalClock: () => now });
	});
	afterAll(() => sb.close());
	beforeEach(() => sb.clearLog());

	/** Requests that all arrive at `ms` (sent at once, answered before the clock moves again). */
	const arriveAt = async (ms: number, keys: string[]) => {
		now = ms;
		return await Promise.all(keys.map((key) => api(sb, '/api/v1/profiles', { key })));
	};

	it('concurrent requests of one key: one accepted, the rest 429 rate_limited with the contract headers', async () => {
		const rs = await arriveAt(10_000, [sb.keys.demo, sb.keys.demo, sb.keys.demo, sb.keys.demo]);
		expect(rs.map((r) => r.status).sort()).toEqual([200, 429, 429, 429]);
		for (const r of rs.filter((x) => x.status === 429)) {
			expect(r.data.error).toBe('rate_limited');
			expect(typeof r.data.message).toBe('string');
			expect(r.headers['retry-after']).toBe('1');
			expect(r.headers['x-ratelimit-limit']).toBe('1');
			expect(r.headers['x-ratelimit-remaining']).toBe('0');
			expect(r.headers.date).toBeDefined();
		}
	});

	it('separate keys have separate budgets', async () => {
		const rs = await arriveAt(20_000, [sb.keys.demo, sb.keys.second, sb.keys.other]);
		expect(rs.map((r) => r.status)).toEqual([200, 200, 200]);
	});

	it('rejected requests do not move the window; decisions follow the arrival times exactly', async () => {
		const t0 = 30_000;
		const statuses: number[] = [];
		for (const offset of [0, 240, 460, 700, 860]) statuses.push((await arriveAt(t0 + offset, [sb.keys.demo]))[0].status);
		// t0 accepted; +240 rejected; +460 accepted: the window runs from t0, not from the 429 at +240
		// (460 - 240 < 400); +700 rejected (the window now runs from +460); +860 accepted.
		expect(statuses).toEqual([200, 429, 200, 429, 200]);
		expect(sb.log.map((e) => e.at - t0)).toEqual([0, 240, 460, 700, 860]);
		expect(sb.log.map((e) => e.status)).toEqual(statuses);
	});

	it("a 429 carries its gap from the key's last accepted arrival, also when that arrival was cleared from the log", async () => {
		const t0 = 35_000;
		await arriveAt(t0, [sb.keys.demo]);
		sb.clearLog();
		const [rejected] = await arriveAt(t0 + 330, [sb.keys.demo]);
		expect(rejected.status).toBe(429);
		expect(sb.log.map((e) => [e.status, e.sinceAcceptedMs])).toEqual([[429, 330]]);
		await arriveAt(t0 + GAP, [sb.keys.demo]);
		expect(sb.log[1].sinceAcceptedMs).toBeUndefined(); // accepted: no gap recorded
	});

	it('the window is the gap exactly: one millisecond short is rejected, the gap itself accepted', async () => {
		const t0 = 40_000;
		const statuses: number[] = [];
		for (const offset of [0, GAP - 1, GAP]) statuses.push((await arriveAt(t0 + offset, [sb.keys.demo]))[0].status);
		expect(statuses).toEqual([200, 429, 200]);
	});

	it('the default limit is 1 request per 1000 ms, and stats show the accepted gaps', async () => {
		let at = 0;
		const real = await startSandbox({ arrivalClock: () => at });
		try {
			const send = async (ms: number) => {
				at = ms;
				return await api(real, '/api/v1/forms');
			};
			const statuses = [(await send(5_000)).status];
			const tooSoon = await send(5_999);
			statuses.push(tooSoon.status, (await send(6_000)).status, (await send(7_250)).status);
			expect(statuses).toEqual([200, 429, 200, 200]);
			expect(tooSoon.headers['retry-after']).toBe('1');
			expect(real.stats()).toEqual({ accepted: 3, rateLimited: 1, errors: 0, minGapMs: 1000 });
		} finally {
			await real.close();
		}
	});

	it('rateLimit: false accepts everything and stats still measure the minimum gap', async () => {
		let at = 0;
		const free = await startSandbox({ rateLimit: false, arrivalClock: () => at });
		try {
			const rs = [];
			for (const ms of [100, 100, 130, 900, 905]) {
				at = ms;
				rs.push(await api(free, '/api/v1/forms'));
			}
			expect(rs.every((r) => r.status === 200)).toBe(true);
			expect(free.stats()).toEqual({ accepted: 5, rateLimited: 0, errors: 0, minGapMs: 0 });
		} finally {
			await free.close();
		}
	});

	it('on the real clock, each decision is the rule applied to the arrival times the sandbox recorded', async () => {
		const live = await startSandbox({ minGapMs: GAP });
		try {
			const statuses: number[] = [];
			for (let i = 0; i < 3; i++) statuses.push(...(await Promise.all([0, 1].map(() => api(live, '/api/v1/forms')))).map((r) => r.status));
			let last: number | null = null;
			const expected = live.log.map((entry) => {
				const ok = last === null || entry.at - last >= GAP;
				if (ok) last = entry.at;
				return ok ? 200 : 429;
			});
			expect(live.log.map((entry) => entry.status)).toEqual(expected);
			expect([...statuses].sort()).toEqual([...expected].sort());
		} finally {
			await live.close();
		}
	});
});

describe('sandbox: routing, errors and Get request', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await startSandbox({ rateLimit: false });
	});
	afterAll(() => sb.close());

	it('unknown paths -> 404 not_found JSON', async () => {
		for (const p of ['/api/v1/nope', '/api/v2/requests', '/', '/api/v1/requests/' + sb.workspace().requests[0].id + '/extra']) {
			const r = await api(sb, p);
			expect(r.status).toBe(404);
			expect(r.headers['content-type']).toMatch(/^application\/json/);
			expect(r.data.error).toBe('not_found');
			expect(typeof r.data.message).toBe('string');
		}
	});

	it('non-GET methods -> 405 JSON with Allow: GET', async () => {
		const axios = (await import('axios')).default;
		for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
			const r = await axios.request({ method, url: `${sb.url}/api/v1/requests`, headers: { Authorization: `Bearer ${sb.keys.demo}` }, data: {}, validateStatus: () => true });
			expect(r.status).toBe(405);
			expect(r.headers.allow).toBe('GET');
			expect(r.data.error).toBe('method_not_allowed');
		}
	});

	it('invalid UUIDs in the path or in filters: 404 not_found by default, 400 or 422 as chosen (the contract does not show it)', async () => {
		const cases: Array<[string, Record<string, string>]> = [
			['/api/v1/requests/not-a-uuid', {}],
			['/api/v1/requests/12345678-1234-1234-1234-12345678901', {}],
			['/api/v1/requests', { form_id: 'abc' }],
			['/api/v1/requests', { business_profile_id: '1' }],
			['/api/v1/requests', { form_id: '' }],
			['/api/v1/abandoned-sessions', { form_id: 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz' }],
			['/api/v1/profiles', { form_id: 'nope' }],
		];
		const answers: Array<[400 | 404 | 422, string]> = [
			[404, 'not_found'],
			[400, 'invalid_request'],
			[422, 'validation_error'],
		];
		expect(sb.choices().invalidUuid).toBe(404);
		try {
			for (const [status, error] of answers) {
				sb.setChoices({ invalidUuid: status });
				for (const [path, params] of cases) {
					const r = await api(sb, path, { params });
					expect([path, r.status, r.data.error]).toEqual([path, status, error]);
				}
			}
		} finally {
			sb.setChoices({ invalidUuid: 404 });
		}
	});

	it('business_profile_id on abandoned sessions ("not supported"): ignored by default, or rejected with 400', async () => {
		const params = { business_profile_id: sb.workspace().profiles[0].id, per_page: 5 };
		const ignored = await api(sb, '/api/v1/abandoned-sessions', { params });
		expect(ignored.status).toBe(200);
		expect(ignored.data.pagination.total).toBe(sb.workspace().sessions.length);
		try {
			sb.setChoices({ unsupportedFilter: 'error' });
			const r = await api(sb, '/api/v1/abandoned-sessions', { params });
			expect(r.status).toBe(400);
			expect(r.data.error).toBe('invalid_request');
			expect(r.data.message).toMatch(/business_profile_id/);
		} finally {
			sb.setChoices({ unsupportedFilter: 'ignored' });
		}
	});

	it('Get request returns the Request itself (no wrapper), equal to its list item', async () => {
		const list = await api(sb, '/api/v1/requests', { params: { per_page: 3 } });
		for (const item of list.data.items) {
			const r = await api(sb, `/api/v1/requests/${item.id}`);
			expect(r.status).toBe(200);
			expect(r.data).toEqual(item);
		}
		// Upper-case UUIDs are valid UUIDs.
		const up = await api(sb, `/api/v1/requests/${list.data.items[0].id.toUpperCase()}`);
		expect(up.status).toBe(200);
		expect(up.data.id).toBe(list.data.items[0].id);
	});

	it('Get request: unknown id and another workspace\'s id -> 404 not_found (never 403)', async () => {
		const unknown = await api(sb, '/api/v1/requests/00000000-0000-4000-8000-000000000000');
		expect(unknown.status).toBe(404);
		expect(unknown.data.error).toBe('not_found');
		const otherId = sb.workspace(sb.keys.other).requests[0].id;
		const cross = await api(sb, `/api/v1/requests/${otherId}`);
		expect(cross.status).toBe(404);
		expect(cross.data.error).toBe('not_found');
		const own = await api(sb, `/api/v1/requests/${otherId}`, { key: sb.keys.other });
		expect(own.status).toBe(200);
		expect(own.data.id).toBe(otherId);
		// And the reverse.
		const back = await api(sb, `/api/v1/requests/${sb.workspace().requests[0].id}`, { key: sb.keys.other });
		expect(back.status).toBe(404);
	});

	it('the other workspace lists only its own small data set', async () => {
		const demoIds = new Set([...sb.workspace().requests, ...sb.workspace().sessions, ...sb.workspace().forms, ...sb.workspace().profiles].map((x) => x.id));
		for (const p of ['/api/v1/requests', '/api/v1/abandoned-sessions', '/api/v1/forms', '/api/v1/profiles']) {
			const r = await api(sb, p, { key: sb.keys.other, params: { per_page: 100 } });
			expect(r.status).toBe(200);
			expect(r.data.items.length).toBeGreaterThan(0);
			expect(r.data.pagination.total).toBeLessThan(30);
			expect(r.data.items.some((x: { id: string }) => demoIds.has(x.id))).toBe(false);
		}
		const ws = sb.workspace(sb.keys.other);
		const forms = await api(sb, '/api/v1/requests', { key: sb.keys.demo, params: { form_id: ws.forms[0].id } });
		expect(forms.data.pagination.total).toBe(0);
	});
});

describe('sandbox: Date header from the sandbox clock', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await startSandbox({ rateLimit: false });
	});
	afterAll(() => sb.close());

	const dateOf = (r: { headers: Record<string, unknown> }): number => Date.parse(String(r.headers.date));
	/**
	 * The Date header of a call, checked to lie between the sandbox clock just before it was sent and
	 * just after it was answered (the header has whole seconds): exact however slow the machine is.
	 */
	const dated = async (call: () => Promise<{ status: number; headers: Record<string, unknown> }>): Promise<number> => {
		const before = sb.clock.now();
		const r = await call();
		const after = sb.clock.now();
		const date = dateOf(r);
		expect(date).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
		expect(date).toBeLessThanOrEqual(after);
		return r.status;
	};

	it('every response carries a Date header that follows the clock offset', async () => {
		expect(await dated(() => api(sb, '/api/v1/forms'))).toBe(200);
		expect(await dated(() => api(sb, '/api/v1/forms', { key: null }))).toBe(401);
		expect(await dated(() => api(sb, '/api/v1/nope'))).toBe(404);

		sb.clock.setOffsetMs(3 * 86_400_000);
		expect(await dated(() => api(sb, '/api/v1/forms'))).toBe(200);
		sb.clock.advance(3_600_000);
		expect(await dated(() => api(sb, '/api/v1/forms'))).toBe(200);
		expect(await dated(() => control(sb, 'GET', '/__sandbox/info'))).toBe(200);

		// Through the control route.
		const c = await control(sb, 'POST', '/__sandbox/clock', { offsetMs: -86_400_000 });
		expect(c.status).toBe(200);
		expect(c.data.offsetMs).toBe(-86_400_000);
		expect(await dated(() => api(sb, '/api/v1/forms'))).toBe(200);
		const adv = await control(sb, 'POST', '/__sandbox/clock', { advanceMs: 86_400_000 });
		expect(adv.data.offsetMs).toBe(0);
		expect(await dated(() => api(sb, '/api/v1/forms'))).toBe(200);
	});
});
