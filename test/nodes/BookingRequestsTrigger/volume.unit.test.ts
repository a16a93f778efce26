/**
 * The trigger at real volume, on the in-memory model with a call budget per poll (36 s of n8n's
 * durable poll scheduler ≈ 30 calls at 1 call/s): nothing lost, nothing twice, oldest first across
 * polls, every poll within its budget, and the state size. Prints one line per scenario.
 */
import { needsRequest } from '../../../nodes/BookingRequestsTrigger/output/itemFields';
import type { BookingSession } from '../../../nodes/shared/types';
import type { LogEntry, WorldPoll } from '../../support/triggerWorld';
import { MIN, Runner, World, iso, makeSettings } from '../../support/triggerWorld';
import { printFigures } from '../../support/figures';

jest.setTimeout(120_000);

const BUDGET = 30;

interface Drained {
	polls: number;
	maxCalls: number;
	calls: number;
	maxStateBytes: number;
}

function checkLog(log: LogEntry[]): void {
	const ids = log.map((entry) => entry.eventId);
	expect(ids.length - new Set(ids).size).toBe(0);
	for (let i = 1; i < log.length; i++) if (log[i].at < log[i - 1].at) throw new Error(`${log[i].eventId} came after a newer event`);
}

async function pollUntilQuiet(
	runner: Runner,
	budget: number,
	advance = 0,
	limit = 200,
	needsRequest?: (session: BookingSession) => boolean,
): Promise<Drained> {
	const drained: Drained = { polls: 0, maxCalls: 0, calls: 0, maxStateBytes: 0 };
	for (let i = 0; i < limit; i++) {
		const result: WorldPoll = await runner.poll({ budget, needsRequest });
		if (needsRequest) for (const event of result.events) if (event.session && needsRequest(event.session)) expect(event.request?.id).toBe(event.session.request_id);
		drained.polls++;
		drained.calls += result.totalCalls;
		drained.maxCalls = Math.max(drained.maxCalls, result.totalCalls);
		drained.maxStateBytes = Math.max(drained.maxStateBytes, JSON.stringify(runner.state).length);
		expect(result.totalCalls).toBeLessThanOrEqual(budget);
		if (!result.cut && result.events.length === 0) return drained;
		runner.world.advance(advance);
	}
	throw new Error('did not drain');
}

function line(label: string, expected: number, emitted: number, drained: Drained, budget = BUDGET) {
	printFigures(
		`[volume] ${label}: expected ${expected} events, emitted ${emitted}; ${drained.polls} polls, ${drained.calls} calls, ` +
			`max ${drained.maxCalls} calls/poll (budget ${budget}), max state ${drained.maxStateBytes} bytes`,
	);
}

test('10,000 customers active within one 30-minute delay, polled every minute: each abandonment once', async () => {
	const world = new World();
	const runner = new Runner(world, makeSettings({ events: { sessionCompleted: true, requestCreated: false } }));
	await runner.poll({ budget: BUDGET });
	const started: string[] = [];
	const stats: Drained = { polls: 0, maxCalls: 0, calls: 0, maxStateBytes: 0 };
	// 25 minutes of drafts (400 a minute), then 40 more minutes of polls.
	for (let minute = 0; minute < 65; minute++) {
		if (minute < 25) for (let i = 0; i < 400; i++) {
			world.advance(150);
			started.push(world.start().id);
		}
		else world.advance(MIN);
		const result = await runner.poll({ budget: BUDGET });
		stats.polls++;
		stats.calls += result.totalCalls;
		stats.maxCalls = Math.max(stats.maxCalls, result.totalCalls);
		stats.maxStateBytes = Math.max(stats.maxStateBytes, JSON.stringify(runner.state).length);
		expect(result.totalCalls).toBeLessThanOrEqual(BUDGET);
	}
	checkLog(runner.log);
	expect(runner.count('session.abandoned')).toBe(10_000);
	expect(new Set(runner.log.map((entry) => entry.id))).toEqual(new Set(started));
	line('10,000 drafts within one delay', 10_000, runner.log.length, stats);
});

test('a bulk import of 1,000 requests with one created_at, a budget of 6 calls a poll: drained from the bottom, each once', async () => {
	const world = new World();
	for (let i = 0; i < 200; i++) world.addRequest({ created_at: iso(world.now - (i + 1) * MIN) });
	const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } }));
	await runner.poll();
	world.advance(MIN);
	const at = iso(world.stamp());
	const imported = Array.from({ length: 1000 }, () => world.addRequest({ created_at: at }).id);
	world.advance(MIN);
	const after = world.addRequest().id;
	world.advance(MIN);
	const drained = await pollUntilQuiet(runner, 6);
	checkLog(runner.log);
	expect(runner.log.map((entry) => entry.id)).toEqual([...runner.log.slice(0, 1000).map((entry) => entry.id), after]);
	expect(new Set(runner.log.slice(0, 1000).map((entry) => entry.id))).toEqual(new Set(imported));
	expect(drained.polls).toBeGreaterThan(3);
	line('1,000-row tie', 1001, runner.log.length, drained, 6);
});

test('a backlog over five times the budget (3 hours down: requests, completions, abandonments): drained over polls, oldest first', async () => {
	const world = new World();
	const settings = makeSettings({ abandonedAfterMs: 30 * MIN });
	const runner = new Runner(world, settings);
	await runner.poll({ budget: BUDGET });
	// 3 hours while n8n was down: 6,000 sessions (1 in 3 completed) and 6,000 more requests.
	let completed = 0;
	let open = 0;
	for (let i = 0; i < 6000; i++) {
		world.advance(1800);
		const session = world.start();
		if (i % 3 === 0) {
			world.complete(session);
			completed++;
		} else open++;
		world.addRequest();
	}
	world.advance(31 * MIN);
	const drained = await pollUntilQuiet(runner, BUDGET, 10_000);
	checkLog(runner.log);
	expect(runner.count('request.created')).toBe(6000 + completed);
	expect(runner.count('session.completed')).toBe(completed);
	expect(runner.count('session.abandoned')).toBe(open);
	// 80 request pages, 60 session pages for the completions and 60 again for the horizon: at least
	// 200 page reads, over six budgets.
	expect(drained.calls).toBeGreaterThan(5 * BUDGET);
	expect(drained.polls).toBeGreaterThan(5);
	line('backlog of 3 h', 6000 + 2 * completed + open, runner.log.length, drained);
});

test('a backlog where one delay holds more sessions than a poll can read (the completions and the horizon drained apart)', async () => {
	const world = new World();
	const runner = new Runner(world, makeSettings({ abandonedAfterMs: 30 * MIN }));
	await runner.poll({ budget: 14 });
	// 2 hours down, 100 sessions a minute (30 pages per delay, a budget of 14 calls): 1 in 5 completed.
	let completed = 0;
	for (let i = 0; i < 12_000; i++) {
		world.advance(600);
		const session = world.start();
		if (i % 5 === 0) {
			world.complete(session);
			completed++;
		}
	}
	world.advance(31 * MIN);
	const drained = await pollUntilQuiet(runner, 14, 10_000, 400);
	checkLog(runner.log);
	expect(runner.count('session.completed')).toBe(completed);
	expect(runner.count('session.abandoned')).toBe(12_000 - completed);
	expect(runner.count('request.created')).toBe(completed);
	line('dense backlog (30 pages per delay, budget 14)', 12_000 + completed, runner.log.length, drained, 14);
});

/** A Session Completed trigger past its baseline, then 100 completions a second apart (each followed by `requestsAfter` direct requests). */
async function hundredCompletions(requestsAfter: number): Promise<{ runner: Runner; completions: string[] }> {
	const world = new World();
	const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, requestCreated: false } }));
	await runner.poll();
	world.advance(MIN);
	const completions = Array.from({ length: 100 }, () => {
		world.advance(1000);
		const session = world.start();
		world.complete(session);
		for (let i = 0; i < requestsAfter; i++) world.addRequest();
		return session.id;
	});
	world.advance(MIN);
	return { runner, completions };
}

test('Include Booking Request: 100 completions take their requests from one page of the request list, not 100 Gets', async () => {
	const { runner, completions } = await hundredCompletions(0);
	const result = await runner.poll({ budget: BUDGET, needsRequest: () => true });
	expect(result.events.map((event) => event.session!.id)).toEqual(completions);
	expect(result.events.every((event) => event.request && event.request.id === event.session!.request_id)).toBe(true);
	expect(result.calls.getRequest).toBe(0);
	expect(result.totalCalls).toBeLessThanOrEqual(4);
	printFigures(`[volume] Include Booking Request, 100 completions: ${result.totalCalls} calls (${result.pages.requests} request-list pages, ${result.calls.getRequest} Gets)`);
});

test('Include Booking Request where Get request is needed (completions far apart in the request list): cut at an event, the rest in order in the next polls', async () => {
	// each completion has 150 direct requests after it: one per page of the request list, where reading
	// the list costs as much as Get request
	const { runner, completions } = await hundredCompletions(150);
	const polls: number[] = [];
	for (let i = 0; i < 20; i++) {
		const result = await runner.poll({ budget: BUDGET, needsRequest: () => true });
		expect(result.totalCalls).toBeLessThanOrEqual(BUDGET);
		expect(result.events.every((event) => event.request && event.request.id === event.session!.request_id)).toBe(true);
		polls.push(result.events.length);
		if (result.events.length === 0) break;
	}
	checkLog(runner.log);
	expect(runner.log.map((entry) => entry.id)).toEqual(completions);
	expect(polls.filter((count) => count > 0).length).toBeGreaterThanOrEqual(4);
	printFigures(`[volume] Include Booking Request, 100 completions 150 requests apart, budget ${BUDGET}: events per poll ${polls.join(', ')}`);
});

test('6,000 bookings made without a draft (Simplify needs each one\'s contact): drained from the request list in pages', async () => {
	const world = new World();
	for (let i = 0; i < 3_000; i++) world.addRequest({ created_at: iso(world.now - (3_000 - i) * 1000) });
	const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, requestCreated: false } }));
	await runner.poll();
	world.advance(MIN);
	const placeholders: string[] = [];
	for (let i = 0; i < 6_000; i++) {
		world.advance(500);
		placeholders.push(world.bookWithoutDraft().session.id);
		if (i % 3 === 0) world.addRequest(); // and some requests of other kinds in between
	}
	world.advance(MIN);
	const simplify = (session: BookingSession) => needsRequest(session, { simplify: true, includeRequest: false });
	const drained = await pollUntilQuiet(runner, BUDGET, MIN, 200, simplify);
	checkLog(runner.log);
	expect(runner.log.map((entry) => entry.id)).toEqual(placeholders);
	// One Get each would take 6,000 calls (200 polls of 30); list pages hold ~75 of them each.
	expect(drained.calls).toBeLessThan(6_000 / 15);
	expect(drained.polls).toBeLessThanOrEqual(15);
	line('6,000 bookings without a draft (Simplify)', 6_000, runner.log.length, drained);
});
