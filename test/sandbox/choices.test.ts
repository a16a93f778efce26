// Where the contract leaves the server a choice, each setting of the sandbox (sandbox/choices.ts) over
// real HTTP, every value: the unkind default and the kind one. The statements of each rule are the
// test's own (not the sandbox's sort or stamp functions); the list with what the package does under
// each is in CONTRIBUTING.md ("Where the contract is silent").

import { spawn } from 'node:child_process';
import * as path from 'node:path';

import axios from 'axios';

import { DEFAULT_CHOICES, KIND_CHOICES, startSandbox, type BookingRequest, type Sandbox, type Session } from '../../sandbox/index';
import { OPEN_LEAD_STATUSES, OPEN_PROFILE_SOURCES, OPEN_STATUSES } from '../../sandbox/openValues';
import { api, control, pageAll, sleep } from './helpers';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false });
});
afterAll(() => sb.close());
afterEach(() => sb.setChoices({ ...DEFAULT_CHOICES, values: undefined }));

const sessionsRead = async (sandbox = sb) => (await pageAll<Session>(sandbox, '/api/v1/abandoned-sessions', 100, {}, sandbox.keys.demo)).items;
const requestsRead = async (sandbox = sb) => (await pageAll<BookingRequest>(sandbox, '/api/v1/requests', 100, {}, sandbox.keys.demo)).items;
/** Groups of adjacent rows with one timestamp, as ids in the order read. */
const tieGroups = <T extends { id: string }>(rows: T[], time: (row: T) => string | null): string[][] => {
	const groups: string[][] = [];
	rows.forEach((row, i) => {
		const t = time(row);
		if (t !== null && i > 0 && time(rows[i - 1]) === t) groups[groups.length - 1].push(row.id);
		else groups.push([row.id]);
	});
	return groups.filter((group) => group.length > 1);
};
const byIdDesc = (ids: string[]) => [...ids].sort((a, b) => (a < b ? 1 : -1));

describe('the defaults are the unkind choices; kind ones can be chosen', () => {
	it('defaults', () => {
		expect(sb.choices()).toEqual(DEFAULT_CHOICES);
		expect(DEFAULT_CHOICES).toMatchObject({ nulls: 'first', ties: 'fixed', invalidUuid: 404, profilesBadPerPage: 'error', unsupportedFilter: 'ignored', values: 'open' });
		expect(DEFAULT_CHOICES.commitLagMs).not.toBe(0);
	});

	it('GET/POST /__sandbox/choices, /__sandbox/info shows them; unknown settings and values are refused; values is chosen at start', async () => {
		expect((await control(sb, 'GET', '/__sandbox/choices')).data).toEqual(DEFAULT_CHOICES);
		const set = await control(sb, 'POST', '/__sandbox/choices', { nulls: 'last', maxPerPage: { sessions: 30 } });
		expect(set.status).toBe(200);
		expect(set.data).toMatchObject({ nulls: 'last', maxPerPage: { requests: 100, sessions: 30, forms: 100, profiles: 50 } });
		expect((await control(sb, 'GET', '/__sandbox/info')).data.choices).toEqual(set.data);
		const kind = await control(sb, 'POST', '/__sandbox/choices', { kind: true, retryAfterS: null });
		expect(kind.data).toEqual({ ...KIND_CHOICES, values: 'open', retryAfterS: null });
		for (const bad of [{ nulls: 'middle' }, { tie: 'id' }, { commitLagMs: [5, 1] }, { maxPerPage: { sessions: 0 } }, { invalidUuid: 418 }, { kind: 'yes' }]) {
			const r = await control(sb, 'POST', '/__sandbox/choices', bad);
			expect([JSON.stringify(bad), r.status, r.data.error]).toEqual([JSON.stringify(bad), 400, 'invalid_request']);
		}
		expect((await control(sb, 'GET', '/__sandbox/choices')).data).toEqual(kind.data); // nothing changed by a refused body
		expect((await control(sb, 'POST', '/__sandbox/choices', { values: 'examples' })).data.message).toMatch(/choose it when the sandbox starts/);
	});

	it('the CLI: --kind and one flag per setting', async () => {
		const root = path.resolve(__dirname, '..', '..');
		const args = ['--port', '0', '--kind', '--nulls', 'first', '--ties', 'reshuffled', '--commit-lag', '0-500', '--max-per-page', 'sessions=40', '--retry-after', 'none', '--invalid-uuid', '422', '--completion-keeps-session'];
		const child = spawn(process.execPath, [path.join(root, 'sandbox', 'cli.js'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
		let out = '';
		child.stdout.on('data', (d: Buffer) => (out += d.toString()));
		child.stderr.on('data', (d: Buffer) => (out += d.toString()));
		const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
		try {
			while (!/Press Ctrl\+C/.test(out) && child.exitCode === null) await sleep(50);
			expect(out).toMatch(/choices: +nulls first, ties reshuffled/);
			const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
			const choices = (await axios.get(`${url}/__sandbox/choices`)).data;
			expect(choices).toEqual({
				...KIND_CHOICES,
				nulls: 'first',
				ties: 'reshuffled',
				commitLagMs: [0, 500],
				maxPerPage: { ...KIND_CHOICES.maxPerPage, sessions: 40 },
				retryAfterS: null,
				invalidUuid: 422,
				completionTouchesSession: false,
			});
		} finally {
			child.kill('SIGINT');
		}
		expect(await exited).toBe(0);
		const bad = spawn(process.execPath, [path.join(root, 'sandbox', 'cli.js'), '--port', '0', '--nulls', 'middle'], { cwd: root });
		let err = '';
		bad.stderr.on('data', (d: Buffer) => (err += d.toString()));
		expect(await new Promise<number | null>((resolve) => bad.on('exit', (c) => resolve(c)))).toBe(2);
		expect(err).toMatch(/choices.nulls must be one of "first", "last"/);
	});
});

describe('nulls: rows without a sort time first (default) or last', () => {
	it('sessions without updated_at, and forms without created_at (after the default form)', async () => {
		for (const nulls of ['first', 'last'] as const) {
			sb.setChoices({ nulls });
			const sessions = await sessionsRead();
			const undated = sessions.filter((s) => s.updated_at === null).length;
			expect(undated).toBeGreaterThan(1);
			const block = nulls === 'first' ? sessions.slice(0, undated) : sessions.slice(-undated);
			expect([nulls, block.every((s) => s.updated_at === null)]).toEqual([nulls, true]);
			const forms = (await api(sb, '/api/v1/forms')).data.items as Array<{ is_default: boolean; created_at: string | null }>;
			expect(forms[0].is_default).toBe(true);
			expect([nulls, (nulls === 'first' ? forms[1] : forms[forms.length - 1]).created_at]).toEqual([nulls, null]);
		}
	});
});

describe('ties: the order of rows with one timestamp', () => {
	it('id: by id descending; fixed (default): another order, the same at every read', async () => {
		sb.setChoices({ ties: 'id' });
		const byId = tieGroups(await requestsRead(), (r) => r.created_at);
		expect(byId.length).toBeGreaterThan(5);
		for (const group of byId) expect(group).toEqual(byIdDesc(group));
		sb.setChoices({ ties: 'fixed' });
		const fixed = tieGroups(await requestsRead(), (r) => r.created_at);
		expect(fixed.map((group) => [...group].sort())).toEqual(byId.map((group) => [...group].sort())); // the same groups
		expect(fixed.some((group) => group.join() !== byIdDesc(group).join())).toBe(true); // not by id
		sb.addRequest(); // a change of the list does not reorder them
		expect(tieGroups(await requestsRead(), (r) => r.created_at)).toEqual(fixed);
	});

	it('reshuffled: the same between reads while nothing changes, drawn again when the list changes', async () => {
		sb.setChoices({ ties: 'reshuffled' });
		const first = tieGroups(await sessionsRead(), (s) => s.updated_at);
		expect(tieGroups(await sessionsRead(), (s) => s.updated_at)).toEqual(first);
		sb.startSession();
		const after = tieGroups(await sessionsRead(), (s) => s.updated_at);
		expect(after.map((group) => [...group].sort())).toEqual(first.map((group) => [...group].sort()));
		expect(after).not.toEqual(first);
	});
});

describe('commitLagMs: writes stamped before they become visible', () => {
	it('a constant lag: every write stamped that long before the clock when it was made', async () => {
		sb.setChoices({ commitLagMs: 1500 });
		const before = sb.clock.now();
		const session = sb.startSession();
		const { request } = sb.bookWithoutDraft();
		const after = sb.clock.now();
		for (const stamp of [session.updated_at, request.created_at]) {
			expect(Date.parse(stamp as string)).toBeGreaterThanOrEqual(before - 1500);
			expect(Date.parse(stamp as string)).toBeLessThanOrEqual(after - 1500);
		}
	});

	it('a range (default 0-2,000 ms): a row written later can sort below rows written before it; a request and its session differ', () => {
		expect(sb.choices().commitLagMs).toEqual([0, 2000]);
		const drafts = Array.from({ length: 20 }, () => sb.startSession());
		const stamps = drafts.map((draft) => Date.parse(draft.updated_at as string));
		expect(stamps.some((stamp, i) => i > 0 && stamp < Math.max(...stamps.slice(0, i)))).toBe(true);
		const completions = drafts.slice(0, 10).map((draft) => sb.completeSession(draft.id));
		expect(completions.some(({ session, request }) => session.updated_at !== request.created_at)).toBe(true);
		for (const { session, request } of completions) expect(Math.abs(Date.parse(session.updated_at as string) - Date.parse(request.created_at))).toBeLessThanOrEqual(2000);
	});

	it('never before what a write follows: a save not before the session\'s earlier stamps, a booking not before its draft\'s last save', () => {
		sb.setChoices({ commitLagMs: [0, 2000] });
		for (let i = 0; i < 30; i++) {
			const draft = sb.startSession();
			const created = draft.created_at as string;
			const saved = sb.saveSession(draft.id).updated_at as string;
			expect(saved >= created).toBe(true);
			const { session, request } = sb.completeSession(draft.id);
			expect(request.created_at >= saved).toBe(true);
			expect((session.updated_at as string) >= saved).toBe(true);
			const changed = sb.updateRequest(request.id, { status: 'pending' });
			expect((changed.updated_at as string) >= request.created_at).toBe(true);
		}
	});

	it('0 (kind): each write stamped when it is visible, strictly after the one before', () => {
		sb.setChoices({ commitLagMs: 0 });
		const drafts = Array.from({ length: 20 }, () => sb.startSession());
		const stamps = drafts.map((draft) => Date.parse(draft.updated_at as string));
		expect(stamps.every((stamp, i) => i === 0 || stamp > stamps[i - 1])).toBe(true);
		const { session, request } = sb.completeSession(drafts[0].id);
		expect(session.updated_at).toBe(request.created_at);
	});
});

describe('maxPerPage and profilesBadPerPage', () => {
	it('a page size below what was asked, with that per_page in the pagination object', async () => {
		sb.setChoices({ maxPerPage: { sessions: 50, requests: 40 } });
		const sessions = (await api(sb, '/api/v1/abandoned-sessions', { params: { per_page: 100 } })).data;
		expect([sessions.items.length, sessions.pagination.per_page]).toEqual([50, 50]);
		const requests = (await api(sb, '/api/v1/requests', { params: { per_page: 100, page: 2 } })).data;
		expect([requests.items.length, requests.pagination]).toEqual([40, { page: 2, per_page: 40, total: sb.workspace().requests.length }]);
		sb.setChoices({ maxPerPage: 20 });
		for (const list of ['/api/v1/requests', '/api/v1/abandoned-sessions', '/api/v1/forms', '/api/v1/profiles']) {
			expect([list, (await api(sb, list, { params: { per_page: 100 } })).data.pagination.per_page]).toEqual([list, 20]);
		}
		// below the default of 25, a missing per_page gets the most there is
		expect((await api(sb, '/api/v1/requests')).data.pagination.per_page).toBe(20);
	});

	it('a non-numeric per_page on profiles: 400 (default) or the default page size', async () => {
		const refused = await api(sb, '/api/v1/profiles', { params: { per_page: 'many' } });
		expect([refused.status, refused.data.error]).toEqual([400, 'invalid_request']);
		expect((await api(sb, '/api/v1/profiles', { params: { per_page: 10 } })).status).toBe(200);
		expect((await api(sb, '/api/v1/requests', { params: { per_page: 'many' } })).data.pagination.per_page).toBe(25); // stated for requests
		sb.setChoices({ profilesBadPerPage: 'default' });
		expect((await api(sb, '/api/v1/profiles', { params: { per_page: 'many' } })).data.pagination.per_page).toBe(25);
	});
});

describe('retryAfterS: the Retry-After of a 429', () => {
	it('1 (the contract, default), a long one, or none: on the rate limit and on injected 429s', async () => {
		let now = 0;
		const limited = await startSandbox({ arrivalClock: () => now });
		try {
			const headerOf = async () => {
				now += 10_000;
				await api(limited, '/api/v1/forms');
				const rejected = await api(limited, '/api/v1/forms'); // same instant: over the limit
				expect(rejected.status).toBe(429);
				return rejected.headers['retry-after'] as string | undefined;
			};
			expect(await headerOf()).toBe('1');
			limited.setChoices({ retryAfterS: 30 });
			expect(await headerOf()).toBe('30');
			limited.setChoices({ retryAfterS: null });
			expect(await headerOf()).toBeUndefined();
			limited.setFaults({ always: 429 });
			now += 10_000;
			const injected = await api(limited, '/api/v1/forms');
			expect([injected.status, injected.headers['retry-after'], injected.headers['x-ratelimit-limit']]).toEqual([429, undefined, '1']);
		} finally {
			await limited.close();
		}
	});
});

describe('values: the fields whose allowed values are not shown', () => {
	it('open (default): some rows carry values no document names; examples: only the usual ones', async () => {
		const open = await requestsRead();
		expect(open.some((r) => OPEN_STATUSES.includes(r.status))).toBe(true);
		expect(open.some((r) => OPEN_LEAD_STATUSES.includes(r.lead_status))).toBe(true);
		expect((await api(sb, '/api/v1/profiles')).data.items.some((p: { source: string }) => OPEN_PROFILE_SOURCES.includes(p.source))).toBe(true);
		const plain = await startSandbox({ rateLimit: false, choices: { values: 'examples' } });
		try {
			const requests = await requestsRead(plain);
			expect(new Set(requests.map((r) => r.status))).toEqual(new Set(['complete', 'pending', 'cancelled']));
			expect(requests.some((r) => OPEN_LEAD_STATUSES.includes(r.lead_status))).toBe(false);
			// the same seeded rows otherwise: only the values differ
			const openIds = new Set(open.map((r) => r.id));
			expect(requests).toHaveLength(260);
			expect(requests.every((r) => openIds.has(r.id))).toBe(true);
		} finally {
			await plain.close();
		}
	});
});

describe('completionTouchesSession: whether completing moves the session', () => {
	it('true (default, the trigger assumes it): updated_at moves; false: request_id set, updated_at kept', () => {
		const moved = sb.startSession();
		const touched = sb.completeSession(moved.id).session;
		expect(touched.updated_at).not.toBe(moved.created_at);
		sb.setChoices({ completionTouchesSession: false, commitLagMs: 0 });
		const kept = sb.startSession();
		const stamped = kept.updated_at;
		const { session, request } = sb.completeSession(kept.id);
		expect(session.request_id).toBe(request.id);
		expect(session.updated_at).toBe(stamped);
	});
});

describe('nullable fields: every "or null" field of the contract is null on some seeded row', () => {
	it('requests, sessions and forms', () => {
		const ws = sb.workspace();
		const nullSomewhere = <T>(rows: T[], fields: Array<keyof T>) => fields.filter((field) => !rows.some((row) => row[field] === null));
		expect(nullSomewhere(ws.requests, ['company', 'address_2', 'source', 'attribution', 'entrance_info', 'internal_notes', 'updated_at', 'completed_at'])).toEqual([]);
		expect(nullSomewhere(ws.sessions, ['attribution', 'source', 'request_id', 'created_at', 'updated_at'])).toEqual([]);
		expect(
			nullSomewhere(ws.forms, ['locations', 'service_template_id', 'service_area_id', 'service_schedule_id', 'settings_branding', 'settings_contact_form', 'settings_content', 'settings_general', 'created_at', 'updated_at']),
		).toEqual([]);
	});
});
