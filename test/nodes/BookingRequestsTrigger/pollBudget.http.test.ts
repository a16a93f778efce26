/**
 * n8n's poll budget at the real 1 s limit (`npm run test:costs`, in band, not in `npm test`): a poll's
 * duration is measured against its budget, so the machine must not be shared with parallel test
 * workers. The trigger in n8n-core's real PollContext against the sandbox, as in
 * BookingRequestsTrigger.node.test.ts (whose other poll-budget tests assert no durations).
 */
import type { IDataObject } from 'n8n-workflow';

import type { Harness } from '../../../harness/inProcessN8n';
import type { Sandbox } from '../../../sandbox';
import { withSandbox } from '../../support/sandboxSuite';
import { TriggerRun } from './trigger';
import { printFigures } from '../../support/figures';

jest.setTimeout(300_000);

const MIN = 60_000;
const requestId = (id: string) => `request.created:${id}`;

let sandbox: Sandbox;
let harness: Harness;
withSandbox({}, (s, h) => {
	sandbox = s;
	harness = h;
});
// The real limit (1 request per second per key) was on: our pacing never hit it.
afterEach(() => expect(sandbox.stats().rateLimited).toBe(0));

describe("n8n's poll budget (real 1 s limit)", () => {
	test('a backlog larger than one poll: each poll ends its calls within the budget, emits the oldest events it completed, the next ones go on; each once, in order', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['requestCreated'] });
		await run.poll();
		sandbox.clock.advance(MIN);
		// 5 ms apart, each stamped up to 2 s before it is visible (the sandbox's late commits): the events
		// come in the order of their created_at, not of their creation.
		const createdAt = new Map<string, number>();
		const created = Array.from({ length: 1200 }, () => {
			sandbox.clock.advance(5);
			const request = sandbox.addRequest();
			createdAt.set(requestId(request.id), Date.parse(request.created_at));
			return requestId(request.id);
		});
		sandbox.clock.advance(MIN);
		const budgetMs = 10_000;
		const emitted: string[] = [];
		const durations: number[] = [];
		for (let i = 0; i < 10; i++) {
			const started = performance.now();
			const outcome = await run.poll('trigger', { budgetMs });
			durations.push(performance.now() - started);
			emitted.push(...(outcome.items ?? []).map((item) => String(item.event_id)));
			if (emitted.length === created.length && outcome.calls === 1) break;
		}
		expect([...emitted].sort()).toEqual([...created].sort());
		for (let i = 1; i < emitted.length; i++) expect(createdAt.get(emitted[i])).toBeGreaterThanOrEqual(createdAt.get(emitted[i - 1]) as number);
		expect(Math.max(...durations)).toBeLessThan(budgetMs);
		expect(durations.length).toBeGreaterThanOrEqual(3);
		printFigures(`[budget] 1,200 requests under a 10 s budget at 1 call/s: ${durations.length} polls, longest ${(Math.max(...durations) / 1000).toFixed(1)} s`);
	});

	test('800 bookings made without a draft, Simplify on: their contacts come from pages of the request list, not 800 Gets', async () => {
		const run = new TriggerRun(harness, sandbox, { events: ['sessionCompleted'], simplify: true });
		await run.poll();
		sandbox.clock.advance(MIN);
		const booked = Array.from({ length: 800 }, () => {
			sandbox.clock.advance(5);
			return sandbox.bookWithoutDraft();
		});
		sandbox.clock.advance(MIN);
		// n8n's durable-scheduler budget (36 s; 24 s before): the margin a busy machine needs for a poll to
		// complete the windows it starts (with 24 s, 8 polls emitted nothing on a loaded machine)
		const budgetMs = 36_000;
		const items: IDataObject[] = [];
		const durations: number[] = [];
		let gets = 0;
		for (let i = 0; i < 8 && items.length < booked.length; i++) {
			const started = performance.now();
			const outcome = await run.poll('trigger', { budgetMs });
			durations.push(performance.now() - started);
			gets += outcome.byPath['/api/v1/requests/{id}'] ?? 0;
			items.push(...(outcome.items ?? []));
		}
		// In the order of the sessions' updated_at (stamped up to 2 s before visible: not the order of booking).
		const byId = new Map(booked.map((booking) => [booking.session.id, booking]));
		expect(items.map((item) => item.session_id).sort()).toEqual([...byId.keys()].sort());
		for (const item of items) {
			const { request } = byId.get(String(item.session_id)) as (typeof booked)[number];
			expect(item).toMatchObject({ request_id: request.id, email: request.email, first_name: request.first_name });
		}
		const updatedAt = items.map((item) => Date.parse(String((byId.get(String(item.session_id)) as (typeof booked)[number]).session.updated_at)));
		for (let i = 1; i < updatedAt.length; i++) expect(updatedAt[i]).toBeGreaterThanOrEqual(updatedAt[i - 1]);
		expect(Math.max(...durations)).toBeLessThan(budgetMs);
		// one Get each would need 800 calls: about 25 polls of this budget
		expect(durations.length).toBeLessThanOrEqual(5);
		printFigures(
			`[budget] 800 bookings without a draft under a ${budgetMs / 1000} s budget at 1 call/s: ${durations.length} polls, longest ${(Math.max(...durations) / 1000).toFixed(1)} s, ${gets} Get requests`,
		);
	});

});
