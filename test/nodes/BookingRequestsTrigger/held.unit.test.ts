/**
 * Held sessions (diff.ts `holdFurther`): when a backlog's open drafts lie together under the bookings
 * that the completions window reads first, the horizon's floor passes the backlog in that same read and
 * holds the drafts (hashed id and `updated_at`), to judge them on a fresh read of their own pages once
 * every window has reached their event time. What a marketer sees must not change: each draft judged
 * once, on its copy at that time (a draft saved or completed meanwhile is judged where it is now), no
 * id in clear in the state, and a state written by this version read back (or refused) whole.
 */
import { readState } from '../../../nodes/BookingRequestsTrigger/state/codec';
import { listsFor } from '../../../nodes/BookingRequestsTrigger/events';
import type { BookingSession } from '../../../nodes/shared/types';
import { makeSettings, MIN, Runner, World } from '../../support/triggerWorld';

const settings = makeSettings({ abandonedAfterMs: MIN, skipIfBooked: true });

/** A backlog: `drafts` open drafts, then `bookings` completed bookings above them, all a delay ago. */
async function backlog(drafts: number, bookings: number): Promise<{ runner: Runner; drafts: BookingSession[] }> {
	const world = new World();
	const runner = new Runner(world, settings);
	await runner.poll();
	world.advance(5_000);
	const open: BookingSession[] = [];
	for (let i = 0; i < drafts; i++) {
		world.advance(3);
		open.push(world.start());
	}
	for (let i = 0; i < bookings; i++) {
		world.advance(3);
		world.complete(world.start());
	}
	world.advance(2 * MIN);
	runner.log = [];
	return { runner, drafts: open };
}

/** Polls with a 30-call budget until a poll is quiet; `pages` gets each session page read. */
async function drain(runner: Runner, between: (poll: number) => void = () => undefined, pages: number[] = []): Promise<void> {
	for (let poll = 1; poll < 30; poll++) {
		const result = await runner.poll({ budget: 30, beforePage: (list, page) => list === 'sessions' && pages.push(page) });
		if (!result.cut && result.events.length === 0) return;
		between(poll);
		runner.world.advance(MIN);
	}
	throw new Error('did not drain');
}

test('drafts under a backlog are held after the first read, and only their pages are read again', async () => {
	const { runner, drafts } = await backlog(250, 2_000);
	const firstPages: number[] = [];
	const first = await runner.poll({ budget: 30, beforePage: (list, page) => list === 'sessions' && firstPages.push(page) });
	expect(first.cut).toBe(true);
	const held = runner.state?.sessions?.held;
	expect(held).toBeDefined();
	expect(Object.values(held!.codes).join('').length).toBe(250 * 8);
	// hashed: no session id in the state
	const text = JSON.stringify(runner.state);
	for (const draft of drafts) expect(text).not.toContain(draft.id);
	// the horizon's floor is past the part read (not stuck below the drafts)
	expect(runner.state!.sessions!.horizon.floor).toBeGreaterThan(Math.max(...drafts.map((draft) => Date.parse(draft.updated_at!))));
	runner.world.advance(MIN);
	const pages: number[] = [];
	await drain(runner, undefined, pages);
	expect(runner.count('session.abandoned')).toBe(250);
	expect(runner.count('session.completed')).toBe(2_000);
	expect(runner.state?.sessions?.held).toBeUndefined();
	// read back: the state with held sessions is valid as it is
	expect(readState(JSON.parse(text), { fingerprint: settings.fingerprint, lists: listsFor(settings) })?.sessions?.held).toEqual(held);
	// 2,250 sessions (23 pages): the first poll read the bottom ones, drafts (pages 21-23) and bookings;
	// read again later: the drafts' pages and the page above them (where their run starts), and the top
	// page of the first run (the completions' floor lies on it), nothing else
	const readAgain = pages.filter((page) => page > 1 && firstPages.includes(page));
	const runTop = Math.min(...firstPages.filter((page) => page > 1));
	expect(firstPages).toEqual(expect.arrayContaining([21, 22, 23]));
	expect(runTop).toBeLessThan(20);
	expect(readAgain.sort((a, b) => a - b)).toEqual([runTop, 20, 21, 22, 23]);
});

test('a held draft saved again is judged where it is now; a held draft completed is no abandonment', async () => {
	const { runner, drafts } = await backlog(40, 2_000);
	const world = runner.world;
	const [saved, completed] = [drafts[3], drafts[7]];
	await drain(runner, (poll) => {
		if (poll !== 1) return;
		// both were held by the first poll; they change before the poll that judges them
		expect(runner.state?.sessions?.held).toBeDefined();
		world.save(saved);
		world.complete(completed);
	});
	// the saved draft: not at its old activity; once, a delay after its new one (a later poll)
	const savedEvents = runner.log.filter((entry) => entry.event === 'session.abandoned' && entry.id === saved.id);
	expect(savedEvents.length).toBeLessThanOrEqual(1);
	world.advance(2 * MIN);
	await drain(runner);
	const after = runner.log.filter((entry) => entry.event === 'session.abandoned' && entry.id === saved.id);
	expect(after).toHaveLength(1);
	expect(after[0].eventId).toBe(`session.abandoned:${saved.id}:${Date.parse(saved.updated_at!)}`);
	expect(runner.count('session.abandoned', completed.id)).toBe(0);
	expect(runner.count('session.completed', completed.id)).toBe(1);
	expect(runner.count('session.abandoned')).toBe(39);
});

test('a state with a malformed held part is not read (a new baseline), never a crash', () => {
	const world = new World();
	const base = {
		v: 3,
		fp: settings.fingerprint,
		since: world.now,
		polledAt: world.now,
		skewMs: 0,
		requests: { floor: world.now, done: {} },
		sessions: { completions: { floor: world.now, done: {} }, horizon: { floor: world.now, done: {} }, checkpoints: [], seen: {} },
	};
	const lists = listsFor(settings);
	expect(readState(base, { fingerprint: settings.fingerprint, lists: lists })).toBeDefined();
	const withHeld = (held: unknown) => ({ ...base, sessions: { ...base.sessions, held } });
	expect(readState(withHeld({ floor: world.now, done: {}, codes: { [String(world.now + 1)]: 'AAAAAAAA' }, topBelow: 3 }), { fingerprint: settings.fingerprint, lists: lists })?.sessions?.held?.topBelow).toBe(3);
	expect(readState(withHeld({ floor: world.now, done: {}, codes: { x: 'AAAAAAAA' } }), { fingerprint: settings.fingerprint, lists: lists })).toBeUndefined();
	expect(readState(withHeld({ floor: world.now, done: {}, codes: { [String(world.now)]: 'short' } }), { fingerprint: settings.fingerprint, lists: lists })).toBeUndefined();
	expect(readState(withHeld({ floor: world.now, done: {}, codes: {}, topBelow: -1 }), { fingerprint: settings.fingerprint, lists: lists })).toBeUndefined();
	expect(readState(withHeld({ done: {}, codes: {} }), { fingerprint: settings.fingerprint, lists: lists })).toBeUndefined();
});
