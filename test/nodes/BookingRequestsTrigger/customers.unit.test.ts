/**
 * Retargeting by customer: Skip Customers Who Booked, the customer cooldown, recovery by
 * customer, and the hashed customer memories behind them. Pure: the trigger's real poll loop against
 * the in-memory list model (test/support/triggerWorld.ts).
 */
import { BOOKED_RETENTION_DAYS, BookedMemory } from '../../../nodes/BookingRequestsTrigger/events/skipBooked';
import { customerCodes, packId, REMINDED_RETENTION_DAYS, RemindedMemory, unpackId } from '../../../nodes/BookingRequestsTrigger/state/customers';
import { DAY_MS, SeenMemory } from '../../../nodes/BookingRequestsTrigger/state/seen';
import { readState } from '../../../nodes/BookingRequestsTrigger/state/codec';
import type { Customer } from '../../support/triggerWorld';
import { FORM_A, makeSettings, MIN, newCustomer, Runner, T0, World } from '../../support/triggerWorld';
import { printFigures } from '../../support/figures';

const SKIP = { skipIfBooked: true };
const OTHER_FORM = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';

async function activated(settings = makeSettings(SKIP)): Promise<{ world: World; runner: Runner }> {
	const world = new World();
	const runner = new Runner(world, settings);
	await runner.poll(); // baseline
	return { world, runner };
}

const abandonedIds = (runner: Runner) => runner.log.filter((entry) => entry.event === 'session.abandoned').map((entry) => entry.id);

describe('customer memories', () => {
	it('packs a session id (UUID in 22 characters, anything else escaped) and reads it back', () => {
		const uuid = '0f1e2d3c-4b5a-4697-8877-665544332211';
		expect(packId(uuid)).toHaveLength(22);
		expect(unpackId(packId(uuid))).toBe(uuid);
		expect(unpackId(packId('sess,1'))).toBe('sess,1');
	});

	it('customer codes: e-mail and phone hashed, the same customer in a draft and a request', () => {
		const draft = customerCodes({ email: ' Cleo@Example.com ', phone: '(512) 555-0199' });
		const request = customerCodes({ email: 'cleo@example.com', phone: '+15125550199' });
		expect(draft).toEqual(request);
		expect(draft).toHaveLength(2);
		for (const code of draft) expect(code).toMatch(/^[A-Za-z0-9_-]{8}$/);
		expect(customerCodes({ email: null, phone: '12' })).toEqual([]);
	});

	it('BookedMemory: newest booking per key, round trip, retention and bound (oldest first)', () => {
		const memory = new BookedMemory();
		const [a, b, c] = ['a', 'b', 'c'].map((name) => customerCodes({ email: `${name}@example.com` }));
		memory.add(a, T0 + 1234);
		memory.add(a, T0 - 5000); // older: does not replace
		memory.add(b, T0 - 2 * DAY_MS + 7);
		memory.add(c, T0 - (BOOKED_RETENTION_DAYS + 1) * DAY_MS);
		const back = BookedMemory.decode(JSON.parse(JSON.stringify(memory.encode())));
		expect(back.newest(a)).toBe(T0 + 1234);
		expect(back.newest(b)).toBe(T0 - 2 * DAY_MS + 7);
		back.prune(T0);
		expect(back.newest(c)).toBeUndefined(); // past the retention
		expect(back.droppedForBound).toBe(0);
		back.prune(T0, 1);
		expect(back.droppedForBound).toBe(1);
		expect(back.newest(b)).toBeUndefined();
		expect(back.newest(a)).toBe(T0 + 1234);
	});

	it('past the retention a UTC day is forgotten whole: the oldest day is not written again at every poll', () => {
		const day = (n: number) => Math.floor(T0 / DAY_MS) * DAY_MS + n * DAY_MS;
		const booked = new BookedMemory();
		const reminded = new RemindedMemory();
		// 300 customers an hour over the oldest kept day and the next (the bound is far)
		for (let i = 0; i < 600; i++) {
			const at = day(0) + Math.floor((i * 2 * DAY_MS) / 600);
			const codes = customerCodes({ email: `day${i}@example.com` });
			booked.add(codes, at);
			reminded.add({ codes, sessionId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, activity: at - 30 * MIN, at });
		}
		const first = customerCodes({ email: 'day0@example.com' });
		for (const [memory, retention] of [
			[booked, BOOKED_RETENTION_DAYS],
			[reminded, REMINDED_RETENTION_DAYS],
		] as const) {
			const before = JSON.stringify(memory.encode());
			// every minute of the day after the retention reached the oldest day's first entries
			for (let now = day(retention) + MIN; now < day(retention + 1); now += 60 * MIN) {
				memory.prune(now);
				expect(JSON.stringify(memory.encode())).toBe(before);
			}
			expect(memory.size).toBe(600);
			memory.prune(day(retention + 1));
			expect(memory.size).toBe(300);
		}
		expect(booked.newest(first)).toBeUndefined();
		expect(reminded.last(first)).toBeUndefined();
		const last = customerCodes({ email: 'day599@example.com' });
		expect(booked.newest(last)).toBe(day(0) + Math.floor((599 * 2 * DAY_MS) / 600));
		expect(reminded.last(last)?.sessionId).toBe('00000000-0000-4000-8000-000000000599');
	});

	it('over its bound, a memory forgets what is past the retention first (not counted as dropped for the bound)', () => {
		const day = (n: number) => Math.floor(T0 / DAY_MS) * DAY_MS + n * DAY_MS;
		for (const [make, retention] of [
			[() => new BookedMemory(), BOOKED_RETENTION_DAYS],
			[() => new RemindedMemory(), REMINDED_RETENTION_DAYS],
		] as const) {
			const memory = make();
			for (let i = 0; i < 600; i++) {
				const at = day(0) + Math.floor((i * 2 * DAY_MS) / 600);
				const codes = customerCodes({ email: `bound${i}@example.com` });
				if (memory instanceof BookedMemory) memory.add(codes, at);
				else memory.add({ codes, sessionId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, activity: at - 30 * MIN, at });
			}
			const now = day(retention) + DAY_MS / 2; // the first 150 are past the retention
			memory.prune(now, 600);
			expect([memory.size, memory.droppedForBound]).toEqual([600, 0]); // within the bound: the day stays whole
			memory.prune(now, 500);
			expect([memory.size, memory.droppedForBound]).toEqual([450, 0]); // the 150 expired made room
			memory.prune(now, 400);
			expect([memory.size, memory.droppedForBound]).toEqual([400, 50]); // then the oldest within the retention
		}
	});

	it('a busy day past a bound keeps its newest customers (before: the whole memory was dropped)', () => {
		const booked = new BookedMemory();
		const reminded = new RemindedMemory();
		const keys = Array.from({ length: 30 }, (_, i) => customerCodes({ email: `busy${i}@example.com` }));
		keys.forEach((codes, i) => {
			booked.add(codes, T0 + i * 1000);
			reminded.add({ codes, sessionId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, activity: T0 + i * 1000 - 30 * MIN, at: T0 + i * 1000 });
		});
		booked.prune(T0 + DAY_MS / 2, 20);
		reminded.prune(T0 + DAY_MS / 2, 20);
		for (const memory of [booked, reminded]) {
			expect(memory.droppedForBound).toBe(10);
			expect(memory.size).toBe(20);
		}
		expect(booked.newest(keys[9])).toBeUndefined();
		expect(booked.newest(keys[10])).toBe(T0 + 10_000);
		expect(reminded.last(keys[9])).toBeUndefined();
		expect(reminded.last(keys[29])?.at).toBe(T0 + 29_000);
	});

	it('RemindedMemory: the last reported abandonment per customer (either key), round trip, bound', () => {
		const memory = new RemindedMemory();
		const both = customerCodes({ email: 'dana@example.com', phone: '+15125550100' });
		const phoneOnly = customerCodes({ phone: '(512) 555-0100' });
		const id1 = '11111111-1111-4111-8111-111111111111';
		const id2 = '22222222-2222-4222-8222-222222222222';
		memory.add({ codes: both, sessionId: id1, activity: T0 - 2 * DAY_MS - 30 * MIN, at: T0 - 2 * DAY_MS });
		memory.add({ codes: phoneOnly, sessionId: id2, activity: T0 - 30 * MIN, at: T0 });
		const back = RemindedMemory.decode(JSON.parse(JSON.stringify(memory.encode())));
		// the newest of any key: the phone's, also when looked up with e-mail and phone
		expect(back.last(both)).toMatchObject({ codes: phoneOnly, sessionId: id2, activity: T0 - 30 * MIN, at: T0 });
		expect(back.last(customerCodes({ email: 'DANA@example.com' }))?.sessionId).toBe(id1);
		expect(back.size).toBe(2);
		back.prune(T0, 1); // the bound: the oldest goes first
		expect(back.droppedForBound).toBe(1);
		expect(back.last(customerCodes({ email: 'dana@example.com' }))).toBeUndefined();
		expect(back.last(phoneOnly)?.sessionId).toBe(id2);
		back.prune(T0 + (REMINDED_RETENTION_DAYS + 1) * DAY_MS);
		expect(back.size).toBe(0);
	});
});

describe('Skip Customers Who Booked', () => {
	it('a customer who leaves a draft and books in a new session gets no reminder; with the option off they do', async () => {
		for (const skipIfBooked of [true, false]) {
			const { world, runner } = await activated(makeSettings({ skipIfBooked }));
			const cleo = newCustomer();
			world.advance(MIN);
			const draft = world.start({}, cleo);
			world.advance(5 * MIN);
			const other = world.start({}, cleo); // another device
			world.advance(MIN);
			world.complete(other);
			world.advance(40 * MIN);
			const result = await runner.poll();
			expect(abandonedIds(runner)).toEqual(skipIfBooked ? [] : [draft.id]);
			expect(result.skipped.booked).toBe(skipIfBooked ? 1 : 0);
			expect(runner.count('session.completed', other.id)).toBe(1);
		}
	});

	it('a booking without a draft, on another form, phone typed differently: the same customer', async () => {
		const { world, runner } = await activated();
		world.advance(MIN);
		const draft = world.start({}, { email: null, phone: '(512) 555-0199' });
		world.advance(10 * MIN);
		world.bookWithoutDraft({ email: 'someone@example.com', requestPhone: '+15125550199' });
		world.requests.at(-1)!.form_id = OTHER_FORM;
		world.advance(40 * MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toEqual([]);
		expect(runner.log.map((entry) => entry.event).sort()).toEqual(['request.created', 'session.completed']);
		expect(draft.request_id).toBeNull();
	});

	it('a node watching one form: bookings on every form count (the request list read for every form), New Request reports its form only', async () => {
		const { world, runner } = await activated(makeSettings({ ...SKIP, requestsForm: FORM_A }));
		const kim = newCustomer();
		world.advance(MIN);
		world.start({}, kim);
		world.advance(5 * MIN);
		const elsewhere = world.addRequest({ form_id: OTHER_FORM }, kim);
		const here = world.addRequest({ form_id: FORM_A });
		world.advance(40 * MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toEqual([]);
		expect(runner.log.filter((entry) => entry.event === 'request.created').map((entry) => entry.id)).toEqual([here.id]);
		expect(elsewhere.id).not.toBe(here.id);
	});

	it('a booking from before the draft does not count (a returning customer)', async () => {
		const { world, runner } = await activated();
		const dana = newCustomer();
		world.advance(MIN);
		world.bookWithoutDraft(dana);
		world.advance(MIN);
		const draft = world.start({}, dana);
		world.advance(40 * MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toEqual([draft.id]);
	});

	it('counts bookings up to the poll that judges the session, also after the delay passed', async () => {
		const { world, runner } = await activated();
		const eve = newCustomer();
		world.advance(MIN);
		world.start({}, eve);
		world.advance(31 * MIN); // idle for the delay…
		world.addRequest({}, eve); // …and books before the poll
		world.advance(MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toEqual([]);
	});

	it('a booking read in an earlier poll is remembered (hashed) until the draft is judged', async () => {
		const { world, runner } = await activated();
		const finn: Customer = { email: 'Finn@Example.com', phone: '(512) 555-0123', requestPhone: '+15125550123' };
		world.advance(MIN);
		world.start({}, finn);
		world.advance(2 * MIN);
		world.addRequest({}, { email: 'finn@example.com' });
		world.advance(MIN);
		await runner.poll(); // reads the request; the draft is not idle yet
		const stored = JSON.stringify(runner.state);
		expect(stored).not.toMatch(/finn|5550123/i);
		expect(runner.state?.sessions?.booked).toBeDefined();
		world.advance(40 * MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toEqual([]);
	});
});

describe('customer cooldown', () => {
	it('two drafts of one customer idle in the same poll give one event; another within the cooldown none; after it one', async () => {
		const { world, runner } = await activated(makeSettings({ customerCooldownMs: 2 * DAY_MS }));
		const gus = newCustomer();
		world.advance(MIN);
		const first = world.start({}, gus);
		world.advance(MIN);
		world.start({}, gus);
		world.advance(40 * MIN);
		const poll = await runner.poll();
		expect(abandonedIds(runner)).toEqual([first.id]);
		expect(poll.skipped.cooldown).toBe(1);
		world.advance(DAY_MS);
		world.start({}, gus);
		world.advance(40 * MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toEqual([first.id]);
		world.advance(2 * DAY_MS);
		const later = world.start({}, gus);
		world.advance(40 * MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toEqual([first.id, later.id]);
	});

	it('off (0): each draft gives its event', async () => {
		const { world, runner } = await activated(makeSettings());
		const gus = newCustomer();
		world.advance(MIN);
		world.start({}, gus);
		world.start({}, gus);
		world.advance(40 * MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toHaveLength(2);
	});
});

describe('recovery by customer', () => {
	it('a customer reported abandoned who books in a new session: recovered, from that session, minutes since its last activity', async () => {
		const { world, runner } = await activated(makeSettings({ ...SKIP, onlyRecovered: true }));
		const hal = newCustomer();
		world.advance(MIN);
		const left = world.start({}, hal);
		const leftAt = world.now;
		world.advance(40 * MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toEqual([left.id]);
		world.advance(80 * MIN); // the retargeting ad works
		const back = world.start({}, hal);
		world.advance(MIN);
		world.complete(back);
		const completedAt = world.now;
		world.bookWithoutDraft(hal); // and once more, without a draft
		world.start(); // someone else books: not recovered, left out by Only Recovered
		world.complete(world.sessions.at(-1)!);
		world.advance(MIN);
		const poll = await runner.poll();
		const completions = runner.log.filter((entry) => entry.event === 'session.completed');
		expect(completions.map((entry) => [entry.id === back.id, entry.recovered, entry.recoveredFrom])).toEqual([
			[true, true, left.id],
			[false, true, left.id],
		]);
		// minutes_to_recover: from the abandoned session's last activity to the completion
		const event = poll.events.find((candidate) => candidate.session?.id === back.id);
		expect(event?.minutesToRecover).toBe(Math.floor((completedAt - leftAt) / MIN));
	});

	it('past the recovery window (30 days) a completion is not a recovery', async () => {
		const { world, runner } = await activated(makeSettings());
		const ivy = newCustomer();
		world.advance(MIN);
		world.start({}, ivy);
		world.advance(40 * MIN);
		await runner.poll();
		world.advance(31 * DAY_MS);
		world.complete(world.start({}, ivy));
		world.advance(MIN);
		await runner.poll();
		expect(runner.log.filter((entry) => entry.event === 'session.completed').map((entry) => entry.recovered)).toEqual([false]);
	});
});

describe('Only Sessions With an E-Mail', () => {
	it('a draft left out for having no e-mail is no reminder: no cooldown from it, no recovery by it', async () => {
		const { world, runner } = await activated(makeSettings({ customerCooldownMs: 2 * DAY_MS, onlyWithEmail: true }));
		const ivy = newCustomer();
		world.advance(MIN);
		const phoneOnly = world.start({}, { phone: ivy.phone, requestPhone: ivy.requestPhone });
		world.advance(40 * MIN);
		const first = await runner.poll();
		expect(abandonedIds(runner)).toEqual([]);
		expect(first.skipped.noEmail).toBe(1);
		expect(runner.state?.sessions?.reminded).toBeUndefined();
		// the same customer (same phone) with an e-mail the next hour: reminded (the cooldown did not start)
		const withEmail = world.start({}, ivy);
		world.advance(40 * MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toEqual([withEmail.id]);
		// the phone-only draft completes: a recovery from the reminder that was sent, not from the one left out
		world.complete(phoneOnly);
		world.advance(MIN);
		await runner.poll();
		const completed = runner.log.find((entry) => entry.event === 'session.completed' && entry.id === phoneOnly.id);
		expect(completed).toMatchObject({ recovered: true, recoveredFrom: withEmail.id });
	});
});

describe('state', () => {
	it('a v2 state (before the customer memories) keeps its seen memory: no new baseline, nothing reported twice', async () => {
		const { world, runner } = await activated(makeSettings({ events: { requestCreated: false } }));
		world.advance(MIN);
		const left = world.start();
		world.advance(40 * MIN);
		await runner.poll();
		expect(abandonedIds(runner)).toEqual([left.id]);
		const { booked: _b, reminded: _r, ...sessions } = runner.state!.sessions!;
		const v2 = JSON.parse(JSON.stringify({ ...runner.state, v: 2, sessions }));
		const upgraded = readState(v2, { fingerprint: 'fp-1', lists: { sessions: true, requests: true } });
		expect(upgraded?.sessions?.seen).toEqual(sessions.seen);
		expect(upgraded?.requests).toEqual({ floor: v2.polledAt, done: {} });
		// the upgraded node (Skip Customers Who Booked on) goes on from there
		runner.state = upgraded;
		runner.settings = makeSettings({ ...SKIP, events: { requestCreated: false } });
		world.advance(MIN);
		const request = world.addRequest();
		world.advance(MIN);
		const poll = await runner.poll();
		expect(poll.baseline).toBe(false);
		expect(poll.pages.requests).toBe(1);
		expect(abandonedIds(runner)).toEqual([left.id]);
		expect(request.id).toBeDefined();
	});
});

describe('state size', () => {
	it('50,000 customers (e-mail and phone each), all booked and all reminded, 50,000 sessions seen abandoned: measured', () => {
		const booked = new BookedMemory();
		const reminded = new RemindedMemory();
		const seen = new SeenMemory();
		const uuid = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
		for (let i = 0; i < 50_000; i++) {
			const at = T0 - Math.floor((i / 50_000) * 6 * DAY_MS);
			const codes = customerCodes({ email: `customer${i}@example.com`, phone: `+1512${String(i).padStart(7, '0')}` });
			booked.add(codes, at);
			reminded.add({ codes, sessionId: uuid(i), activity: at - 30 * MIN, at });
			seen.add(uuid(i), at);
		}
		booked.prune(T0);
		reminded.prune(T0);
		seen.prune(T0);
		expect([booked.size, reminded.size, seen.size, booked.droppedForBound, reminded.droppedForBound]).toEqual([100_000, 50_000, 50_000, 0, 0]);
		const bytes = {
			booked: JSON.stringify(booked.encode()).length,
			reminded: JSON.stringify(reminded.encode()).length,
			seen: JSON.stringify(seen.encode()).length,
		};
		const total = bytes.booked + bytes.reminded + bytes.seen;
		printFigures(`[state size] 50,000 customers: ${JSON.stringify(bytes)}, total ${total} bytes (+ under 2 KB of windows)`);
		// 13 characters per key who booked, 49 per customer reminded, 8 per session seen
		expect(bytes.booked).toBeLessThan(100_000 * 13 + 2_000);
		expect(bytes.reminded).toBeLessThan(50_000 * 50 + 2_000);
		// read back as stored
		expect(BookedMemory.decode(booked.encode()).size).toBe(100_000);
		expect(RemindedMemory.decode(reminded.encode()).size).toBe(50_000);
	});
});
