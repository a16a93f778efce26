/**
 * A backlog shape (backlogShapes.ts) played on the sandbox and drained by the trigger in n8n-core's
 * real PollContext: the cost test over HTTP (costs.http.test.ts) and the bench's shape rows
 * (bench/triggerRows.ts) run this one loop. The sandbox's request log counts the calls and names the
 * pages each poll read.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../sandbox';
import type { BacklogShape, BacklogWorld } from './backlogShapes';
import { createHarness } from './inProcessN8n';
import type { PollState } from './inProcessN8n';

const MIN = 60_000;

export function sandboxWorld(sandbox: Sandbox): BacklogWorld {
	return {
		advance: (ms) => sandbox.clock.advance(ms),
		draft: (customer) => sandbox.startSession({ contact: { email: customer.email, phone: customer.phone } }).id,
		book: (id) => void sandbox.completeSession(id),
		direct: (customer) => void sandbox.addRequest({ email: customer.email, phone: customer.phone }),
	};
}

export interface DrainPoll {
	calls: number;
	events: number;
	seconds: number;
	/** Pages in the order read: `r12` is page 12 of the request list, `s3` page 3 of the session list. */
	reads: string[];
}

export interface HttpDrain {
	/** Every poll after the backlog, the last one quiet (nothing emitted). */
	polls: DrainPoll[];
	emitted: IDataObject[];
	/** Calls of the drain (the quiet poll after it not counted). */
	calls: number;
	stateBytes: number;
}

/** Activates the trigger (its baseline poll), plays the shape, then polls a minute apart until a poll emits nothing. */
export async function drainOverHttp(sandbox: Sandbox, shape: BacklogShape, budgetMs: number): Promise<HttpDrain> {
	const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
	const parameters = {
		events: ['sessionAbandoned', 'sessionCompleted', 'requestCreated'],
		abandonedAfterMinutes: shape.abandonedAfterMinutes,
		skipIfBooked: true,
		simplify: false,
	};
	const state: PollState = { staticData: {} };
	await harness.poll(parameters, state, 'trigger', { budgetMs, typeVersion: 1.1 });
	shape.build(sandboxWorld(sandbox));
	sandbox.clearLog();
	const drain: HttpDrain = { polls: [], emitted: [], calls: 0, stateBytes: 0 };
	for (let i = 0; i < 200; i++) {
		const before = sandbox.log.length;
		const started = performance.now();
		const result = await harness.poll(parameters, state, 'trigger', { budgetMs, typeVersion: 1.1 });
		const seconds = (performance.now() - started) / 1000;
		state.staticData = JSON.parse(JSON.stringify(state.staticData)) as IDataObject;
		drain.stateBytes = Math.max(drain.stateBytes, JSON.stringify(state.staticData).length);
		const items = result ? result[0].map((item) => item.json) : [];
		drain.emitted.push(...items);
		const reads = sandbox.log.slice(before).map((entry) => `${entry.path.includes('session') ? 's' : 'r'}${entry.query.page ?? ''}`);
		drain.polls.push({ calls: sandbox.log.length - before, events: items.length, seconds, reads });
		if (items.length === 0) {
			drain.calls = drain.polls.slice(0, -1).reduce((sum, poll) => sum + poll.calls, 0);
			return drain;
		}
		sandbox.clock.advance(MIN);
	}
	throw new Error(`${shape.name}: not drained in 200 polls`);
}

/** Event time of an emitted item (Session Abandoned: its `updated_at` plus the delay). */
export function eventTime(item: IDataObject, delayMs: number): number {
	const id = String(item.event_id);
	if (id.startsWith('session.abandoned:')) return Number(id.split(':')[2]) + delayMs;
	return Date.parse(String(item.event === 'request.created' ? item.created_at : item.updated_at));
}

/** What a drain emitted, per event: compared with the shape's expectation. */
export function countsOf(emitted: IDataObject[]): { abandoned: number; completed: number; created: number } {
	const count = (event: string) => emitted.filter((item) => item.event === event).length;
	return { abandoned: count('session.abandoned'), completed: count('session.completed'), created: count('request.created') };
}
