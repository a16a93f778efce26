/**
 * The trigger's rules, tested on the pure diff (no n8n, no HTTP). `World` (world.ts) models the API's
 * lists and pages them the way fetch.ts does.
 */
import { diff, requestsFloor, sessionsFloor } from '../../../nodes/BookingRequestsTrigger/diff';
import { EDGE_WINDOW_MS, readState } from '../../../nodes/BookingRequestsTrigger/state';
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

describe('baseline (first activation)', () => {
	it('emits no history, watches sessions that are still active, costs one call per list', () => {
		const world = new World();
		seeded(world, 150, 2 * 86_400_000);
		const active = world.start();
		world.advance(10 * MIN);
		const runner = new Runner(world, makeSettings());
		const first = runner.poll();
		expect(first.baseline).toBe(true);
		expect(first.events).toEqual([]);
		expect(first.calls).toEqual({ sessions: 1, requests: 1 });
		expect(Object.keys(first.state.sessions!.pending)).toEqual([active.id]);
		expect(first.state.sessions!.cursor).toBe(Date.parse(active.updated_at!));
		expect(first.state.requests!.cursor).toBe(Date.parse(world.sortedRequests()[0].created_at));

		// A quiet poll: nothing, one call per list, same cursors.
		world.advance(5 * MIN);
		const quiet = runner.poll();
		expect(quiet.events).toEqual([]);
		expect(quiet.calls).toEqual({ sessions: 1, requests: 1 });
		expect(quiet.state.sessions!.cursor).toBe(first.state.sessions!.cursor);

		// The session active at activation is reported once it has been idle for the delay.
		world.advance(DELAY);
		const later = runner.poll();
		expect(later.ids).toEqual([`session.abandoned:${active.id}:${Date.parse(active.updated_at!)}`]);
		expect(runner.poll().events).toEqual([]);
	});

	it('a session already idle at activation is history: never reported', () => {
		const world = new World();
		const idle = world.start();
		world.advance(DELAY + MIN);
		const runner = new Runner(world, makeSettings());
		runner.poll();
		world.advance(5 * DELAY);
		runner.poll();
		expect(runner.count('session.abandoned', idle.id)).toBe(0);
	});

	it('an empty workspace: everything after the baseline is new', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		const first = runner.poll();
		expect(first.state.sessions!.cursor).toBeNull();
		expect(first.state.requests!.cursor).toBeNull();
		world.advance(MIN);
		const request = world.addRequest();
		const { session } = world.bookWithoutDraft();
		const next = runner.poll();
		expect(next.ids.sort()).toEqual(
			[`request.created:${request.id}`, `request.created:${session.request_id}`, `session.completed:${session.id}:${session.request_id}`].sort(),
		);
	});
});

describe('session abandoned', () => {
	it('fires exactly when the delay has passed, not a millisecond earlier, once', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		runner.poll();
		world.advance(MIN);
		const session = world.start();
		const at = Date.parse(session.updated_at!);
		runner.poll();
		expect(runner.state!.sessions!.pending[session.id]).toBe(at);
		world.now = at + DELAY - 1;
		expect(runner.poll().events).toEqual([]);
		world.now = at + DELAY;
		const fired = runner.poll();
		expect(fired.events).toHaveLength(1);
		expect(fired.events[0]).toMatchObject({ event: 'session.abandoned', eventId: `session.abandoned:${session.id}:${at}` });
		expect(fired.events[0].session!.id).toBe(session.id);
		expect(runner.state!.sessions!.pending[session.id]).toBeUndefined();
		expect(runner.state!.sessions!.abandoned[session.id]).toEqual([at, at + DELAY]);
		world.advance(10 * DELAY);
		expect(runner.poll().events).toEqual([]);
		expect(runner.count('session.abandoned')).toBe(1);
	});

	it('a session started and abandoned between two polls fires on the next poll', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		runner.poll();
		world.advance(MIN);
		const session = world.start();
		world.advance(2 * DELAY);
		expect(runner.poll().ids).toEqual([`session.abandoned:${session.id}:${Date.parse(session.updated_at!)}`]);
	});

	it('a save restarts the delay', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		runner.poll();
		const session = world.start();
		runner.poll();
		world.advance(20 * MIN);
		world.save(session);
		runner.poll();
		world.advance(20 * MIN); // 40 min after start, 20 after the save
		expect(runner.poll().events).toEqual([]);
		world.advance(10 * MIN);
		expect(runner.poll().ids).toEqual([`session.abandoned:${session.id}:${Date.parse(session.updated_at!)}`]);
	});

	it('re-abandon without the option: not reported again', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		runner.poll();
		const session = world.start();
		world.advance(DELAY);
		runner.poll();
		world.advance(MIN);
		world.save(session); // the customer comes back
		runner.poll();
		world.advance(2 * DELAY); // and leaves again
		runner.poll();
		runner.poll();
		expect(runner.count('session.abandoned', session.id)).toBe(1);
	});

	it('re-abandon with "Fire Again If Reabandoned": reported again, with a new event id', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ fireAgainIfReabandoned: true }));
		runner.poll();
		const session = world.start();
		world.advance(DELAY);
		runner.poll();
		world.advance(MIN);
		world.save(session);
		expect(runner.poll().events).toEqual([]); // active again: watched, not reported
		world.advance(DELAY);
		runner.poll();
		world.advance(DELAY);
		runner.poll();
		const fired = runner.log.filter((entry) => entry.id === session.id);
		expect(fired).toHaveLength(2);
		expect(new Set(fired.map((entry) => entry.eventId)).size).toBe(2);
	});

	it('only Session Completed selected: sessions are still watched, so `recovered` tells the truth', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, requestCreated: false } }));
		runner.poll();
		const session = world.start();
		runner.poll();
		expect(Object.keys(runner.state!.sessions!.pending)).toEqual([session.id]);
		world.advance(DELAY + MIN);
		expect(runner.poll().events).toEqual([]); // seen abandoned, not an event here
		world.complete(session);
		const result = runner.poll();
		expect(result.events).toHaveLength(1);
		expect(result.events[0]).toMatchObject({ event: 'session.completed', recovered: true });
	});
});

describe('session completed', () => {
	it('a session completed without ever being seen abandoned: reported, recovered false; "Only Recovered" skips it', () => {
		for (const onlyRecovered of [false, true]) {
			const world = new World();
			const runner = new Runner(world, makeSettings({ onlyRecovered, events: { requestCreated: false } }));
			runner.poll();
			const session = world.start();
			runner.poll(); // watched
			world.advance(5 * MIN);
			world.complete(session);
			const result = runner.poll();
			if (onlyRecovered) expect(result.events).toEqual([]);
			else {
				expect(result.ids).toEqual([`session.completed:${session.id}:${session.request_id}`]);
				expect(result.events[0].recovered).toBe(false);
			}
			expect(result.state.sessions!.pending[session.id]).toBeUndefined();
			world.advance(2 * DELAY);
			expect(runner.poll().events).toEqual([]); // never reported abandoned
		}
	});

	it('a recovered session (seen abandoned, then completed): recovered true, kept by "Only Recovered"', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ onlyRecovered: true, events: { requestCreated: false } }));
		runner.poll();
		const session = world.start();
		world.advance(DELAY + MIN);
		expect(runner.poll().ids).toEqual([`session.abandoned:${session.id}:${Date.parse(session.updated_at!)}`]);
		world.advance(3 * 60 * MIN);
		world.complete(session);
		const result = runner.poll();
		expect(result.events).toHaveLength(1);
		expect(result.events[0]).toMatchObject({ event: 'session.completed', recovered: true });
		expect(result.state.sessions!.abandoned[session.id]).toBeUndefined();
		expect(result.state.sessions!.completed[session.id]).toBeDefined();
	});

	it('"Only Recovered" without Session Abandoned still watches sessions to know which were abandoned', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ onlyRecovered: true, events: { sessionAbandoned: false, requestCreated: false } }));
		runner.poll();
		const recovered = world.start();
		world.advance(DELAY + MIN);
		expect(runner.poll().events).toEqual([]);
		const direct = world.start();
		world.advance(5 * MIN);
		world.complete(recovered);
		world.complete(direct);
		const result = runner.poll();
		expect(result.ids).toEqual([`session.completed:${recovered.id}:${recovered.request_id}`]);
	});

	it('a placeholder session (booked without a draft) is a completion; not a recovered one', () => {
		for (const onlyRecovered of [false, true]) {
			const world = new World();
			const runner = new Runner(world, makeSettings({ onlyRecovered, events: { requestCreated: false } }));
			runner.poll();
			world.advance(MIN);
			const { session } = world.bookWithoutDraft();
			const result = runner.poll();
			expect(result.ids).toEqual(onlyRecovered ? [] : [`session.completed:${session.id}:${session.request_id}`]);
		}
	});

	it('a completion that does not move updated_at is still seen for a watched session (and it is never reported abandoned)', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false } }));
		runner.poll();
		const session = world.start();
		runner.poll();
		// 150 other customers are active afterwards: the session sinks to page 2.
		for (let i = 0; i < 150; i++) {
			world.advance(100);
			world.start();
		}
		world.complete(session, false);
		world.advance(DELAY);
		const result = runner.poll();
		expect(result.events.filter((event) => event.session!.id === session.id).map((event) => event.event)).toEqual(['session.completed']);
		expect(result.calls.sessions).toBe(2); // read down to the due session
	});

	it('a completed session listed again with a newer updated_at is not reported twice', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false } }));
		runner.poll();
		const session = world.start();
		world.complete(session);
		runner.poll();
		world.advance(MIN);
		session.updated_at = iso(world.stamp());
		runner.poll();
		expect(runner.count('session.completed', session.id)).toBe(1);
	});

	it('completed sessions from before the activation are not reported when they are listed again', () => {
		const world = new World();
		const old = world.start();
		world.complete(old);
		world.advance(MIN);
		const runner = new Runner(world, makeSettings());
		runner.poll();
		world.advance(MIN);
		old.updated_at = iso(world.stamp());
		expect(runner.poll().events).toEqual([]);
	});
});

describe('new requests', () => {
	it('each request created since the last poll, once, oldest first', () => {
		const world = new World();
		seeded(world, 20, 86_400_000);
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } }));
		runner.poll();
		world.advance(MIN);
		const a = world.addRequest();
		const b = world.addRequest();
		const result = runner.poll();
		expect(result.ids).toEqual([`request.created:${a.id}`, `request.created:${b.id}`]);
		expect(result.events[0].request!.id).toBe(a.id);
		expect(result.calls).toEqual({ sessions: 0, requests: 1 });
		expect(runner.poll().events).toEqual([]);
	});

	it('equal created_at at the boundary: a request with the cursor timestamp that arrives later is reported, the others are not repeated', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } }));
		runner.poll();
		const stamp = iso(world.now + MIN);
		const first = world.addRequest({ created_at: stamp });
		world.advance(2 * MIN);
		runner.poll();
		const sameMs = world.addRequest({ created_at: stamp }); // committed late, same millisecond
		const result = runner.poll();
		expect(result.ids).toEqual([`request.created:${sameMs.id}`]);
		expect(runner.count('request.created', first.id)).toBe(1);
		// A row committed a few seconds late (inside the edge window) is still caught.
		const late = world.addRequest({ created_at: iso(Date.parse(stamp) - 3_000) });
		expect(runner.poll().ids).toEqual([`request.created:${late.id}`]);
	});

	it('more than 100 new requests between polls: every one, once, over several pages', () => {
		const world = new World();
		seeded(world, 120, 86_400_000);
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } }));
		runner.poll();
		const created = Array.from({ length: 250 }, () => world.addRequest());
		const result = runner.poll();
		expect(result.calls.requests).toBe(3);
		expect(result.ids).toEqual(created.map((request) => `request.created:${request.id}`));
		expect(runner.poll().events).toEqual([]);
	});

	it('new submissions while the pages are read: no loss, no duplicate', () => {
		const world = new World();
		seeded(world, 50, 86_400_000);
		const runner = new Runner(world, makeSettings({ events: { sessionAbandoned: false, sessionCompleted: false } }));
		runner.poll();
		const before = Array.from({ length: 230 }, () => world.addRequest());
		const during: string[] = [];
		runner.poll({
			beforePage: (_list, page) => {
				if (page > 1) for (let i = 0; i < 7; i++) during.push(world.addRequest().id); // shifts every page down
			},
		});
		runner.poll();
		const reported = runner.log.map((entry) => entry.id);
		expect(reported.sort()).toEqual([...before.map((request) => request.id), ...during].sort());
	});
});

describe('sessions moving between pages', () => {
	it('sessions saved while the pages are read: no loss, no duplicate', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false, sessionCompleted: false } }));
		runner.poll();
		const sessions = Array.from({ length: 260 }, () => world.start());
		world.advance(MIN);
		// While page 2 and 3 are read, customers further down save again (they jump to the top of page 1).
		const moved = sessions.slice(0, 12);
		runner.poll({
			beforePage: (_list, page) => {
				if (page === 2) moved.slice(0, 6).forEach((session) => world.save(session));
				if (page === 3) moved.slice(6).forEach((session) => world.save(session));
			},
		});
		world.advance(DELAY + MIN);
		runner.poll();
		runner.poll();
		expect(runner.count('session.abandoned')).toBe(260);
		expect(new Set(runner.log.map((entry) => entry.id)).size).toBe(260);
		// The moved ones are reported for their latest activity, not the one before the move.
		for (const session of moved) {
			expect(runner.log.find((entry) => entry.id === session.id)!.eventId).toBe(
				`session.abandoned:${session.id}:${Date.parse(session.updated_at!)}`,
			);
		}
	});

	it('equal updated_at at the boundary: a session saved in the same millisecond as the cursor is processed once', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false } }));
		runner.poll();
		const stamp = iso(world.now + 1000);
		const a = world.start({ created_at: stamp, updated_at: stamp });
		world.advance(2000);
		runner.poll();
		const b = world.start({ created_at: stamp, updated_at: stamp });
		runner.poll();
		expect(runner.state!.sessions!.pending).toEqual({ [a.id]: Date.parse(stamp), [b.id]: Date.parse(stamp) });
		world.advance(DELAY);
		runner.poll();
		runner.poll();
		expect(runner.count('session.abandoned', a.id)).toBe(1);
		expect(runner.count('session.abandoned', b.id)).toBe(1);
	});

	it('more than 100 session changes between polls: all read, cursor at the newest', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings());
		runner.poll();
		const sessions = Array.from({ length: 340 }, () => {
			world.advance(100);
			return world.start();
		});
		for (const session of sessions.slice(0, 40)) world.complete(session);
		const result = runner.poll();
		expect(result.calls.sessions).toBe(4);
		expect(result.events.filter((event) => event.event === 'session.completed')).toHaveLength(40);
		expect(Object.keys(result.state.sessions!.pending)).toHaveLength(300);
		expect(result.state.sessions!.cursor).toBe(Math.max(...world.sessions.map((s) => Date.parse(s.updated_at!))));
		world.advance(DELAY + MIN);
		const later = runner.poll();
		expect(later.events.filter((event) => event.event === 'session.abandoned')).toHaveLength(300);
		// Reading down to the due sessions (300 changed since) costs its pages; the next quiet poll one call.
		expect(later.calls.sessions).toBe(4);
		expect(runner.poll().calls.sessions).toBe(1);
	});
});

describe('null and odd timestamps', () => {
	it('sessions with null timestamps do not break the cursor or the order', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { requestCreated: false } }));
		const noTimes = world.start({ created_at: null, updated_at: null });
		runner.poll();
		const cursor = runner.state!.sessions!.cursor;
		world.advance(MIN);
		// updated_at null, created_at set: its activity time is created_at.
		const createdOnly = makeSession({ created_at: iso(world.stamp()), updated_at: null });
		world.sessions.push(createdOnly);
		const regular = world.start();
		const result = runner.poll();
		expect(result.events).toEqual([]);
		expect(result.state.sessions!.cursor).toBeGreaterThan(cursor ?? 0);
		expect(result.state.sessions!.pending).toEqual({
			[createdOnly.id]: Date.parse(createdOnly.created_at!),
			[regular.id]: Date.parse(regular.updated_at!),
		});
		world.advance(DELAY + MIN);
		const due = runner.poll();
		expect(due.ids.sort()).toEqual(
			[`session.abandoned:${createdOnly.id}:${Date.parse(createdOnly.created_at!)}`, `session.abandoned:${regular.id}:${Date.parse(regular.updated_at!)}`].sort(),
		);
		// A session with neither timestamp is never reported abandoned (its idle time is unknown)...
		world.advance(10 * DELAY);
		runner.poll();
		expect(runner.count('session.abandoned', noTimes.id)).toBe(0);
		// ...but its completion is reported, once.
		world.complete(noTimes, false);
		runner.poll();
		runner.poll();
		expect(runner.count('session.completed', noTimes.id)).toBe(1);
	});

	it('null timestamps at the top of a page (a server that sorts nulls first) are skipped by the stop rule', () => {
		const settings = makeSettings({ events: { requestCreated: false } });
		const world = new World();
		const runner = new Runner(world, settings);
		runner.poll();
		const nulls = Array.from({ length: 3 }, () => makeSession({ created_at: null, updated_at: null }));
		const fresh = world.start();
		const fetched = {
			now: world.now,
			sessions: { items: [...nulls, fresh], exhausted: true, lowest: Date.parse(fresh.updated_at!) },
		};
		const result = diff(runner.state, fetched, settings);
		expect(result.state.sessions!.cursor).toBe(Date.parse(fresh.updated_at!));
		expect(result.state.sessions!.pending).toEqual({ [fresh.id]: Date.parse(fresh.updated_at!) });
	});

	it('a timestamp far in the future does not move the cursor', () => {
		const world = new World();
		world.addRequest();
		const runner = new Runner(world, makeSettings());
		runner.poll();
		world.advance(MIN);
		const bogus = world.addRequest({ created_at: iso(world.now + 365 * 86_400_000) });
		const result = runner.poll();
		expect(result.ids).toEqual([`request.created:${bogus.id}`]);
		expect(result.state.requests!.cursor).toBeLessThan(world.now);
		const normal = world.addRequest();
		expect(runner.poll().ids).toEqual([`request.created:${normal.id}`]);
	});
});

describe('state across restarts and lost saves', () => {
	it('the saved copy of a null poll is lost: the next poll from the older copy gives the same events, once', () => {
		const world = new World();
		const settings = makeSettings();
		const saved = new Runner(world, settings); // keeps only states of polls that emitted
		const keptAll = { state: undefined as ReturnType<World['poll']>['state'] | undefined };
		const first = world.poll(undefined, settings);
		saved.state = first.state;
		keptAll.state = first.state;
		const emitted: string[] = [];
		for (let round = 0; round < 12; round++) {
			world.advance(7 * MIN);
			if (round % 3 === 0) world.start();
			if (round % 4 === 1) world.addRequest();
			if (round % 5 === 2) world.bookWithoutDraft();
			const result = world.poll(saved.state, settings);
			emitted.push(...result.ids);
			if (result.events.length > 0) saved.state = result.state; // n8n 1.x saves only when emitting
		}
		world.advance(3 * DELAY);
		emitted.push(...world.poll(saved.state, settings).ids);
		// Reference run on a second world would differ in ids; check the invariants instead.
		expect(new Set(emitted).size).toBe(emitted.length);
		const expected = [
			...world.requests.map((request) => `request.created:${request.id}`),
			...world.sessions.filter((s) => s.request_id).map((s) => `session.completed:${s.id}:${s.request_id}`),
			...world.sessions.filter((s) => !s.request_id).map((s) => `session.abandoned:${s.id}:${Date.parse(s.updated_at!)}`),
		];
		expect(emitted.sort()).toEqual(expected.sort());
	});

	it('re-delivery after a crash repeats the same event ids (downstream can deduplicate)', () => {
		const world = new World();
		const settings = makeSettings();
		const base = world.poll(undefined, settings).state;
		world.advance(MIN);
		world.addRequest();
		world.bookWithoutDraft();
		const delivered = world.poll(base, settings);
		// n8n crashed before the static data was saved: the next poll starts from `base` again.
		const again = world.poll(base, settings);
		expect(again.ids).toEqual(delivered.ids);
		expect(delivered.ids).toHaveLength(3);
	});

	it('static data survives a JSON round trip and reads back identical', () => {
		const world = new World();
		const settings = makeSettings();
		const runner = new Runner(world, settings);
		runner.poll();
		world.start();
		world.addRequest();
		runner.poll();
		const stored = JSON.parse(JSON.stringify(runner.state));
		expect(readState(stored, settings.fingerprint, { sessions: true, requests: true })).toEqual(runner.state);
	});
});

describe('reset on filter or events change', () => {
	it('another fingerprint (events, form, API key) reads as no state: a new baseline, no replay, no skip of later events', () => {
		const world = new World();
		const settings = makeSettings();
		const runner = new Runner(world, settings);
		runner.poll();
		world.advance(MIN);
		world.addRequest();
		const old = world.start();
		runner.poll(); // emits the request
		world.advance(MIN);
		const unseen = world.addRequest(); // happened while the trigger was being reconfigured
		const changed = makeSettings({ fingerprint: 'fp-2' });
		const previous = readState(JSON.parse(JSON.stringify(runner.state)), changed.fingerprint, { sessions: true, requests: true });
		expect(previous).toBeUndefined();
		const reset = world.poll(previous, changed);
		expect(reset.baseline).toBe(true);
		expect(reset.events).toEqual([]); // no replay of `unseen` (history for the new configuration)
		expect(reset.state.fp).toBe('fp-2');
		expect(Object.keys(reset.state.sessions!.pending)).toEqual([old.id]); // still active: still watched
		world.advance(MIN);
		const next = world.addRequest();
		const after = world.poll(reset.state, changed);
		expect(after.ids).toEqual([`request.created:${next.id}`]);
		expect(after.ids).not.toContain(`request.created:${unseen.id}`);
	});

	it('changing the form filter in the node resets through the fingerprint', () => {
		// The fingerprint is built by the node from the events, the form and the API target (see node tests);
		// here: a state written for one set of lists is refused for another.
		const world = new World();
		const runner = new Runner(world, makeSettings());
		runner.poll();
		const stored = JSON.parse(JSON.stringify(runner.state));
		expect(readState(stored, 'fp-1', { sessions: true, requests: true })).toBeDefined();
		expect(readState(stored, 'fp-1', { sessions: true, requests: false })).toBeUndefined();
		expect(readState({ ...stored, v: 99 }, 'fp-1', { sessions: true, requests: true })).toBeUndefined();
		expect(readState('garbage', 'fp-1', { sessions: true, requests: true })).toBeUndefined();
		expect(readState({ ...stored, sessions: { ...stored.sessions, pending: { x: 'y' } } }, 'fp-1', { sessions: true, requests: true })).toBeUndefined();
	});
});

describe('read depth', () => {
	it('a quiet poll reads down to the cursor only; a due watched session lowers the floor to its activity', () => {
		const settings = makeSettings();
		const world = new World();
		const runner = new Runner(world, settings);
		runner.poll();
		const session = world.start();
		runner.poll();
		const state = runner.state!;
		expect(sessionsFloor(state, settings, world.now, null)).toBe(state.sessions!.cursor! - EDGE_WINDOW_MS);
		const at = Date.parse(session.updated_at!);
		expect(sessionsFloor(state, settings, at + DELAY, null)).toBe(Math.min(at, state.sessions!.cursor! - EDGE_WINDOW_MS));
		expect(requestsFloor(state, null)).toBe(state.requests!.cursor === null ? -Infinity : state.requests!.cursor - EDGE_WINDOW_MS);
		// Baseline: down to the abandonment delay (and the edge window under the newest item).
		expect(sessionsFloor(undefined, settings, T0 + DELAY * 4, T0)).toBe(T0 - EDGE_WINDOW_MS);
		expect(sessionsFloor(undefined, settings, T0 + 10 * MIN, T0 + 5 * MIN)).toBe(T0 + 10 * MIN - DELAY);
	});
});

describe('a long random run against an oracle', () => {
	it('300 sessions, churn, completions, placeholders and requests over 40 polls: every expected event once, nothing else', () => {
		let seed = 7;
		const rnd = () => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			return seed / 2 ** 31;
		};
		const world = new World();
		seeded(world, 80, 3 * 86_400_000);
		const settings = makeSettings({ fireAgainIfReabandoned: false });
		const runner = new Runner(world, settings);
		runner.poll();
		const baselineAt = world.now;
		const started: string[] = [];
		for (let poll = 0; poll < 40; poll++) {
			const actions = 5 + Math.floor(rnd() * 25);
			for (let i = 0; i < actions; i++) {
				world.advance(Math.floor(rnd() * 20_000));
				const roll = rnd();
				const open = world.sessions.filter((s) => !s.request_id && Date.parse(s.created_at ?? '') >= baselineAt);
				if (roll < 0.45 && started.length < 300) started.push(world.start({ form_id: FORM_A }).id);
				else if (roll < 0.75 && open.length) world.save(open[Math.floor(rnd() * open.length)]);
				else if (roll < 0.88 && open.length) world.complete(open[Math.floor(rnd() * open.length)]);
				else if (roll < 0.94) world.bookWithoutDraft();
				else world.addRequest();
			}
			world.advance(Math.floor(rnd() * 10 * MIN));
			runner.poll();
		}
		world.advance(2 * DELAY);
		runner.poll();
		runner.poll();

		const ids = runner.log.map((entry) => entry.eventId);
		expect(new Set(ids).size).toBe(ids.length);
		const newSessions = world.sessions.filter((s) => Date.parse(s.created_at ?? '') >= baselineAt);
		// Oracle: every request since the baseline; every session completed since; and every session that went
		// idle for the delay while open — it is reported once (the option is off) for its first idle period.
		expect(runner.count('request.created')).toBe(world.requests.filter((r) => Date.parse(r.created_at) >= baselineAt).length);
		expect(runner.count('session.completed')).toBe(newSessions.filter((s) => s.request_id).length);
		const openAtEnd = newSessions.filter((s) => !s.request_id);
		for (const session of openAtEnd) expect(runner.count('session.abandoned', session.id)).toBe(1);
		for (const entry of runner.log.filter((e) => e.event === 'session.abandoned')) {
			expect(newSessions.some((s) => s.id === entry.id)).toBe(true);
		}
	});
});
