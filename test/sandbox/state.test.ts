// A sandbox that keeps its data and clock between runs (SandboxOptions.stateFile, the demo's): the
// next run goes on with the same world, never makes an id twice (a published trigger remembers the
// sessions it reported, a CRM table is keyed on request ids), and its clock never goes back.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startSandbox, type BookingRequest, type Sandbox, type Session } from '../../sandbox/index';
import { readSandboxState, resumedOffsetMs } from '../../sandbox/state';
import { api, control } from './helpers';

let dir: string;
beforeEach(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-state-'));
});
afterEach(() => {
	fs.rmSync(dir, { recursive: true, force: true });
});

const open = (stateFile: string) => startSandbox({ rateLimit: false, recent: true, stateFile });
const SAM = { contact: { firstname: 'Sam', lastname: 'Lee', email: 'sam@example.com' } };

/** What a run of the demo makes through the control routes: an abandon, a booking, a request. */
async function activity(sb: Sandbox): Promise<{ session: Session; requests: BookingRequest[] }> {
	const abandoned = await control(sb, 'POST', '/__sandbox/abandon', SAM);
	const booked = await control(sb, 'POST', '/__sandbox/bookings', SAM);
	const created = await control(sb, 'POST', '/__sandbox/requests', { first_name: 'Ada', status: 'pending' });
	for (const res of [abandoned, booked, created]) expect(res.status).toBe(200);
	return { session: abandoned.data.session as Session, requests: [booked.data.request as BookingRequest, created.data as BookingRequest] };
}

/** Every id of a workspace's rows. */
const idsOf = (sb: Sandbox) => new Set([...sb.workspace().requests, ...sb.workspace().sessions].map((row) => row.id));

test('a second run goes on with the first run\'s data, and what it makes has ids the first never made', async () => {
	const file = path.join(dir, 'sandbox.json');
	const first = await open(file);
	const made = await activity(first);
	await control(first, 'POST', '/__sandbox/keys/revoke', { key: first.keys.second });
	const world = JSON.parse(JSON.stringify(first.workspace())) as ReturnType<Sandbox['workspace']>;
	const before = idsOf(first);
	await first.close();

	const second = await open(file);
	try {
		expect(second.workspace()).toEqual(world);
		expect((await api(second, '/api/v1/requests', { key: second.keys.second })).status).toBe(401);
		const again = await activity(second);
		for (const row of [again.session, ...again.requests]) expect(before.has(row.id)).toBe(false);
		expect(again.session.data.contact?.phone).not.toBe(made.session.data.contact?.phone);
	} finally {
		await second.close();
	}
});

test('the check has teeth: without the state a new sandbox makes the first run\'s ids again', async () => {
	const first = await open(path.join(dir, 'first.json'));
	const again = await open(path.join(dir, 'again.json'));
	try {
		const [a, b] = [await activity(first), await activity(again)];
		expect(b.session.id).toBe(a.session.id);
		expect(b.requests.map((r) => r.id)).toEqual(a.requests.map((r) => r.id));
	} finally {
		await Promise.all([first.close(), again.close()]);
	}
});

test('a change is in the file once its answer is back, even if the sandbox is never closed', async () => {
	const file = path.join(dir, 'sandbox.json');
	const first = await open(file);
	try {
		const { session } = await activity(first);
		expect(readSandboxState(file)?.store.demo.sessions.map((s) => s.id)).toContain(session.id);
		const second = await open(file); // as after a kill: the first still runs, never closed
		try {
			expect(second.workspace().sessions.map((s) => s.id)).toContain(session.id);
		} finally {
			await second.close();
		}
	} finally {
		await first.close();
	}
});

test('the clock: a clock moved ahead goes on from where it was, never behind; one on real time stays there', async () => {
	const file = path.join(dir, 'sandbox.json');
	const first = await open(file);
	await control(first, 'POST', '/__sandbox/clock', { advanceMs: 30 * 60_000 });
	const lastRead = ((await control(first, 'GET', '/__sandbox/clock')).data as { now: number }).now;
	await first.close();
	const second = await open(file);
	try {
		expect(second.clock.now()).toBeGreaterThanOrEqual(lastRead);
		expect(second.clock.now() - Date.now()).toBeGreaterThan(29 * 60_000);
	} finally {
		await second.close();
	}
	const saved = readSandboxState(file)!;
	// stopped for longer than it was ahead: real time again
	expect(resumedOffsetMs(saved, saved.now + 60_000)).toBe(0);
	expect(resumedOffsetMs(saved, saved.now - 10 * 60_000)).toBe(10 * 60_000);
});

test('a file that is not a sandbox state is refused, not taken for a fresh start', async () => {
	const file = path.join(dir, 'sandbox.json');
	fs.writeFileSync(file, '{"format": 99}');
	await expect(open(file)).rejects.toThrow(`${file} is not a sandbox state this version can read (format 1): remove it to start the sandbox afresh`);
	fs.writeFileSync(file, '{"format": 1, "now":');
	await expect(open(file)).rejects.toThrow('is not a sandbox state');
});
