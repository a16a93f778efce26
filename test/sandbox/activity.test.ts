// Customer activity, the control interface, the request log and stats, and the CLI.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import axios from 'axios';
import { startSandbox, type BookingRequest, type Sandbox, type Session } from '../../sandbox/index';
import { ISO_MS, api, control, sleep } from './helpers';

// The activity's own rules, with each write stamped when it becomes visible and sessions without
// updated_at listed last, so that "on top" is the newest write: late commits and the nulls listed first
// (the defaults) are choices.test.ts's.
const STAMPED_WHEN_VISIBLE = { commitLagMs: 0, nulls: 'last' } as const;

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false, choices: STAMPED_WHEN_VISIBLE });
});
afterAll(() => sb.close());

/** The sandbox clock just before and just after `write`: its stamp lies between them, however slow the machine. */
function within<T>(sandbox: Sandbox, write: () => T): { value: T; before: number; after: number } {
	const before = sandbox.clock.now();
	const value = write();
	return { value, before, after: sandbox.clock.now() };
}

async function topSession(key?: string): Promise<Session> {
	const r = await api(sb, '/api/v1/abandoned-sessions', { key, params: { per_page: 1 } });
	return r.data.items[0];
}
async function topRequest(key?: string): Promise<BookingRequest> {
	const r = await api(sb, '/api/v1/requests', { key, params: { per_page: 1 } });
	return r.data.items[0];
}

describe('customer activity', () => {
	it('startSession: a new abandoned session on top, with the contact step done', async () => {
		const form = sb.workspace().forms.find((f) => !f.is_default && f.service_template_id) as { id: string };
		const { value: s, before, after } = within(sb, () => sb.startSession({ formId: form.id, contact: { firstname: 'Ada', email: 'ada@example.com' }, source: 'newsletter' }));
		expect(s.request_id).toBeNull();
		expect(s.form_id).toBe(form.id);
		expect(s.step).toBe('address');
		expect(s.data.contact).toMatchObject({ firstname: 'Ada', email: 'ada@example.com' });
		expect(typeof s.data.contact?.lastname).toBe('string');
		expect(s.source).toBe('newsletter');
		expect(s.created_at).toMatch(ISO_MS);
		expect(s.updated_at).toBe(s.created_at);
		expect(Date.parse(s.created_at as string)).toBeGreaterThanOrEqual(before);
		expect(Date.parse(s.created_at as string)).toBeLessThanOrEqual(after + 1); // +1: a same-millisecond collision
		expect(await topSession()).toEqual(s);
		expect(() => sb.startSession({ formId: '00000000-0000-4000-8000-000000000000' })).toThrow(/unknown form/);
	});

	it('saveSession: step, data and updated_at change and the session moves to the top', async () => {
		const old = [...sb.workspace().sessions].filter((s) => s.request_id === null && s.updated_at !== null).sort((a, b) => ((a.updated_at as string) < (b.updated_at as string) ? -1 : 1))[0];
		const prevUpdated = old.updated_at as string;
		const created = old.created_at;
		const saved = sb.saveSession(old.id, { step: 'schedule', data: { zip: '78701', contact: { firstname: 'Bo', email: 'bo@example.com' } } });
		expect(saved.id).toBe(old.id);
		expect(saved.step).toBe('schedule');
		expect(saved.data).toEqual({ zip: '78701', contact: { firstname: 'Bo', email: 'bo@example.com' } });
		expect((saved.updated_at as string) > prevUpdated).toBe(true);
		expect(saved.created_at).toBe(created);
		expect(await topSession()).toEqual(saved);
		// Without a change the customer advances one step and the draft gains that step's keys.
		const next = sb.saveSession(old.id);
		expect(next.step).toBe('confirm');
		expect(typeof next.data.scheduledDate).toBe('string');
		// Two saves in the same millisecond still order the latest first.
		const a = sb.startSession();
		const b = sb.startSession();
		sb.saveSession(a.id);
		expect((await topSession()).id).toBe(a.id);
		sb.saveSession(b.id);
		expect((await topSession()).id).toBe(b.id);
	});

	it('completeSession: creates a request from the draft; the session gets request_id and goes to the top', async () => {
		const s = sb.startSession({ contact: { firstname: 'Cleo', lastname: 'Park', email: 'cleo@example.com', phone: '+15125550100' }, source: 'google_ads' });
		sb.saveSession(s.id);
		const beforeUpdate = s.updated_at as string;
		await sleep(2);
		const { session, request } = sb.completeSession(s.id);
		expect(session.id).toBe(s.id);
		expect(session.request_id).toBe(request.id);
		expect((session.updated_at as string) > beforeUpdate).toBe(true);
		expect(request).toMatchObject({ form_id: s.form_id, first_name: 'Cleo', last_name: 'Park', email: 'cleo@example.com', phone: '+15125550100', source: 'google_ads', status: 'complete', lead_status: 'new', updated_at: null });
		expect(request.created_at).toBe(session.updated_at);
		expect(request.address).toBe(session.data.address);
		expect(await topSession()).toEqual(session);
		expect(await topRequest()).toEqual(request);
		const got = await api(sb, `/api/v1/requests/${session.request_id}`);
		expect(got.status).toBe(200);
		expect(got.data).toEqual(request);
		expect(() => sb.completeSession(s.id)).toThrow(/already completed/);
	});

	it('bookWithoutDraft: a new request and a placeholder session (step confirm, empty data, request_id set)', async () => {
		const { session, request } = sb.bookWithoutDraft();
		expect(session).toMatchObject({ step: 'confirm', data: {}, request_id: request.id, form_id: request.form_id });
		expect(session.created_at).toBe(request.created_at);
		expect(await topSession()).toEqual(session);
		expect(await topRequest()).toEqual(request);
		expect(sb.workspace().profiles.some((p) => p.id === request.business_profile_id)).toBe(true);
	});

	it('addRequest: a new request on top with the given fields; key chooses the workspace', async () => {
		const r = sb.addRequest({ first_name: 'Zed', company: null, lead_status: 'contacted' });
		expect(r).toMatchObject({ first_name: 'Zed', company: null, lead_status: 'contacted' });
		expect(await topRequest()).toEqual(r);
		const other = sb.addRequest({ key: sb.keys.other, first_name: 'Other' });
		expect(sb.workspace(sb.keys.other).requests).toContain(other);
		expect((await topRequest(sb.keys.other)).id).toBe(other.id);
		expect((await api(sb, `/api/v1/requests/${other.id}`)).status).toBe(404);
		const old = sb.addRequest({ created_at: '2026-02-01T00:00:00.000Z' });
		expect(old.created_at).toBe('2026-02-01T00:00:00.000Z');
		expect((await topRequest()).id).not.toBe(old.id);
	});

	it('updateRequest: the workspace changes status, lead status, notes, completion and contact; updated_at set, null or kept; the place in the list stays', async () => {
		const r = sb.addRequest({ created_at: '2026-03-01T00:00:00.000Z', status: 'pending', lead_status: 'new', internal_notes: null, completed_at: null });
		const before = (await api(sb, '/api/v1/requests', { params: { per_page: 100 } })).data.items.map((x: BookingRequest) => x.id);
		const changed = sb.updateRequest(r.id, { status: 'complete', lead_status: 'contacted', internal_notes: 'Called back', completed_at: 'now', email: 'new@example.com' });
		expect(changed).toMatchObject({ status: 'complete', lead_status: 'contacted', internal_notes: 'Called back', email: 'new@example.com' });
		expect(changed.completed_at).toMatch(ISO_MS);
		expect(changed.updated_at).toBe(changed.completed_at);
		expect((await api(sb, `/api/v1/requests/${r.id}`)).data).toEqual(changed);
		const after = (await api(sb, '/api/v1/requests', { params: { per_page: 100 } })).data.items.map((x: BookingRequest) => x.id);
		expect(after).toEqual(before);
		expect(sb.updateRequest(r.id, { lead_status: 'won', updatedAt: 'null' })).toMatchObject({ lead_status: 'won', updated_at: null });
		expect(sb.updateRequest(r.id, { internal_notes: null, updatedAt: 'keep' })).toMatchObject({ internal_notes: null, updated_at: null });
		expect(() => sb.updateRequest(r.id, { city: 'Paris' } as never)).toThrow(/city cannot be changed/);
		expect(() => sb.updateRequest(r.id, { completed_at: 'yesterday' })).toThrow(/completed_at/);
		expect(() => sb.updateRequest('00000000-0000-4000-8000-000000000000', { status: 'x' })).toThrow(/unknown request/);
	});

	it('new activity is stamped with the sandbox clock', async () => {
		const own = await startSandbox({ rateLimit: false, choices: STAMPED_WHEN_VISIBLE });
		try {
			const stampedWithin = (stamp: string | null, at: { before: number; after: number }) => {
				expect(Date.parse(stamp as string)).toBeGreaterThanOrEqual(at.before);
				expect(Date.parse(stamp as string)).toBeLessThanOrEqual(at.after + 1);
			};
			own.clock.setOffsetMs(10 * 86_400_000);
			const wallBefore = Date.now();
			const started = within(own, () => own.startSession());
			const s = started.value;
			stampedWithin(s.created_at, started);
			expect(Date.parse(s.created_at as string)).toBeGreaterThanOrEqual(wallBefore + 10 * 86_400_000); // the offset applies
			const booked = within(own, () => own.bookWithoutDraft());
			stampedWithin(booked.value.request.created_at, booked);
			own.clock.advance(86_400_000);
			const saving = within(own, () => own.saveSession(s.id));
			const saved = saving.value;
			stampedWithin(saved.updated_at, saving);
			expect(Date.parse(saved.updated_at as string) - Date.parse(s.created_at as string)).toBeGreaterThanOrEqual(86_400_000);
			const r = await api(own, '/api/v1/abandoned-sessions', { key: own.keys.demo, params: { per_page: 1 } });
			expect(r.data.items[0].id).toBe(s.id);
		} finally {
			await own.close();
		}
	});
});

describe('control interface', () => {
	it('info, faults, stats, log: JSON, no auth, not logged, not rate limited', async () => {
		// every request arrives at one simulated instant: the second is within the gap however slow the machine
		const limited = await startSandbox({ minGapMs: 5000, arrivalClock: () => 0 });
		try {
			const infos = await Promise.all([0, 1, 2, 3, 4].map(() => control(limited, 'GET', '/__sandbox/info')));
			expect(infos.every((r) => r.status === 200)).toBe(true);
			expect(infos[0].data).toMatchObject({ url: limited.url, keys: limited.keys, seed: 42, rateLimit: true, minGapMs: 5000 });
			expect(limited.log).toHaveLength(0);
			await api(limited, '/api/v1/forms', { params: { per_page: 2 } });
			await api(limited, '/api/v1/forms');
			const log = await control(limited, 'GET', '/__sandbox/log');
			expect(log.data.map((e: { status: number }) => e.status)).toEqual([200, 429]);
			expect(log.data[0]).toMatchObject({ method: 'GET', path: '/api/v1/forms', query: { per_page: '2' } });
			const stats = await control(limited, 'GET', `/__sandbox/stats?key=${limited.keys.demo}`);
			expect(stats.data).toEqual({ accepted: 1, rateLimited: 1, errors: 0, minGapMs: null });
			expect((await control(limited, 'GET', '/__sandbox/stats')).data).toEqual(stats.data); // default: demo key
			expect((await control(limited, 'POST', '/__sandbox/log/clear')).status).toBe(200);
			expect(limited.log).toHaveLength(0);
			const f = await control(limited, 'POST', '/__sandbox/faults', { every500: 2, latencyMs: [0, 5] });
			expect(f.data).toEqual({ every500: 2, latencyMs: [0, 5] });
			expect((await control(limited, 'GET', '/__sandbox/faults')).data).toEqual(f.data);
			expect((await control(limited, 'POST', '/__sandbox/faults', { every500: -1 })).status).toBe(400);
			expect((await control(limited, 'POST', '/__sandbox/faults', {})).data).toEqual({});
		} finally {
			await limited.close();
		}
	});

	it('activity routes: sessions start/save/complete, bookings, requests', async () => {
		const started = await control(sb, 'POST', '/__sandbox/sessions', { contact: { firstname: 'Remy' }, source: null });
		expect(started.status).toBe(200);
		expect(started.data).toMatchObject({ request_id: null, step: 'address', source: null });
		expect(started.data.data.contact.firstname).toBe('Remy');
		const saved = await control(sb, 'POST', `/__sandbox/sessions/${started.data.id}/save`, { step: 'services' });
		expect(saved.data.step).toBe('services');
		expect(saved.data.updated_at >= started.data.updated_at).toBe(true);
		const done = await control(sb, 'POST', `/__sandbox/sessions/${started.data.id}/complete`);
		expect(done.data.session.request_id).toBe(done.data.request.id);
		expect((await api(sb, `/api/v1/requests/${done.data.request.id}`)).data).toEqual(done.data.request);
		const booked = await control(sb, 'POST', '/__sandbox/bookings', {});
		expect(booked.data.session).toMatchObject({ step: 'confirm', data: {}, request_id: booked.data.request.id });
		const added = await control(sb, 'POST', '/__sandbox/requests', { first_name: 'Via', key: sb.keys.other });
		expect(added.data.first_name).toBe('Via');
		expect(sb.workspace(sb.keys.other).requests.some((r) => r.id === added.data.id)).toBe(true);
		expect((await topSession()).id).toBe(booked.data.session.id);
		const updated = await control(sb, 'POST', `/__sandbox/requests/${done.data.request.id}/update`, { lead_status: 'qualified', updatedAt: 'null' });
		expect(updated.status).toBe(200);
		expect(updated.data).toMatchObject({ id: done.data.request.id, lead_status: 'qualified', updated_at: null });
		expect((await api(sb, `/api/v1/requests/${done.data.request.id}`)).data.lead_status).toBe('qualified');
		expect((await control(sb, 'POST', `/__sandbox/requests/${done.data.request.id}/update`, { status: 7 })).status).toBe(400);
		expect((await control(sb, 'POST', '/__sandbox/requests/00000000-0000-4000-8000-000000000000/update', { status: 'x' })).status).toBe(404);
	});

	it('keys/revoke and clock routes; errors: 404 unknown, 405 wrong method, 400 bad input', async () => {
		const own = await startSandbox({ rateLimit: false });
		try {
			expect((await control(own, 'POST', '/__sandbox/keys/revoke', { key: own.keys.second })).status).toBe(200);
			expect((await api(own, '/api/v1/forms', { key: own.keys.second })).status).toBe(401);
			expect((await control(own, 'POST', '/__sandbox/keys/revoke', { key: 'brk_' + '1'.repeat(32) })).status).toBe(404);
			const clock = await control(own, 'POST', '/__sandbox/clock', { advanceMs: 60_000 });
			expect(clock.data.offsetMs).toBe(60_000);
			expect((await control(own, 'GET', '/__sandbox/clock')).data.offsetMs).toBe(60_000);
			expect((await control(own, 'POST', '/__sandbox/clock', {})).status).toBe(400);
			expect((await control(own, 'GET', '/__sandbox/nope')).status).toBe(404);
			expect((await control(own, 'GET', '/__sandbox/abandon')).status).toBe(405);
			expect((await control(own, 'POST', '/__sandbox/sessions/00000000-0000-4000-8000-000000000000/save', {})).status).toBe(404);
			const bad = await axios.post(`${own.url}/__sandbox/faults`, '{not json', { headers: { 'Content-Type': 'application/json' }, validateStatus: () => true, transformRequest: (d: string) => d });
			expect(bad.status).toBe(400);
			expect(bad.data.error).toBe('invalid_request');
			const ws = await control(own, 'GET', `/__sandbox/workspace?key=${own.keys.other}`);
			expect(ws.data.requests).toHaveLength(12);
			expect(own.log).toHaveLength(1); // only the API call above, no control route
		} finally {
			await own.close();
		}
	});
});

describe('request log and stats', () => {
	it('logs every API request in arrival order with a 12-char key hash, never the raw key', async () => {
		sb.clearLog();
		const logFrom = performance.timeOrigin + performance.now();
		await api(sb, '/api/v1/requests', { params: { page: 2, per_page: 5, form_id: sb.workspace().forms[0].id } });
		await api(sb, '/api/v1/forms', { key: null });
		await api(sb, '/api/v1/nope', { key: sb.keys.other });
		await control(sb, 'GET', '/__sandbox/info');
		expect(sb.log).toHaveLength(3);
		const [a, b, c] = sb.log;
		expect(a).toMatchObject({ method: 'GET', path: '/api/v1/requests', query: { page: '2', per_page: '5', form_id: sb.workspace().forms[0].id }, status: 200 });
		expect(a.keyHash).toBe(createHash('sha256').update(sb.keys.demo).digest('hex').slice(0, 12));
		expect(b).toMatchObject({ path: '/api/v1/forms', keyHash: null, status: 401 });
		expect(c).toMatchObject({ path: '/api/v1/nope', status: 404 });
		expect(c.keyHash).toBe(createHash('sha256').update(sb.keys.other).digest('hex').slice(0, 12));
		expect(a.at).toBeLessThan(b.at);
		expect(b.at).toBeLessThan(c.at);
		expect(a.at).toBeLessThanOrEqual(performance.timeOrigin + performance.now()); // the clock of the log: now, not a fake one
		expect(a.at).toBeGreaterThan(logFrom);
		expect(a.at % 1).not.toBe(0); // high resolution
		const text = JSON.stringify(sb.log);
		for (const k of Object.values(sb.keys)) expect(text).not.toContain(k);
		const kept = sb.log;
		sb.clearLog();
		expect(kept).toHaveLength(0);
		expect(sb.log).toBe(kept);
	});

	it('stats: accepted, rateLimited, errors and the minimum gap between accepted requests per key', async () => {
		// arrival times from a simulated clock: the decisions do not depend on when the machine ran a line
		let now = 0;
		const paced = await startSandbox({ minGapMs: 150, arrivalClock: () => now });
		try {
			await api(paced, '/api/v1/forms');
			now = 100;
			await api(paced, '/api/v1/forms'); // too soon: 429
			now = 200;
			await api(paced, '/api/v1/requests/00000000-0000-4000-8000-000000000000'); // accepted, 404
			await api(paced, '/api/v1/forms', { key: paced.keys.second });
			const st = paced.stats();
			expect(st.accepted).toBe(2);
			expect(st.rateLimited).toBe(1);
			expect(st.errors).toBe(1);
			expect(st.minGapMs).toBe(200);
			expect(paced.stats(paced.keys.second)).toEqual({ accepted: 1, rateLimited: 0, errors: 0, minGapMs: null });
			expect(paced.stats(paced.keys.other)).toEqual({ accepted: 0, rateLimited: 0, errors: 0, minGapMs: null });
		} finally {
			await paced.close();
		}
	});
});

describe('cli', () => {
	it('starts on the given port, prints the URL and the demo key, and closes on SIGINT', async () => {
		const root = path.resolve(__dirname, '..', '..');
		const child = spawn(process.execPath, [path.join(root, 'sandbox', 'cli.js'), '--port', '0', '--seed', '42'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
		let out = '';
		child.stdout.on('data', (d: Buffer) => (out += d.toString()));
		child.stderr.on('data', (d: Buffer) => (out += d.toString()));
		const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
		try {
			// until it prints (or exits): jest's timeout bounds the wait, no deadline of our own
			while (!/demo key:\s+brk_[0-9a-f]{32}/.test(out) && child.exitCode === null) await sleep(50);
			const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
			const key = /demo key:\s+(brk_[0-9a-f]{32})/.exec(out)?.[1];
			expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
			expect(key).toBe(sb.keys.demo); // same seed, same key
			const info = await axios.get(`${url}/__sandbox/info`);
			expect(info.data.keys.demo).toBe(key);
			const forms = await axios.get(`${url}/api/v1/forms`, { headers: { Authorization: `Bearer ${key}` } });
			expect(forms.data.pagination.total).toBe(4);
		} finally {
			child.kill('SIGINT');
		}
		expect(await exited).toBe(0);
	});
});

describe('sandbox: recent demo data (the demo, npm run sandbox -- --recent) and "a customer abandons now"', () => {
	let sb: Sandbox;
	let fixed: Sandbox;
	let startedAt: number;
	beforeAll(async () => {
		startedAt = Date.now();
		sb = await startSandbox({ rateLimit: false, recent: true });
		fixed = await startSandbox({ rateLimit: false });
	});
	afterAll(async () => {
		await sb.close();
		await fixed.close();
	});

	const minutesAgo = (at: string | null) => (startedAt - Date.parse(at as string)) / 60_000;

	it('the seed is moved in time as a whole: same ids and idle times, the newest activity minutes old', () => {
		const shifted = sb.workspace();
		const original = fixed.workspace();
		const seeded = shifted.sessions.slice(0, original.sessions.length);
		expect(seeded.map((s) => s.id)).toEqual(original.sessions.map((s) => s.id));
		// what lies between two timestamps does not change
		seeded.forEach((s, i) => {
			const o = original.sessions[i];
			if (s.created_at && s.updated_at && o.created_at && o.updated_at) {
				expect(Date.parse(s.updated_at) - Date.parse(s.created_at)).toBe(Date.parse(o.updated_at) - Date.parse(o.created_at));
			}
		});
		const newestRequest = Math.min(...shifted.requests.map((r) => minutesAgo(r.created_at)));
		expect(newestRequest).toBeGreaterThanOrEqual(4);
		expect(newestRequest).toBeLessThan(60 * 24 * 3);
		expect(Math.max(...shifted.requests.map((r) => Date.parse(r.created_at)))).toBeLessThan(startedAt);
	});

	it('customers left a booking unfinished in the last hours (with an e-mail, past the contact step)', () => {
		const open = sb.workspace().sessions.filter((s) => s.request_id === null && s.updated_at !== null && minutesAgo(s.updated_at) < 24 * 60);
		expect(open.length).toBeGreaterThanOrEqual(9);
		const newest = [...open].sort((a, b) => Date.parse(b.updated_at as string) - Date.parse(a.updated_at as string)).slice(0, 3);
		for (const s of newest) {
			expect(minutesAgo(s.updated_at)).toBeGreaterThan(30);
			expect(minutesAgo(s.updated_at)).toBeLessThan(90);
			expect(s.data.contact?.email).toMatch(/@/);
			expect(s.step).not.toBe('address');
		}
	});

	it('the default (no recent) keeps the fixed range the tests rely on', () => {
		const times = fixed.workspace().requests.map((r) => Date.parse(r.created_at));
		expect(Math.min(...times)).toBeGreaterThanOrEqual(Date.UTC(2026, 0, 1));
		expect(Math.max(...times)).toBeLessThanOrEqual(Date.UTC(2026, 9, 31, 23, 59, 59, 999));
	});

	it('POST /__sandbox/abandon: a draft started now, the clock moved on by idleMinutes (0 by default: not at all)', async () => {
		const res = await control(sb, 'POST', '/__sandbox/abandon', { contact: { firstname: 'Ada', email: 'ada@example.com' } });
		expect(res.status).toBe(200);
		const { session, now, offsetMs } = res.data as { session: { id: string; updated_at: string; data: { contact: { email: string } } }; now: number; offsetMs: number };
		expect(session.data.contact.email).toBe('ada@example.com');
		expect(offsetMs).toBe(0);
		expect(now - Date.parse(session.updated_at)).toBeLessThan(60_000);
		expect(sb.workspace().sessions.find((s) => s.id === session.id)?.request_id).toBeNull();
		const idle = await control(sb, 'POST', '/__sandbox/abandon', { idleMinutes: 5 });
		const { session: idled, now: later } = idle.data as { session: { updated_at: string }; now: number };
		expect(later - Date.parse(idled.updated_at)).toBeGreaterThanOrEqual(5 * 60_000);
		expect(later - now).toBeGreaterThanOrEqual(5 * 60_000);
		expect((await control(sb, 'POST', '/__sandbox/abandon', { idleMinutes: -1 })).status).toBe(400);
	});
});
