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
	it('the answer says the clock moved on and how far ahead of real time it is; other routes leave the clock alone', async () => {
		const offset = async () => ((await control(sb, 'GET', '/__sandbox/clock')).data as { offsetMs: number }).offsetMs;
		const before = await offset();
		const first = await control(sb, 'POST', '/__sandbox/abandon', { contact: { firstname: 'Sam', lastname: 'Lee', email: 'sam@example.com' } });
		expect(first.data).toMatchObject({ offsetMs: before + 61 * 60_000 });
		expect(first.data.clock).toBe(
			`the sandbox's clock moved on 61 minutes (so that a published trigger sees the draft idle) and is now ${Math.round(before / 60_000) + 61} minutes ahead of real time; every new timestamp of the sandbox follows it`,
		);
		const second = await control(sb, 'POST', '/__sandbox/abandon', { idleMinutes: 0 });
		expect(second.data.offsetMs).toBe(before + 61 * 60_000);
		expect(second.data.clock).toMatch(/moved on 0 minutes .* now \d+ minutes ahead of real time/);
		await control(sb, 'POST', '/__sandbox/requests', { first_name: 'Ada' });
		await control(sb, 'POST', '/__sandbox/sessions/newest/complete');
		await control(sb, 'POST', '/__sandbox/bookings', { first_name: 'Max' });
		await control(sb, 'POST', '/__sandbox/sessions', { first_name: 'Kim' });
		await control(sb, 'POST', '/__sandbox/requests/newest/update', { status: 'complete' });
		expect(await offset()).toBe(before + 61 * 60_000);
	});
});
