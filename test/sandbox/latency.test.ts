// The sandbox's network latency (option `latencyMs`, `setLatency`, the control API, the CLI's
// --latency): applied BEFORE the rate check, so a client's round trip includes it and the rate check
// (and the log's `at`) sees each request when it "arrives". Unlike faults.latencyMs, an answer delay
// after the check (faults.test.ts). A busy machine only makes round trips longer: the checks over
// HTTP are lower bounds and orders of events; the drawn delays themselves are checked on NetworkLatency.

import { spawn } from 'node:child_process';
import path from 'node:path';

import axios from 'axios';

import { normaliseLatency, startSandbox, type Sandbox } from '../../sandbox/index';
import { NetworkLatency } from '../../sandbox/faults';
import { api, control, sleep } from './helpers';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ latencyMs: 200 });
});
afterAll(() => sb.close());
beforeEach(async () => {
	sb.setLatency(200);
	sb.setFaults({});
	await sleep(1100);
	sb.clearLog();
});

async function timed(key = sb.keys.demo): Promise<{ status: number; sentAt: number; ms: number }> {
	const sentAt = performance.timeOrigin + performance.now();
	const r = await api(sb, '/api/v1/forms', { key });
	return { status: r.status, sentAt, ms: performance.timeOrigin + performance.now() - sentAt };
}

describe('network latency before the rate check', () => {
	it('startSandbox({ latencyMs }): the round trip includes it and the log has the arrival time', async () => {
		expect(sb.latency()).toEqual([200, 200]);
		const { status, sentAt, ms } = await timed();
		expect(status).toBe(200);
		expect(ms).toBeGreaterThanOrEqual(199);
		// Logged when it arrived: 200 ms after it was sent, before the answer came back.
		expect(sb.log[0].at - sentAt).toBeGreaterThanOrEqual(199);
		expect(sb.log[0].at).toBeLessThanOrEqual(sentAt + ms);
	});

	it('the rate check sees arrival times: a request that spent 1.5 s on its way arrives 1.5 s after it was sent, and is judged then', async () => {
		sb.setLatency(1500);
		const first = await timed();
		sb.setLatency(0);
		const second = await timed();
		// Sent at least 1.5 s apart, but the first arrived only 1.5 s after it was sent: the log's arrival
		// times, which the check compares, are after the latency (were the latency after the check, the
		// first would be logged when it was sent).
		expect(second.sentAt - first.sentAt).toBeGreaterThanOrEqual(1499);
		expect(sb.log[0].at - first.sentAt).toBeGreaterThanOrEqual(1499);
		expect(sb.log[1].at).toBeGreaterThanOrEqual(second.sentAt);
		// each answer is the rule applied to those arrival times (on a quiet machine the second arrives
		// within the second after the first and gets 429; a busy one only spaces them more)
		const rule = sb.log[1].at - sb.log[0].at >= 1000 ? 200 : 429;
		expect([first.status, second.status]).toEqual([200, rule]);
		expect(sb.log.map((entry) => entry.status)).toEqual([200, rule]);
	});

	it('a range [min, max]: each request gets a delay drawn within it', async () => {
		sb.setLatency([80, 160]);
		expect(sb.latency()).toEqual([80, 160]);
		const expected = new NetworkLatency(42, [80, 160]);
		const draws = Array.from({ length: 6 }, () => expected.next());
		const rtts: number[] = [];
		for (let i = 0; i < 6; i++) {
			rtts.push((await timed(i % 2 === 0 ? sb.keys.demo : sb.keys.second)).ms);
			await sleep(600);
		}
		// the sandbox (seed 42) drew these delays: each round trip took at least its own
		expect(draws.every((ms) => ms >= 80 && ms <= 160)).toBe(true);
		expect(new Set(draws).size).toBeGreaterThan(1);
		rtts.forEach((rtt, i) => expect(rtt).toBeGreaterThanOrEqual(draws[i] - 1));
	});

	it('each setLatency starts the draws again from the seed: two runs on one jittery route see the same delays (the bench compares two nodes so)', () => {
		const network = new NetworkLatency(42, [80, 320]);
		const draws = () => Array.from({ length: 8 }, () => network.next());
		const first = draws();
		network.set([80, 320]);
		expect(draws()).toEqual(first);
		expect(new Set(first).size).toBeGreaterThan(1);
		expect(first.every((ms) => ms >= 80 && ms <= 320)).toBe(true);
		// Another seed, another route.
		expect(new NetworkLatency(43, [80, 320]).next()).not.toBe(first[0]);
	});

	it('setLatency(null) or 0 removes it; invalid values are refused', async () => {
		sb.setLatency(null);
		expect(sb.latency()).toBeNull();
		expect((await timed()).status).toBe(200);
		expect(new NetworkLatency(42, null).next()).toBe(0);
		sb.setLatency(0);
		expect(sb.latency()).toBeNull();
		expect(() => sb.setLatency(-1)).toThrow();
		expect(() => sb.setLatency([300, 100])).toThrow();
		expect(() => sb.setLatency([1, 2, 3] as unknown as [number, number])).toThrow();
		expect(normaliseLatency(250)).toEqual([250, 250]);
		expect(normaliseLatency([80, 320])).toEqual([80, 320]);
	});

	it('control API: GET/POST /__sandbox/latency, and /__sandbox/info shows it', async () => {
		expect((await control(sb, 'GET', '/__sandbox/latency')).data).toEqual({ latencyMs: [200, 200] });
		expect((await control(sb, 'POST', '/__sandbox/latency', { latencyMs: 250 })).data).toEqual({ latencyMs: [250, 250] });
		expect((await control(sb, 'POST', '/__sandbox/latency', { latencyMs: [80, 320] })).data).toEqual({ latencyMs: [80, 320] });
		expect((await control(sb, 'GET', '/__sandbox/info')).data.latencyMs).toEqual([80, 320]);
		const bad = await control(sb, 'POST', '/__sandbox/latency', { latencyMs: [320, 80] });
		expect(bad.status).toBe(400);
		expect(bad.data.error).toBe('invalid_request');
		expect((await control(sb, 'POST', '/__sandbox/latency', {})).status).toBe(400);
		expect((await control(sb, 'POST', '/__sandbox/latency', { latencyMs: null })).data).toEqual({ latencyMs: null });
		// Control routes themselves are never delayed: one sent after an API call on a 10-minute route
		// answers while the API call is still on its way (not logged yet), however slow the machine.
		sb.setLatency(600_000);
		const delayed = api(sb, '/api/v1/forms').catch(() => undefined); // axios gives up after 10 s
		expect((await control(sb, 'GET', '/__sandbox/info')).status).toBe(200);
		expect(sb.log).toHaveLength(0);
		sb.setLatency(200);
		void delayed;
	});

	it('faults.latencyMs (an answer delay after the rate check) still works alongside', async () => {
		sb.setLatency(100);
		sb.setFaults({ latencyMs: [150, 150] });
		const { ms, sentAt } = await timed();
		expect(ms).toBeGreaterThanOrEqual(249);
		// Arrival is after the network latency; the answer delay comes after the check.
		expect(sb.log[0].at - sentAt).toBeGreaterThanOrEqual(99);
		expect(sentAt + ms - sb.log[0].at).toBeGreaterThanOrEqual(149);
	});
});

describe('cli --latency', () => {
	it.each([
		['250', '250 ms'],
		['80-320', '80-320 ms'],
	])('--latency %s', async (value, shown) => {
		const root = path.resolve(__dirname, '..', '..');
		const child = spawn(process.execPath, [path.join(root, 'sandbox', 'cli.js'), '--port', '0', '--latency', value], {
			cwd: root,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		child.stdout.on('data', (d: Buffer) => (out += d.toString()));
		child.stderr.on('data', (d: Buffer) => (out += d.toString()));
		const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
		try {
			// until it prints (or exits): jest's timeout bounds the wait, no deadline of our own
			while (!/Press Ctrl\+C/.test(out) && child.exitCode === null) await sleep(50);
			expect(out).toContain(`latency:        ${shown} before the rate check`);
			const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
			const info = await axios.get(`${url}/__sandbox/info`);
			expect(info.data.latencyMs).toEqual(value.includes('-') ? value.split('-').map(Number) : [Number(value), Number(value)]);
		} finally {
			child.kill('SIGINT');
		}
		expect(await exited).toBe(0);
	});

	it('a bad --latency is refused with the usage', async () => {
		const root = path.resolve(__dirname, '..', '..');
		const child = spawn(process.execPath, [path.join(root, 'sandbox', 'cli.js'), '--port', '0', '--latency', '320-80'], { cwd: root });
		let err = '';
		child.stderr.on('data', (d: Buffer) => (err += d.toString()));
		const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
		expect(code).toBe(2);
		expect(err).toMatch(/--latency needs MS or MIN-MAX/);
	});
});
