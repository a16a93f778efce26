// The sandbox against the contract over real HTTP on loopback: authentication, rate limit,
// routing and errors, Get request, Date header, determinism of the seed.

import { KEY_PATTERN, startSandbox, type Sandbox } from '../../sandbox/index';
import { api, control, sleep } from './helpers';

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
	let sb: Sandbox;
	const GAP = 400;
	beforeAll(async () => {
		sb = await startSandbox({ minGapMs: GAP });
	});
	afterAll(() => sb.close());

	it('concurrent requests of one key: one accepted, the rest 429 rate_limited with the contract headers', async () => {
		await sleep(GAP + 20);
		sb.clearLog();
		const rs = await Promise.all([0, 1, 2, 3].map(() => api(sb, '/api/v1/forms')));
		const statuses = rs.map((r) => r.status).sort();
		expect(statuses).toEqual([200, 429, 429, 429]);
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
		await sleep(GAP + 20);
		const rs = await Promise.all([sb.keys.demo, sb.keys.second, sb.keys.other].map((key) => api(sb, '/api/v1/forms', { key })));
		expect(rs.map((r) => r.status)).toEqual([200, 200, 200]);
	});

	it('rejected requests do not move the window; decisions follow the arrival times exactly', async () => {
		await sleep(GAP + 20);
		sb.clearLog();
		const statuses: number[] = [];
		statuses.push((await api(sb, '/api/v1/profiles')).status); // t0: accepted
		await sleep(GAP * 0.6);
		statuses.push((await api(sb, '/api/v1/profiles')).status); // ~t0+240: rejected
		await sleep(GAP * 0.55);
		statuses.push((await api(sb, '/api/v1/profiles')).status); // ~t0+460: accepted (window from t0, not from the 429)
		// The rule, recomputed from the server's own arrival times.
		let last: number | null = null;
		const expected = sb.log.map((e) => {
			const ok = last === null || e.at - last >= GAP;
			if (ok) last = e.at;
			return ok ? 200 : 429;
		});
		expect(statuses).toEqual(sb.log.map((e) => e.status));
		expect(statuses).toEqual(expected);
		expect(statuses[0]).toBe(200);
		// the intended timeline; a busy machine can delay a request past it, and the rule above still holds
		const gap01 = sb.log[1].at - sb.log[0].at;
		if (gap01 < GAP) expect(statuses[1]).toBe(429);
		const gap02 = sb.log[2].at - sb.log[0].at;
		if (gap02 >= GAP) expect(statuses[2]).toBe(200);
	});

	it('the default limit is 1 request per 1000 ms, and stats show the accepted gaps', async () => {
		const real = await startSandbox();
		try {
			// two at once: whichever arrives second is within the second of the first (a busy machine could
			// space two requests sent one after the other by more than a second)
			const pair = await Promise.all([api(real, '/api/v1/forms'), api(real, '/api/v1/forms')]);
			const tooSoon = pair.find((r) => r.status === 429);
			await sleep(1010 - (real.log[1].at - real.log[0].at));
			const later = await api(real, '/api/v1/forms');
			expect([...pair.map((r) => r.status).sort(), later.status]).toEqual([200, 429, 200]);
			expect(tooSoon?.headers['retry-after']).toBe('1');
			const st = real.stats();
			expect(st.accepted).toBe(2);
			expect(st.rateLimited).toBe(1);
			expect(st.errors).toBe(0);
			expect(st.minGapMs).not.toBeNull();
			expect(st.minGapMs as number).toBeGreaterThanOrEqual(1000);
		} finally {
			await real.close();
		}
	});

	it('rateLimit: false accepts everything and stats still measure the minimum gap', async () => {
		const free = await startSandbox({ rateLimit: false });
		try {
			const rs = await Promise.all([0, 1, 2, 3, 4].map(() => api(free, '/api/v1/forms')));
			expect(rs.every((r) => r.status === 200)).toBe(true);
			const st = free.stats();
			expect(st.accepted).toBe(5);
			expect(st.rateLimited).toBe(0);
			expect(st.minGapMs as number).toBeLessThan(1000);
		} finally {
			await free.close();
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

	it('invalid UUIDs in the path or in filters -> 400 invalid_request', async () => {
		const cases: Array<[string, Record<string, string>]> = [
			['/api/v1/requests/not-a-uuid', {}],
			['/api/v1/requests/12345678-1234-1234-1234-12345678901', {}],
			['/api/v1/requests', { form_id: 'abc' }],
			['/api/v1/requests', { business_profile_id: '1' }],
			['/api/v1/requests', { form_id: '' }],
			['/api/v1/abandoned-sessions', { form_id: 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz' }],
			['/api/v1/profiles', { form_id: 'nope' }],
		];
		for (const [path, params] of cases) {
			const r = await api(sb, path, { params });
			expect([path, r.status, r.data.error]).toEqual([path, 400, 'invalid_request']);
		}
	});

	it('business_profile_id on abandoned sessions is rejected (400: not supported on this endpoint)', async () => {
		const r = await api(sb, '/api/v1/abandoned-sessions', { params: { business_profile_id: sb.workspace().profiles[0].id } });
		expect(r.status).toBe(400);
		expect(r.data.error).toBe('invalid_request');
		expect(r.data.message).toMatch(/business_profile_id/);
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

	it('every response carries a Date header that follows the clock offset', async () => {
		// within a minute: the offsets below are hours and days, and a busy machine delays an answer by seconds at most
		const near = (ms: number, target: number): void => expect(Math.abs(ms - target)).toBeLessThan(60_000);
		near(dateOf(await api(sb, '/api/v1/forms')), Date.now());
		near(dateOf(await api(sb, '/api/v1/forms', { key: null })), Date.now()); // 401 too
		near(dateOf(await api(sb, '/api/v1/nope')), Date.now()); // 404 too

		sb.clock.setOffsetMs(3 * 86_400_000);
		near(sb.clock.now(), Date.now() + 3 * 86_400_000);
		near(dateOf(await api(sb, '/api/v1/forms')), Date.now() + 3 * 86_400_000);
		sb.clock.advance(3_600_000);
		near(dateOf(await api(sb, '/api/v1/forms')), Date.now() + 3 * 86_400_000 + 3_600_000);
		near(dateOf(await control(sb, 'GET', '/__sandbox/info')), Date.now() + 3 * 86_400_000 + 3_600_000);

		// Through the control route.
		const c = await control(sb, 'POST', '/__sandbox/clock', { offsetMs: -86_400_000 });
		expect(c.status).toBe(200);
		expect(c.data.offsetMs).toBe(-86_400_000);
		near(dateOf(await api(sb, '/api/v1/forms')), Date.now() - 86_400_000);
		const adv = await control(sb, 'POST', '/__sandbox/clock', { advanceMs: 86_400_000 });
		expect(adv.data.offsetMs).toBe(0);
		near(dateOf(await api(sb, '/api/v1/forms')), Date.now());
	});
});
