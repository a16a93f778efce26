// What a new user meets in the sandbox in their first hour with the demo (issue 40, "the first
// hour"): the control routes make what docs/sandbox.md says, and nothing more.

import { startSandbox, type BookingRequest, type Sandbox, type Session } from '../../sandbox/index';
import { control, pageAll } from './helpers';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false, recent: true });
});
afterAll(() => sb.close());

describe('POST /__sandbox/requests', () => {
	const ada = { first_name: 'Ada', last_name: 'Moss', email: 'ada@example.com' };

	it('a pending or cancelled request has no completed_at (Request Updated would show a completion in `previous`)', async () => {
		for (const status of ['pending', 'cancelled']) {
			const res = await control(sb, 'POST', '/__sandbox/requests', { ...ada, status });
			expect(res.status).toBe(200);
			expect(res.data).toMatchObject({ ...ada, status, completed_at: null });
		}
	});

	it('a request without a status is a fresh submission: complete, with its completion', async () => {
		const res = await control(sb, 'POST', '/__sandbox/requests', ada);
		const request = res.data as BookingRequest;
		expect(request.status).toBe('complete');
		expect(Date.parse(request.completed_at as string)).toBeGreaterThanOrEqual(Date.parse(request.created_at as string));
	});

	it('a completion the caller gives is kept, whatever the status', async () => {
		const completedAt = '2026-03-01T10:00:00.000Z';
		const res = await control(sb, 'POST', '/__sandbox/requests', { ...ada, status: 'pending', completed_at: completedAt });
		expect(res.data).toMatchObject({ status: 'pending', completed_at: completedAt });
	});
});

describe('the demo data (recent): the sessions of the last 7 days, as a weekly funnel report reads them', () => {
	it('three in four have a utm_source, from several sources: the report has rows per source, not only "(none)"', async () => {
		const { items } = await pageAll<Session>(sb, '/api/v1/abandoned-sessions', 100);
		const week = items.filter((s) => s.updated_at !== null && Date.parse(s.updated_at) >= sb.clock.now() - 7 * 86_400_000);
		expect(week.length).toBeGreaterThanOrEqual(12);
		const sources = week.map((s) => (s.attribution as Record<string, string> | null)?.utm_source ?? null);
		const withSource = sources.filter((source) => source !== null);
		expect(withSource.length / week.length).toBeGreaterThanOrEqual(0.7);
		expect(withSource.length).toBeLessThan(week.length); // a "(none)" row too, as in life
		expect(new Set(withSource).size).toBeGreaterThanOrEqual(3);
		// completed and abandoned sessions both carry sources: conversion by source means something
		expect(week.some((s, i) => s.request_id !== null && sources[i] !== null)).toBe(true);
		expect(week.some((s, i) => s.request_id === null && sources[i] !== null)).toBe(true);
	});

	it('older sessions are as seeded (the sources come from no random draw)', async () => {
		const fixed = await startSandbox({ rateLimit: false });
		try {
			const shifted = sb.workspace().sessions.filter((s) => s.updated_at !== null && Date.parse(s.updated_at) < sb.clock.now() - 8 * 86_400_000);
			const ids = new Set(shifted.map((s) => s.id));
			const original = fixed.workspace().sessions.filter((s) => ids.has(s.id));
			expect(shifted.length).toBeGreaterThan(250);
			expect(original.length).toBe(shifted.length);
			expect(shifted.map((s) => s.attribution)).toEqual(original.map((s) => s.attribution));
		} finally {
			await fixed.close();
		}
	});
});

describe('POST /__sandbox/abandon and the sandbox clock', () => {
	it('by default the clock stays on real time and the answer says the draft is idle from now on; idleMinutes moves it on, and says so', async () => {
		const offset = async () => ((await control(sb, 'GET', '/__sandbox/clock')).data as { offsetMs: number }).offsetMs;
		expect(await offset()).toBe(0);
		const first = await control(sb, 'POST', '/__sandbox/abandon', { contact: { firstname: 'Sam', lastname: 'Lee', email: 'sam@example.com' } });
		expect(first.data).toMatchObject({ offsetMs: 0 });
		expect(first.data.clock).toBe(
			"the draft is idle from now on: a published trigger reports it at its first check once its Abandoned After has passed; the sandbox's clock did not move and is on real time",
		);
		// the draft is stamped at real time (within the commit lag of the unkind default)
		const stamped = Date.parse((first.data.session as Session).updated_at as string);
		expect(stamped).toBeLessThanOrEqual(Date.now());
		expect(stamped).toBeGreaterThan(Date.now() - 60_000);
		const moved = await control(sb, 'POST', '/__sandbox/abandon', { idleMinutes: 61 });
		expect(moved.data.offsetMs).toBe(61 * 60_000);
		expect(moved.data.clock).toBe(
			"the sandbox's clock moved on 61 minutes, so the draft is already 61 minutes idle; the clock is now 61 minutes ahead of real time, and every new timestamp of the sandbox follows it",
		);
		const still = await control(sb, 'POST', '/__sandbox/abandon', {});
		expect(still.data.clock).toMatch(/the sandbox's clock did not move and is 61 minutes ahead of real time$/);
		await control(sb, 'POST', '/__sandbox/requests', { first_name: 'Ada' });
		await control(sb, 'POST', '/__sandbox/sessions/newest/complete');
		await control(sb, 'POST', '/__sandbox/bookings', { first_name: 'Max' });
		await control(sb, 'POST', '/__sandbox/sessions', { first_name: 'Kim' });
		await control(sb, 'POST', '/__sandbox/requests/newest/update', { status: 'complete' });
		expect(await offset()).toBe(61 * 60_000);
	});
});
