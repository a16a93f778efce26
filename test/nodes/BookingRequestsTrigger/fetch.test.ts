/**
 * The poll loop over HTTP (fetch.ts with the shared page reader, limiter and deadlines) on a stub of
 * n8n's request helper: the wall-clock budget, a poll cut short by its deadline, and the pace estimate.
 */
import { NodeApiError } from 'n8n-workflow';

import { CallBudget } from '../../../nodes/BookingRequestsTrigger/poll/budget';
import { apiSource } from '../../../nodes/BookingRequestsTrigger/poll/source';
import { setPacingGapForTests } from '../../../harness/limiterSettings';
import { MIN_ATTEMPT_MS } from '../../../nodes/shared/transport/deadline';
import type { BookingRequest } from '../../../nodes/shared/types';
import { stubListServer } from '../../support/stubList';
import { MIN, T0, iso, makeRequest, makeSettings, pollState } from '../../support/triggerWorld';

jest.setTimeout(60_000);

beforeAll(() => setPacingGapForTests(200));
afterAll(() => setPacingGapForTests(1015));

describe('CallBudget', () => {
	it('before two answers it assumes the contract pace (1 call per second); then it uses the measured pace', () => {
		let now = 0;
		const budget = new CallBudget(30_000, () => now);
		expect(budget.left()).toBe(27); // (29 s − one call's 1.01 s of headroom) ÷ 1.01 s (30 s − 1 s for the last call)
		budget.answered();
		now = 100;
		budget.answered();
		now = 200;
		budget.answered();
		expect(budget.perCallMs).toBe(100);
		expect(budget.left()).toBe(287); // (28.8 s − 0.1 s) ÷ 0.1 s
		now = 29_000;
		expect(budget.left()).toBe(1);
		now = 29_001;
		expect(budget.left()).toBe(0);
	});
});

describe('pollChanges over HTTP', () => {
	const settings = makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } });

	it('a poll cut short by its deadline emits the oldest events that are complete and the next poll goes on from there', async () => {
		let now = T0;
		const requests: BookingRequest[] = Array.from({ length: 50 }, (_, i) => makeRequest({ created_at: iso(T0 - (i + 1) * MIN) }));
		const sorted = () => [...requests].sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
		const { ctx, calls } = stubListServer(sorted, { date: () => now });
		const baseline = await pollState(apiSource(ctx, undefined), undefined, settings, { budget: new CallBudget(Date.now() + 60_000), localNow: () => now });
		now += MIN;
		for (let i = 0; i < 1200; i++) requests.push(makeRequest({ created_at: iso(T0 + 1000 + i * 10) }));
		now += MIN;
		// About 3 s: the calls that can still finish before the deadline, then the rest waits.
		const deadline = Date.now() + 3_000;
		calls.length = 0;
		const first = await pollState(apiSource(ctx, undefined, { deadline }), baseline.state, settings, { budget: new CallBudget(deadline), localNow: () => now });
		// Within the deadline, counted in calls (a busy machine makes fewer, never more): one every 200 ms
		// until MIN_ATTEMPT_MS before it, at most 11; page 1 and the 13 pages would need 14.
		expect(calls.length).toBeLessThanOrEqual(Math.floor((3_000 - MIN_ATTEMPT_MS) / 200) + 1);
		expect(first.cut).toBe(true);
		expect(first.events.length).toBeGreaterThan(0);
		expect(first.events.length).toBeLessThan(1200);
		// The oldest first: exactly the first n of the 1,200, in order.
		const created = requests.slice(50).map((request) => `request.created:${request.id}`);
		expect(first.events.map((event) => event.eventId)).toEqual(created.slice(0, first.events.length));
		// The next polls, with time enough, go on from there.
		const seen = [...first.events.map((event) => event.eventId)];
		let state = first.state;
		for (let i = 0; i < 5; i++) {
			const next = await pollState(apiSource(ctx, undefined), state, settings, { budget: new CallBudget(Date.now() + 60_000), localNow: () => now });
			seen.push(...next.events.map((event) => event.eventId));
			state = next.state;
			if (!next.cut) break;
		}
		expect(seen).toEqual(created);
	});

	it('nothing read before the deadline: no events and no new state (the stored state stays)', async () => {
		const { ctx } = stubListServer(() => [makeRequest()], { date: () => T0 });
		const result = await pollState(apiSource(ctx, undefined, { deadline: Date.now() + 500 }), undefined, settings, { budget: new CallBudget(Date.now() + 500) });
		expect(result).toMatchObject({ events: [], state: undefined, cut: true });
	});

	it('a server that ignores "page" (page 2 repeats page 1) fails the poll clearly instead of reading for ever', async () => {
		const requests: BookingRequest[] = Array.from({ length: 300 }, (_, i) => makeRequest({ created_at: iso(T0 + 10 * MIN - i * 1000) }));
		const { ctx } = stubListServer(() => requests, {
			date: () => T0 + 20 * MIN,
			answer: (_call, _items, total) => ({ items: requests.slice(0, 100), pagination: { page: 1, per_page: 100, total } }),
		});
		const state = {
			v: 3 as const,
			fp: settings.fingerprint,
			since: T0,
			polledAt: T0,
			skewMs: 0,
			requests: { floor: T0, done: {} },
		};
		const error = await pollState(apiSource(ctx, undefined), state, settings, { budget: new CallBudget(Date.now() + 30_000) }).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as Error).message).toMatch(/page 2 of \/api\/v1\/requests repeated only items of earlier pages; the server may ignore the "page" parameter/);
	});
});
