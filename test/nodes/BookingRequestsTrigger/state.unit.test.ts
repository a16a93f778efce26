/**
 * The trigger's state: compact memories (hashed ids), their bounds and sizes, reading a stored state
 * back, checkpoints, and the server's time.
 */
import { PollClock } from '../../../nodes/BookingRequestsTrigger/poll/budget';
import { CODE_LENGTH, KeySet, codeOf } from '../../../nodes/BookingRequestsTrigger/state/keySet';
import { DAY_MS, SEEN_LIMIT, SEEN_RETENTION_DAYS, SeenMemory } from '../../../nodes/BookingRequestsTrigger/state/seen';
import { serverNow } from '../../../nodes/BookingRequestsTrigger/poll/budget';
import { MAX_CHECKPOINTS, pruneCheckpoints } from '../../../nodes/BookingRequestsTrigger/rules/next';
import { readState } from '../../../nodes/BookingRequestsTrigger/state/codec';
import { timestampMs as timeOf } from '../../../nodes/shared/utils';
import { MIN, Runner, T0, World, makeSettings, uuid } from '../../support/triggerWorld';
import { printFigures } from '../../support/figures';

describe('hashed ids', () => {
	it('an id is remembered as 8 base64url characters; the id itself is not in the state', () => {
		const id = uuid();
		expect(codeOf(id)).toMatch(/^[A-Za-z0-9_-]{8}$/);
		expect(codeOf(id)).toHaveLength(CODE_LENGTH);
		expect(codeOf(id)).toBe(codeOf(id));
		expect(codeOf(id)).not.toBe(codeOf(uuid()));
	});

	it('KeySet: ids by timestamp, pruned below a floor, JSON round trip', () => {
		const set = new KeySet();
		set.add(T0, 'a');
		set.add(T0, 'b');
		set.add(T0 + 5, 'c');
		expect(set.has(T0, 'a') && set.has(T0, 'b') && set.has(T0 + 5, 'c')).toBe(true);
		expect(set.has(T0 + 5, 'a')).toBe(false);
		const packed = set.encode();
		expect(Object.keys(packed)).toEqual([String(T0), String(T0 + 5)]);
		expect(JSON.stringify(packed)).not.toContain('"a"');
		const back = KeySet.decode(JSON.parse(JSON.stringify(packed)));
		expect(back.size).toBe(3);
		const pruned = back.above(T0);
		expect(pruned.size).toBe(1);
		expect(pruned.has(T0 + 5, 'c')).toBe(true);
	});
});

describe('seen memory (sessions seen abandoned)', () => {
	it(`50,000 sessions over 30 days fit in ${SEEN_LIMIT * CODE_LENGTH} characters; measured size`, () => {
		const memory = new SeenMemory();
		const ids = Array.from({ length: 50_000 }, () => uuid());
		ids.forEach((id, i) => memory.add(id, T0 + Math.floor((i / ids.length) * 30) * DAY_MS));
		memory.prune(T0 + 29 * DAY_MS);
		expect(memory.droppedForBound).toBe(0);
		const bytes = JSON.stringify(memory.encode()).length;
		printFigures(`[state] seen memory: 50,000 sessions over 30 days = ${bytes} bytes of static data`);
		expect(bytes).toBeLessThan(410_000);
		const back = SeenMemory.decode(JSON.parse(JSON.stringify(memory.encode())));
		expect(ids.every((id) => back.has(id))).toBe(true);
		expect(back.has(uuid())).toBe(false);
	});

	it('forgets sessions seen abandoned more than 30 days ago', () => {
		const memory = new SeenMemory();
		memory.add('old', T0);
		memory.add('recent', T0 + 10 * DAY_MS);
		memory.prune(T0 + (SEEN_RETENTION_DAYS + 1) * DAY_MS);
		expect(memory.has('old')).toBe(false);
		expect(memory.has('recent')).toBe(true);
		expect(memory.droppedForBound).toBe(0);
	});

	it('past the bound, the oldest sessions are dropped and counted, within a day too (the node logs a warning)', () => {
		const memory = new SeenMemory();
		for (let i = 0; i < 30; i++) memory.add(`day0-${i}`, T0);
		for (let i = 0; i < 30; i++) memory.add(`day1-${i}`, T0 + DAY_MS);
		memory.prune(T0 + DAY_MS, 40);
		expect(memory.droppedForBound).toBe(20);
		expect(memory.has('day0-19')).toBe(false);
		expect(memory.has('day0-20')).toBe(true);
		expect(memory.has('day1-0')).toBe(true);
		expect(memory.size).toBe(40);
		const back = SeenMemory.decode(JSON.parse(JSON.stringify(memory.encode())));
		expect(back.size).toBe(40);
	});

	it('a busy day past the bound keeps its newest sessions (before: the whole memory was dropped)', () => {
		const memory = new SeenMemory();
		for (let i = 0; i < 60; i++) memory.add(`busy-${i}`, T0 + i * 1000);
		memory.prune(T0 + DAY_MS / 2, 40);
		expect(memory.droppedForBound).toBe(20);
		expect(memory.size).toBe(40);
		expect(memory.has('busy-19')).toBe(false);
		expect(memory.has('busy-20')).toBe(true);
		expect(memory.has('busy-59')).toBe(true);
	});

	it('over polls, the memory past its bound warns through the poll result', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ events: { sessionCompleted: false, requestCreated: false } }));
		await runner.poll();
		const packed: Record<string, string> = {};
		// A state that holds SEEN_LIMIT sessions seen yesterday and the day before.
		const day = Math.floor(world.now / DAY_MS);
		packed[String(day - 2)] = Array.from({ length: SEEN_LIMIT / 2 }, () => codeOf(uuid())).join('');
		packed[String(day - 1)] = Array.from({ length: SEEN_LIMIT / 2 }, () => codeOf(uuid())).join('');
		runner.state!.sessions!.seen = packed;
		world.start();
		world.advance(31 * MIN);
		const result = await runner.poll();
		expect(result.events).toHaveLength(1);
		// One over the bound: the oldest one session goes (before: the whole oldest day, 28,000).
		expect(result.forgotten?.seen).toBe(1);
		expect(JSON.stringify(runner.state).length).toBeLessThan(500_000);
	});
});

describe('state size does not grow with traffic', () => {
	it('a busy workspace (thousands of sessions, completions, requests) keeps the state small apart from the seen memory', async () => {
		const world = new World();
		const runner = new Runner(world, makeSettings({ abandonedAfterMs: 24 * 60 * MIN }));
		await runner.poll();
		const sizes: number[] = [];
		for (let round = 0; round < 8; round++) {
			for (let i = 0; i < 500; i++) {
				world.advance(50);
				const session = world.start();
				if (i % 3 === 0) world.complete(session);
				if (i % 5 === 0) world.addRequest();
			}
			world.advance(60 * MIN);
			await runner.poll();
			const { seen, ...rest } = runner.state!.sessions!;
			sizes.push(JSON.stringify({ ...runner.state, sessions: rest }).length);
			expect(seen).toEqual({}); // nobody idle for 24 h yet
		}
		expect(Math.max(...sizes)).toBeLessThan(2_000);
	});
});

describe('checkpoints', () => {
	it('keeps the newest one at or before the horizon floor and those after it, at most MAX_CHECKPOINTS, spread out', () => {
		const checkpoints: Array<[number, number]> = Array.from({ length: 200 }, (_, i) => [T0 + i * MIN, i * 10]);
		const kept = pruneCheckpoints(checkpoints, T0 + 100 * MIN + 30_000);
		expect(kept[0]).toEqual([T0 + 100 * MIN, 1000]);
		expect(kept.at(-1)).toEqual([T0 + 199 * MIN, 1990]);
		expect(kept).toHaveLength(MAX_CHECKPOINTS);
		const gaps = kept.slice(1).map((checkpoint, i) => checkpoint[0] - kept[i][0]);
		expect(Math.max(...gaps)).toBeLessThanOrEqual(4 * MIN);
	});
});

describe('reading state back', () => {
	it('returns a copy: changing it does not change the stored object', () => {
		const raw = {
			v: 2,
			fp: 'fp',
			since: T0,
			polledAt: T0,
			skewMs: 0,
			requests: { floor: T0, done: { [String(T0)]: codeOf('x') }, below: 3 },
		};
		const state = readState(raw, { fingerprint: 'fp', lists: { sessions: false, requests: true } })!;
		state.requests!.done[String(T0)] = '';
		expect(raw.requests.done[String(T0)]).toBe(codeOf('x'));
	});

	it('refuses malformed parts (a new baseline, never an error)', () => {
		const base = { v: 2, fp: 'fp', since: T0, polledAt: T0, skewMs: 0, requests: { floor: T0, done: {} } };
		const lists = { sessions: false, requests: true };
		expect(readState(base, { fingerprint: 'fp', lists: lists })).toBeDefined();
		expect(readState({ ...base, requests: { floor: 'x', done: {} } }, { fingerprint: 'fp', lists: lists })).toBeUndefined();
		expect(readState({ ...base, requests: { floor: T0, done: { [String(T0)]: 'short' } } }, { fingerprint: 'fp', lists: lists })).toBeUndefined();
		expect(readState({ ...base, requests: { floor: T0, done: { soon: codeOf('x') } } }, { fingerprint: 'fp', lists: lists })).toBeUndefined();
		expect(readState({ ...base, requests: { floor: T0, done: {}, below: -1 } }, { fingerprint: 'fp', lists: lists })).toBeUndefined();
		expect(readState({ ...base, since: null }, { fingerprint: 'fp', lists: lists })).toBeUndefined();
		expect(readState(base, { fingerprint: 'other', lists: lists })).toBeUndefined();
		const sessions = { completions: { floor: T0, done: {} }, horizon: { floor: T0, done: {} }, checkpoints: [[T0, 5]], seen: {} };
		const withSessions = { ...base, requests: undefined, sessions };
		expect(readState(withSessions, { fingerprint: 'fp', lists: { sessions: true, requests: false } })).toBeDefined();
		expect(readState({ ...withSessions, sessions: { ...sessions, checkpoints: [[T0]] } }, { fingerprint: 'fp', lists: { sessions: true, requests: false } })).toBeUndefined();
		expect(readState({ ...withSessions, sessions: { ...sessions, seen: { x: 'y' } } }, { fingerprint: 'fp', lists: { sessions: true, requests: false } })).toBeUndefined();
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
