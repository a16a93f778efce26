/**
 * The trigger's rules, tested through its real poll loop, planner and rules (fetch.ts `pollChanges`)
 * on the in-memory list model (test/support/triggerWorld.ts): no n8n, no HTTP.
 */
import { evaluate, windowsOf } from '../../../nodes/BookingRequestsTrigger/rules/evaluate';
import { EDGE_WINDOW_MS } from '../../../nodes/BookingRequestsTrigger/model/pages';
import { decodeMemory, readState } from '../../../nodes/BookingRequestsTrigger/state/codec';
import type { PageObservation } from '../../../nodes/BookingRequestsTrigger/model/pages';
import { FORM_A, MIN, Runner, T0, World, iso, makeRequest, makeSession, makeSettings } from '../../support/triggerWorld';

const DELAY = 30 * MIN;

function seeded(world: World, count: number, ageMs: number): void {
	// History: sessions and requests from before the trigger existed.
	for (let i = 0; i < count; i++) {
		const at = iso(world.now - ageMs - i * MIN);
		world.sessions.push(makeSession({ created_at: at, updated_at: at }));
		world.requests.push(makeRequest({ created_at: at }));
	}
}

const abandonedId = (session: { id: string; updated_at: string | null }) => `session.abandoned:${session.id}:${Date.parse(session.updated_at!)}`;

describe('baseline (first activation)', () => {
	it('emits no history, judges sessions still active later, costs one call per list', async () => {
		const world = new World();
		seeded(world, 150, 2 * 86_400_000);
		const active = world.start();
		world.advance(10 * MIN);
		const runner = new Runner(world, makeSettings());
		const first = await runner.poll();
		expect(first.baseline).toBe(true);
		expect(first.events).toEqual([]);
		expect(first.pages).toEqual({ sessions: 1, requests: 1 });
		// The windows at the top of the lists start where a later poll leaves them: 5 s below the read of
		// page 1, the rows above remembered (none here), so that a row committed late is new.
		expect(first.state!.sessions!.completions.floor).toBe(world.now - EDGE_WINDOW_MS);
		expect(first.state!.sessions!.horizon.floor).toBe(world.now - DELAY);
		expect(first.state!.requests!.floor).toBe(world.now - EDGE_WINDOW_MS);

		// A quiet poll: nothing, one call per list.
		world.advance(5 * MIN);
		const quiet = await runner.poll();
		expect(quiet.events).toEqual([]);
		expect(quiet.pages).toEqual({ sessions: 1, requests: 1 });

		// The session active at activation is reported once it has been idle for the delay.
		world.advance(DELAY);
		const later = await runner.poll();
		expect(later.ids).toEqual([abandonedId(active)]);
		expect((await runner.poll()).events).toEqual([]);
	});

	it('rows committed late just after activation, stamped before it, are new; the rows of the edge visible then, beyond page 1, are history (the first poll reads down to the edge)', async () => {
		const world = new World();
		// 150 requests and drafts in the 4 s before activation: two pages of each list.
		for (let i = 0; i < 150; i++) {
			world.addRequest();
			world.start();
			world.advance(25);
		}
		world.advance(200);
		const runner = new Runner(world, makeSettings());
		const first = await runner.poll();
		expect(first.pages).toEqual({ sessions: 2, requests: 2 });
		// Committed 1 s after activation, stamped 3 s before it (within EDGE_WINDOW_MS).
		world.advance(1000);
		const late = world.addRequest({ created_at: iso(world.now - 4000) });
		const draft = world.start({ created_at: iso(world.now - 4000), updated_at: iso(world.now - 4000) });
		const booking = world.complete(draft);
		booking.created_at = iso(world.now - 3500);
		draft.updated_at = iso(world.now - 3500);
		world.advance(MIN);
		const next = await runner.poll();
		// Oldest first; at one time a completion before a new request.
		expect(next.ids).toEqual([`request.created:${late.id}`, `session.completed:${draft.id}:${booking.id}`, `request.created:${booking.id}`]);
	});

	it('a first poll cut before it read the whole edge: the rows below where it got are history, the rows after it new', async () => {
		const world = new World();
		for (let i = 0; i < 250; i++) {
			world.addRequest();
			world.advance(10);
		}
		const settings = makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false, requestCreated: true } });
		const runner = new Runner(world, settings);
		const first = await runner.poll({ budget: 2 });
		expect(first.pages).toEqual({ sessions: 0, requests: 2 });
		expect(first.state!.requests!.floor).toBe(Date.parse(world.sortedRequests()[199].created_at!));
		world.advance(1000);
		const after = world.addRequest();
		world.advance(MIN);
		expect((await runner.poll()).ids).toEqual([`request.created:${after.id}`]);
	});

	it('a session already idle at activation is history: never reported', async () => {
		const world = new World();
		const idle = world.start();
		world.advance(DELAY + MIN);
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		world.advance(5 * DELAY);
		await runner.poll();
		expect(runner.count('session.abandoned', idle.id)).toBe(0);
	});

	it('an empty workspace: everything after the baseline is new', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		world.advance(MIN);
		const request = world.addRequest();
		const { session } = world.bookWithoutDraft();
		const next = await runner.poll();
		expect(next.ids.sort()).toEqual(
			[`request.created:${request.id}`, `request.created:${session.request_id}`, `session.completed:${session.id}:${session.request_id}`].sort(),
		);
	});
});

describe('session abandoned', () => {
	it('a blank request_id names no request: the session is open, reported abandoned once idle, never completed', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		world.advance(MIN);
		const session = world.start({ request_id: '  ' });
		world.advance(MIN);
		expect((await runner.poll()).events).toEqual([]);
		world.advance(DELAY);
		expect((await runner.poll()).ids).toEqual([abandonedId(session)]);
		expect(runner.count('session.completed')).toBe(0);
	});

	it('fires exactly when the delay has passed, not a millisecond earlier, once', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		world.advance(MIN);
		const session = world.start();
		const at = Date.parse(session.updated_at!);
		await runner.poll();
		world.now = at + DELAY - 1;
		expect((await runner.poll()).events).toEqual([]);
		world.now = at + DELAY;
		const fired = await runner.poll();
		expect(fired.events).toHaveLength(1);
		expect(fired.events[0]).toMatchObject({ event: 'session.abandoned', eventId: `session.abandoned:${session.id}:${at}`, at: at + DELAY });
		expect(fired.events[0].session!.id).toBe(session.id);
		// Nothing is "pending": the state holds the horizon, and the session only in the seen memory.
		expect(fired.state!.sessions!.horizon.floor).toBe(at);
		expect(Object.values(fired.state!.sessions!.seen).join('')).toHaveLength(8);
		world.advance(10 * DELAY);
		expect((await runner.poll()).events).toEqual([]);
		expect(runner.count('session.abandoned')).toBe(1);
	});

	it('a session started and abandoned between two polls fires on the next poll', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		world.advance(MIN);
		const session = world.start();
		world.advance(2 * DELAY);
		expect((await runner.poll()).ids).toEqual([abandonedId(session)]);
	});

	it('a save restarts the delay', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		const session = world.start();
		await runner.poll();
		world.advance(20 * MIN);
		world.save(session);
		await runner.poll();
		world.advance(20 * MIN); // 40 min after start, 20 after the save
		expect((await runner.poll()).events).toEqual([]);
		world.advance(10 * MIN);
		expect((await runner.poll()).ids).toEqual([abandonedId(session)]);
	});

	it('re-abandon without the option: not reported again', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		const session = world.start();
		world.advance(DELAY);
		await runner.poll();
		world.advance(MIN);
		world.save(session); // the customer comes back
		await runner.poll();
		world.advance(2 * DELAY); // and leaves again
		await runner.poll();
		await runner.poll();
		expect(runner.count('session.abandoned', session.id)).toBe(1);
	});

	it('re-abandon with "Fire Again If Reabandoned": reported again, with a new event id', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ fireAgainIfReabandoned: true }));
		await runner.poll();
		const session = world.start();
		world.advance(DELAY);
		await runner.poll();
		world.advance(MIN);
		world.save(session);
		expect((await runner.poll()).events).toEqual([]); // active again: not reported
		world.advance(DELAY);
		await runner.poll();
		world.advance(DELAY);
		await runner.poll();
		const fired = runner.log.filter((entry) => entry.id === session.id);
		expect(fired).toHaveLength(2);
		expect(new Set(fired.map((entry) => entry.eventId)).size).toBe(2);
	});

	it('a customer who comes back before any poll saw the session idle: judged on the newest copy, reported once later', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		const session = world.start();
		world.advance(DELAY + MIN);
		world.save(session); // idle for 31 min, but back before the trigger looked
		expect((await runner.poll()).events).toEqual([]);
		world.advance(DELAY);
		expect((await runner.poll()).ids).toEqual([abandonedId(session)]);
	});

	it('only Session Completed selected: abandonments are still judged, so `recovered` tells the truth', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, requestCreated: false } }));
		await runner.poll();
		const session = world.start();
		await runner.poll();
		world.advance(DELAY + MIN);
		expect((await runner.poll()).events).toEqual([]); // seen abandoned, not an event here
		world.complete(session);
		const result = await runner.poll();
		expect(result.events).toHaveLength(1);
		expect(result.events[0]).toMatchObject({ event: 'session.completed', recovered: true });
	});
});

describe('session completed', () => {
	it('a session completed without ever being seen abandoned: reported, recovered false; "Only Recovered" skips it', async () => {
		for (const onlyRecovered of [false, true]) {
			const world = new World();
			const runner = new Runner(world, makeSettings({ onlyRecovered, events: { requestCreated: false } }));
			await runner.poll();
			const session = world.start();
			await runner.poll();
			world.advance(5 * MIN);
			world.complete(session);
			const result = await runner.poll();
			if (onlyRecovered) expect(result.events).toEqual([]);
			else {
				expect(result.ids).toEqual([`session.completed:${session.id}:${session.request_id}`]);
				expect(result.events[0].recovered).toBe(false);
			}
			world.advance(2 * DELAY);
			expect((await runner.poll()).events).toEqual([]); // never reported abandoned
		}
	});

	it('a recovered session (seen abandoned, then completed): recovered true, kept by "Only Recovered"', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ onlyRecovered: true, events: { requestCreated: false } }));
		await runner.poll();
		const session = world.start();
		world.advance(DELAY + MIN);
		expect((await runner.poll()).ids).toEqual([abandonedId(session)]);
		world.advance(3 * 60 * MIN);
		world.complete(session);
		const result = await runner.poll();
		expect(result.events).toHaveLength(1);
		expect(result.events[0]).toMatchObject({ event: 'session.completed', recovered: true, at: Date.parse(session.updated_at!) });
	});

	it('"Only Recovered" without Session Abandoned still judges abandonments to know which were abandoned', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ onlyRecovered: true, events: { sessionAbandoned: false, requestCreated: false } }));
		await runner.poll();
		const recovered = world.start();
		world.advance(DELAY + MIN);
		expect((await runner.poll()).events).toEqual([]);
		const direct = world.start();
		world.advance(5 * MIN);
		world.complete(recovered);
		world.complete(direct);
		const result = await runner.poll();
		expect(result.ids).toEqual([`session.completed:${recovered.id}:${recovered.request_id}`]);
	});

	it('a placeholder session (booked without a draft) is a completion; not a recovered one', async () => {
		for (const onlyRecovered of [false, true]) {
			const world = new World();
			const runner = new Runner(world, makeSettings({ onlyRecovered, events: { requestCreated: false } }));
			await runner.poll();
			world.advance(MIN);
			const { session } = world.bookWithoutDraft();
			const result = await runner.poll();
			expect(result.ids).toEqual(onlyRecovered ? [] : [`session.completed:${session.id}:${session.request_id}`]);
		}
	});

	it('ASSUMPTION: completing moves updated_at. If it did not, the completion is not reported, and the session is never reported abandoned', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false } }));
		await runner.poll();
		const session = world.start();
		await runner.poll();
		for (let i = 0; i < 150; i++) {
			world.advance(100);
			world.start();
		}
		world.complete(session, false); // request_id set, updated_at unchanged
		world.advance(DELAY);
		const result = await runner.poll();
		expect(result.events.filter((event) => event.session!.id === session.id)).toEqual([]);
		expect(runner.count('session.abandoned')).toBe(150);
	});

	it('a completed session listed again with a newer updated_at: the same event again, same event_id (README)', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false } }));
		await runner.poll();
		const session = world.start();
		world.complete(session);
		await runner.poll();
		world.advance(MIN);
		session.updated_at = iso(world.stamp()); // a change the contract does not list
		await runner.poll();
		const ids = runner.log.filter((entry) => entry.id === session.id).map((entry) => entry.eventId);
		expect(ids).toEqual([`session.completed:${session.id}:${session.request_id}`, `session.completed:${session.id}:${session.request_id}`]);
	});

	it('completed sessions from before the activation are not reported while they stay where they are', async () => {
		const world = new World();
		const old = world.start();
		world.complete(old);
		world.advance(MIN);
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		world.advance(DELAY * 3);
		expect((await runner.poll()).events).toEqual([]);
	});
});

describe('new requests', () => {
	it('each request created since the last poll, once, oldest first', async () => {
		const world = new World();
		seeded(world, 20, 86_400_000);
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } }));
		await runner.poll();
		world.advance(MIN);
		const a = world.addRequest();
		const b = world.addRequest();
		const result = await runner.poll();
		expect(result.ids).toEqual([`request.created:${a.id}`, `request.created:${b.id}`]);
		expect(result.events[0].request!.id).toBe(a.id);
		expect(result.pages).toEqual({ sessions: 0, requests: 1 });
		expect((await runner.poll()).events).toEqual([]);
	});

	it('a row committed late (timestamp less than EDGE_WINDOW_MS before the poll) is reported once; rows with the newest timestamp are not repeated', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } }));
		await runner.poll();
		world.advance(MIN);
		const stamp = iso(world.now);
		const first = world.addRequest({ created_at: stamp });
		await runner.poll(); // polled in the same millisecond
		const sameMs = world.addRequest({ created_at: stamp }); // committed late, same millisecond
		const late = world.addRequest({ created_at: iso(world.now - EDGE_WINDOW_MS + 1000) });
		world.advance(2000);
		const result = await runner.poll();
		expect(result.ids.sort()).toEqual([`request.created:${sameMs.id}`, `request.created:${late.id}`].sort());
		expect(runner.count('request.created', first.id)).toBe(1);
		// Remembered ids are pruned once the clock is past the window.
		world.advance(EDGE_WINDOW_MS);
		const after = await runner.poll();
		expect(after.state!.requests!.done).toEqual({});
		expect(after.events).toEqual([]);
	});

	it('more than 100 new requests between polls: every one, once, over several pages', async () => {
		const world = new World();
		seeded(world, 120, 86_400_000);
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } }));
		await runner.poll();
		world.advance(MIN);
		const created = Array.from({ length: 250 }, () => world.addRequest());
		const result = await runner.poll();
		expect(result.pages.requests).toBe(3);
		expect(result.ids).toEqual(created.map((request) => `request.created:${request.id}`));
		expect((await runner.poll()).events).toEqual([]);
	});

	it('new submissions while the pages are read: no loss, no duplicate', async () => {
		const world = new World();
		seeded(world, 50, 86_400_000);
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } }));
		await runner.poll();
		world.advance(MIN);
		const before = Array.from({ length: 230 }, () => world.addRequest());
		const during: string[] = [];
		await runner.poll({
			beforePage: (_list, page) => {
				if (page > 1) for (let i = 0; i < 7; i++) during.push(world.addRequest().id); // shifts every page down
			},
		});
		world.advance(MIN);
		await runner.poll();
		const reported = runner.log.map((entry) => entry.id);
		expect(reported.sort()).toEqual([...before.map((request) => request.id), ...during].sort());
	});

	it('a bulk import of 1,000 requests with one identical created_at: 1,000 events once, nothing again while nothing newer arrives', async () => {
		const world = new World();
		seeded(world, 30, 86_400_000);
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } }));
		await runner.poll();
		world.advance(MIN);
		const at = iso(world.stamp());
		const imported = Array.from({ length: 1000 }, () => world.addRequest({ created_at: at }));
		const result = await runner.poll();
		expect(result.ids.sort()).toEqual(imported.map((request) => `request.created:${request.id}`).sort());
		// The import landed within EDGE_WINDOW_MS before that poll: the next poll reads it once more
		// (a row of it could still commit late), then the ids are pruned and a quiet poll costs 1 call.
		const pages: number[] = [];
		for (let i = 0; i < 3; i++) {
			world.advance(MIN);
			const again = await runner.poll();
			expect(again.events).toEqual([]);
			pages.push(again.pages.requests);
		}
		expect(pages).toEqual([11, 1, 1]);
		expect(JSON.stringify(runner.state).length).toBeLessThan(1000);
	});
});

describe('sessions moving between pages', () => {
	it('sessions saved while the pages are read: no loss, no duplicate', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false, sessionCompleted: false } }));
		await runner.poll();
		const sessions = Array.from({ length: 260 }, () => world.start());
		world.advance(MIN);
		// While page 2 and 3 are read, customers further down save again (they jump to the top of page 1).
		const moved = sessions.slice(0, 12);
		await runner.poll({
			beforePage: (_list, page) => {
				if (page === 2) moved.slice(0, 6).forEach((session) => world.save(session));
				if (page === 3) moved.slice(6).forEach((session) => world.save(session));
			},
		});
		world.advance(DELAY + MIN);
		await runner.poll();
		await runner.poll();
		expect(runner.count('session.abandoned')).toBe(260);
		expect(new Set(runner.log.map((entry) => entry.id)).size).toBe(260);
		// The moved ones are reported for their latest activity, not the one before the move.
		for (const session of moved) expect(runner.log.find((entry) => entry.id === session.id)!.eventId).toBe(abandonedId(session));
	});

	it('sessions saving while the horizon window deep in the list is read: each reported once', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false, sessionCompleted: false } }));
		await runner.poll();
		const early = Array.from({ length: 300 }, () => {
			world.advance(500);
			return world.start();
		});
		world.advance(DELAY - 2 * MIN);
		for (let i = 0; i < 400; i++) {
			world.advance(100);
			world.start();
		}
		await runner.poll();
		world.advance(3 * MIN);
		let saves = 0;
		await runner.poll({
			beforePage: (list, page) => {
				if (list === 'sessions' && page > 1 && saves < 20) {
					world.save(early[saves * 7]);
					saves++;
				}
			},
		});
		world.advance(DELAY + MIN);
		await runner.poll();
		const ids = runner.log.map((entry) => entry.eventId);
		expect(new Set(ids).size).toBe(ids.length);
		expect(runner.count('session.abandoned')).toBe(700);
		// A session saved while its page was being read was idle for the delay before: reported once,
		// for the idle period the trigger saw (the old one, or the new one if the save came first).
		for (const session of early) expect(runner.count('session.abandoned', session.id)).toBe(1);
	});

	it('equal updated_at at the boundary: sessions saved in the same millisecond are each reported once', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false } }));
		await runner.poll();
		world.advance(MIN);
		const stamp = iso(world.now);
		const a = world.start({ created_at: stamp, updated_at: stamp });
		await runner.poll();
		const b = world.start({ created_at: stamp, updated_at: stamp });
		world.advance(1000);
		await runner.poll();
		world.advance(DELAY);
		await runner.poll();
		await runner.poll();
		expect(runner.count('session.abandoned', a.id)).toBe(1);
		expect(runner.count('session.abandoned', b.id)).toBe(1);
	});

	it('more than 100 session changes between polls: all read; the horizon found again later without reading everything above it', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		const sessions = Array.from({ length: 340 }, () => {
			world.advance(100);
			return world.start();
		});
		for (const session of sessions.slice(0, 40)) world.complete(session);
		const result = await runner.poll();
		expect(result.pages.sessions).toBe(4);
		expect(result.events.filter((event) => event.event === 'session.completed')).toHaveLength(40);
		// 2 minutes later, 25 minutes of more customers: 1,000 sessions above the first ones.
		world.advance(2 * MIN);
		for (let i = 0; i < 1000; i++) {
			world.advance(1500);
			world.start();
		}
		expect((await runner.poll()).events).toEqual([]);
		world.advance(4 * MIN);
		const due = await runner.poll();
		expect(due.events.filter((event) => event.event === 'session.abandoned')).toHaveLength(300);
		// Page 1, then the pages of the horizon (found from the state), not the 10 pages above it.
		expect(due.pages.sessions).toBeLessThanOrEqual(7);
		expect((await runner.poll()).pages.sessions).toBeLessThanOrEqual(3);
	});
});

describe('null and odd timestamps', () => {
	it('sessions with a null updated_at have no place in the order: never reported, never stop the reading, never break it', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false } }));
		const noTimes = world.start({ created_at: null, updated_at: null });
		const createdOnly = world.start({ updated_at: null });
		await runner.poll();
		world.advance(MIN);
		const regular = world.start();
		expect((await runner.poll()).events).toEqual([]);
		world.advance(DELAY + MIN);
		expect((await runner.poll()).ids).toEqual([abandonedId(regular)]);
		world.advance(10 * DELAY);
		world.complete(noTimes, false);
		await runner.poll();
		expect(runner.count('session.abandoned', noTimes.id) + runner.count('session.abandoned', createdOnly.id)).toBe(0);
		expect(runner.count('session.completed', noTimes.id)).toBe(0);
		// Completing one gives it an updated_at (like the sandbox): reported.
		world.complete(createdOnly);
		expect((await runner.poll()).ids).toEqual([`session.completed:${createdOnly.id}:${createdOnly.request_id}`]);
	});

	it('null timestamps at the top of a page (a server that sorts nulls first) are skipped by the stop rule', () => {
		const settings = makeSettings({ events: { requestCreated: false } });
		const state = {
			v: 3 as const,
			fp: 'fp-1',
			since: T0,
			polledAt: T0,
			skewMs: 0,
			sessions: { completions: { floor: T0, done: {} }, horizon: { floor: T0 - DELAY, done: {} }, checkpoints: [], seen: {} },
		};
		const nulls = Array.from({ length: 3 }, () => makeSession({ created_at: null, updated_at: null }));
		const fresh = makeSession({ updated_at: iso(T0 + 1000), request_id: '11111111-1111-4111-8111-111111111111' });
		const old = makeSession({ updated_at: iso(T0 - 2 * DELAY) });
		const page: PageObservation = { list: 'sessions', page: 1, perPage: 100, total: 5, items: [...nulls, fresh, old], serverDate: T0 + 2000, seq: 0 };
		const evaluation = evaluate(windowsOf(decodeMemory(state, settings), settings, T0 + 2000), [page], T0 + 2000);
		expect(evaluation.outcomes.every((outcome) => outcome.complete)).toBe(true);
		expect(evaluation.candidates.map((candidate) => candidate.id)).toEqual([fresh.id]);
	});

	it('a timestamp far in the future is reported at once and does not move the floor past now', async () => {
		const world = new World();
		world.addRequest();
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		world.advance(MIN);
		const bogus = world.addRequest({ created_at: iso(world.now + 365 * 86_400_000) });
		const result = await runner.poll();
		expect(result.ids).toEqual([`request.created:${bogus.id}`]);
		expect(result.state!.requests!.floor).toBeLessThan(world.now);
		world.advance(MIN);
		const normal = world.addRequest();
		expect((await runner.poll()).ids).toEqual([`request.created:${normal.id}`]);
		expect(runner.count('request.created', bogus.id)).toBe(1);
	});
});

describe('state across restarts and lost saves', () => {
	it('the saved copy of a null poll is lost: the next poll from the older copy gives the same events, once', async () => {
		const world = new World();
		const settings = makeSettings();
		let saved = (await world.poll(undefined, settings)).state!;
		const emitted: string[] = [];
		for (let round = 0; round < 12; round++) {
			world.advance(7 * MIN);
			if (round % 3 === 0) world.start();
			if (round % 4 === 1) world.addRequest();
			if (round % 5 === 2) world.bookWithoutDraft();
			const result = await world.poll(saved, settings);
			emitted.push(...result.ids);
			if (result.events.length > 0) saved = result.state!; // n8n 1.x saves only when emitting
		}
		world.advance(3 * DELAY);
		emitted.push(...(await world.poll(saved, settings)).ids);
		expect(new Set(emitted).size).toBe(emitted.length);
		const expected = [
			...world.requests.map((request) => `request.created:${request.id}`),
			...world.sessions.filter((s) => s.request_id).map((s) => `session.completed:${s.id}:${s.request_id}`),
			...world.sessions.filter((s) => !s.request_id).map((s) => abandonedId(s)),
		];
		expect(emitted.sort()).toEqual(expected.sort());
	});

	it('re-delivery after a crash repeats the same event ids (downstream can deduplicate)', async () => {
		const world = new World();
		const settings = makeSettings();
		const base = (await world.poll(undefined, settings)).state!;
		world.advance(MIN);
		world.addRequest();
		world.bookWithoutDraft();
		const delivered = await world.poll(base, settings);
		// n8n crashed before the static data was saved: the next poll starts from `base` again.
		const again = await world.poll(base, settings);
		expect(again.ids).toEqual(delivered.ids);
		expect(delivered.ids).toHaveLength(3);
	});

	it('static data survives a JSON round trip and reads back identical', async () => {
		const world = new World();
		const settings = makeSettings();
		const runner = new Runner(world, settings);
		await runner.poll();
		world.start();
		world.addRequest();
		world.advance(DELAY + MIN);
		await runner.poll();
		const stored = JSON.parse(JSON.stringify(runner.state));
		expect(readState(stored, { fingerprint: settings.fingerprint, lists: { sessions: true, requests: true } })).toEqual(runner.state);
	});
});

describe('reset on filter or events change', () => {
	it('another fingerprint (events, form, API key) reads as no state: a new baseline, no replay, no skip of later events', async () => {
		const world = new World();
		const settings = makeSettings();
		const runner = new Runner(world, settings);
		await runner.poll();
		world.advance(MIN);
		world.addRequest();
		const active = world.start({ form_id: FORM_A });
		await runner.poll(); // emits the request
		world.advance(MIN);
		const unseen = world.addRequest(); // happened while the trigger was being reconfigured
		const changed = makeSettings({ fingerprint: 'fp-2' });
		const previous = readState(JSON.parse(JSON.stringify(runner.state)), { fingerprint: changed.fingerprint, lists: { sessions: true, requests: true } });
		expect(previous).toBeUndefined();
		const reset = await world.poll(previous, changed);
		expect(reset.baseline).toBe(true);
		expect(reset.events).toEqual([]); // no replay of `unseen` (history for the new configuration)
		expect(reset.state!.fp).toBe('fp-2');
		world.advance(MIN);
		const next = world.addRequest();
		const after = await world.poll(reset.state, changed);
		expect(after.ids).toEqual([`request.created:${next.id}`]);
		expect(after.ids).not.toContain(`request.created:${unseen.id}`);
		// The session active at the reset is still reported once idle.
		world.advance(DELAY);
		expect((await world.poll(after.state, changed)).ids).toEqual([abandonedId(active)]);
	});

	it('a state for other lists keeps what still applies; another version (v1) or garbage is refused: a new baseline, never an error', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		await runner.poll();
		const stored = JSON.parse(JSON.stringify(runner.state));
		expect(readState(stored, { fingerprint: 'fp-1', lists: { sessions: true, requests: true } })).toBeDefined();
		// No session event left: the session windows and memories go, the request window stays.
		const requestsOnly = readState(stored, { fingerprint: 'fp-1', lists: { sessions: false, requests: true } });
		expect(requestsOnly?.sessions).toBeUndefined();
		expect(requestsOnly?.requests).toEqual(stored.requests);
		// Session events added to a state without sessions: they start from the last poll (needs the selection).
		const { sessions: _sessions, ...withoutSessions } = stored;
		expect(readState(withoutSessions, { fingerprint: 'fp-1', lists: { sessions: true, requests: true } })).toBeUndefined();
		expect(readState(withoutSessions, { fingerprint: 'fp-1', lists: { sessions: true, requests: true }, selection: { events: 'an', offsets: { horizon: DELAY, held: DELAY } } })?.sessions).toEqual({
			completions: { floor: stored.polledAt, done: {} },
			horizon: { floor: stored.polledAt - DELAY, done: {} },
			checkpoints: [],
			seen: {},
		});
		// Session Completed added: its window (not kept up to date while off) starts from the last poll.
		const added = readState({ ...stored, ev: 'a' }, { fingerprint: 'fp-1', lists: { sessions: true, requests: true }, selection: { events: 'ac', offsets: { horizon: DELAY, held: DELAY } } });
		expect(added?.sessions?.completions).toEqual({ floor: stored.polledAt, done: {} });
		expect(added?.sessions?.horizon).toEqual(stored.sessions.horizon);
		expect(added?.ev).toBe('ac');
		// The request list is read for more than New Request (Skip Customers Who Booked): its window is
		// dropped when no longer needed, and added from the last poll when needed (no new baseline).
		expect(readState(stored, { fingerprint: 'fp-1', lists: { sessions: true, requests: false } })?.requests).toBeUndefined();
		const { requests: _dropped, ...withoutRequests } = stored;
		expect(readState(withoutRequests, { fingerprint: 'fp-1', lists: { sessions: true, requests: true } })?.requests).toEqual({ floor: stored.polledAt, done: {} });
		expect(readState({ ...stored, v: 1 }, { fingerprint: 'fp-1', lists: { sessions: true, requests: true } })).toBeUndefined();
		expect(readState('garbage', { fingerprint: 'fp-1', lists: { sessions: true, requests: true } })).toBeUndefined();
		const v1 = { v: 1, fp: 'fp-1', since: T0, polledAt: T0, skewMs: 0, requests: { cursor: T0, edge: [] } };
		expect(readState(v1, { fingerprint: 'fp-1', lists: { sessions: false, requests: true } })).toBeUndefined();
	});
});
