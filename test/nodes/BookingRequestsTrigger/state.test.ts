import { PollClock } from '../../../nodes/BookingRequestsTrigger/fetch';
import type { SessionsState } from '../../../nodes/BookingRequestsTrigger/state';
import {
	EDGE_WINDOW_MS,
	LIMITS,
	RETENTION_MS,
	edgeKey,
	pruneEdge,
	pruneSessions,
	readState,
	serverNow,
	timeOf,
} from '../../../nodes/BookingRequestsTrigger/state';
import { MIN, Runner, T0, World, makeSettings, uuid } from '../../support/triggerWorld';

const DAY = 86_400_000;

function sessionsState(overrides: Partial<SessionsState> = {}): SessionsState {
	return { cursor: T0, edge: [], pending: {}, abandoned: {}, completed: {}, ...overrides };
}

describe('state bounds', () => {
	it('edge keys: only the window under the cursor, at most LIMITS.edge, newest kept', () => {
		const keys = [edgeKey('a', T0), edgeKey('b', T0 - EDGE_WINDOW_MS), edgeKey('c', T0 - EDGE_WINDOW_MS - 1), edgeKey('a', T0)];
		expect(pruneEdge(keys, T0)).toEqual([edgeKey('a', T0), edgeKey('b', T0 - EDGE_WINDOW_MS)]);
		const many = Array.from({ length: LIMITS.edge + 50 }, (_, i) => edgeKey(`id${i}`, T0 - i));
		const kept = pruneEdge(many, T0);
		expect(kept).toHaveLength(LIMITS.edge);
		expect(kept).toContain(edgeKey('id0', T0));
		expect(kept).not.toContain(edgeKey(`id${LIMITS.edge + 49}`, T0 - LIMITS.edge - 49));
		expect(pruneEdge(keys, null)).toHaveLength(3);
	});

	it('abandoned: kept 30 days after being seen abandoned, at most LIMITS.abandoned (most recent kept)', () => {
		const now = T0 + 60 * DAY;
		const abandoned: SessionsState['abandoned'] = {
			fresh: [T0, now - RETENTION_MS.abandoned],
			stale: [T0, now - RETENTION_MS.abandoned - 1],
		};
		expect(Object.keys(pruneSessions(sessionsState({ abandoned }), now).abandoned)).toEqual(['fresh']);
		const lots: SessionsState['abandoned'] = {};
		for (let i = 0; i < LIMITS.abandoned + 10; i++) lots[`s${i}`] = [T0, now - i];
		const pruned = pruneSessions(sessionsState({ abandoned: lots }), now).abandoned;
		expect(Object.keys(pruned)).toHaveLength(LIMITS.abandoned);
		expect(pruned.s0).toBeDefined();
		expect(pruned[`s${LIMITS.abandoned + 9}`]).toBeUndefined();
	});

	it('completed: kept 7 days after last listed, at most LIMITS.completed', () => {
		const now = T0 + 30 * DAY;
		const completed = { fresh: now - RETENTION_MS.completed, stale: now - RETENTION_MS.completed - 1 };
		expect(Object.keys(pruneSessions(sessionsState({ completed }), now).completed)).toEqual(['fresh']);
		const lots: Record<string, number> = {};
		for (let i = 0; i < LIMITS.completed + 10; i++) lots[`s${i}`] = now - i;
		expect(Object.keys(pruneSessions(sessionsState({ completed: lots }), now).completed)).toHaveLength(LIMITS.completed);
	});

	it('pending: at most LIMITS.pending, the most recent activity kept', () => {
		const pending: Record<string, number> = {};
		for (let i = 0; i < LIMITS.pending + 5; i++) pending[`s${i}`] = T0 - i;
		const pruned = pruneSessions(sessionsState({ pending }), T0).pending;
		expect(Object.keys(pruned)).toHaveLength(LIMITS.pending);
		expect(pruned.s0).toBe(T0);
		expect(pruned[`s${LIMITS.pending + 4}`]).toBeUndefined();
	});

	it('a busy workspace keeps the stored state within its bounds over many polls', () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ abandonedAfterMs: 24 * 60 * MIN }));
		runner.poll();
		for (let round = 0; round < 6; round++) {
			for (let i = 0; i < 500; i++) {
				world.advance(50);
				const session = world.start();
				if (i % 3 === 0) world.complete(session);
			}
			world.advance(60 * MIN);
			runner.poll();
		}
		const state = runner.state!;
		expect(Object.keys(state.sessions!.pending).length).toBeLessThanOrEqual(LIMITS.pending);
		expect(Object.keys(state.sessions!.completed).length).toBeLessThanOrEqual(LIMITS.completed);
		expect(state.sessions!.edge.length).toBeLessThanOrEqual(LIMITS.edge);
		expect(state.requests!.edge.length).toBeLessThanOrEqual(LIMITS.edge);
		// Worst case size of the static data stays in the hundreds of kilobytes.
		expect(JSON.stringify(state).length).toBeLessThan(400_000);
	});
});

describe('reading state back', () => {
	it('returns a copy: changing it does not change the stored object', () => {
		const id = uuid();
		const raw = {
			v: 1,
			fp: 'fp',
			since: T0,
			polledAt: T0,
			skewMs: 0,
			sessions: { cursor: T0, edge: [], pending: { [id]: T0 }, abandoned: {}, completed: {} },
		};
		const state = readState(raw, 'fp', { sessions: true, requests: false })!;
		state.sessions!.pending[id] = 0;
		expect(raw.sessions.pending[id]).toBe(T0);
	});

	it('refuses malformed parts', () => {
		const base = { v: 1, fp: 'fp', since: T0, polledAt: T0, skewMs: 0, requests: { cursor: T0, edge: [] } };
		expect(readState(base, 'fp', { sessions: false, requests: true })).toBeDefined();
		expect(readState({ ...base, requests: { cursor: 'x', edge: [] } }, 'fp', { sessions: false, requests: true })).toBeUndefined();
		expect(readState({ ...base, requests: { cursor: T0, edge: [1] } }, 'fp', { sessions: false, requests: true })).toBeUndefined();
		expect(readState({ ...base, since: null }, 'fp', { sessions: false, requests: true })).toBeUndefined();
		expect(readState(base, 'other', { sessions: false, requests: true })).toBeUndefined();
	});
});

describe('server time', () => {
	it('timeOf reads ISO timestamps and gives null for null, empty or unreadable values', () => {
		expect(timeOf('2026-11-01T12:00:00.000Z')).toBe(T0);
		expect(timeOf(null)).toBeNull();
		expect(timeOf('')).toBeNull();
		expect(timeOf('yesterday')).toBeNull();
	});

	it("uses the server's Date header; without one, n8n's clock corrected by the last measured skew", () => {
		expect(serverNow(T0, T0 + 3 * 60 * MIN, 0)).toBe(T0);
		expect(serverNow(undefined, T0, -5000)).toBe(T0 - 5000);
		expect(serverNow(undefined, T0, undefined)).toBe(T0);
	});

	it('PollClock: the first answer of a poll fixes "now" for the whole poll and measures the skew', () => {
		let local = T0 + 2 * 60 * MIN; // n8n's clock is 2 hours ahead of the API
		const clock = new PollClock(undefined, () => local);
		clock.observe(T0);
		local += 10_000;
		clock.observe(T0 + 10_000);
		expect(clock.now).toBe(T0);
		expect(clock.skewMs).toBe(-2 * 60 * MIN);
		const fallback = new PollClock(-2 * 60 * MIN, () => local);
		fallback.observe(undefined);
		expect(fallback.now).toBe(local - 2 * 60 * MIN);
		expect(fallback.skewMs).toBeUndefined();
	});
});
