/**
 * The poll's memories are decoded once from the saved state and encoded once at its end (state/codec.ts);
 * the decisions read them through an overlay that never changes the decoded copy.
 */
import { BookedMemory } from '../../../nodes/BookingRequestsTrigger/events/skipBooked';
import { customerCodes, RemindedMemory } from '../../../nodes/BookingRequestsTrigger/state/customers';
import { SeenMemory } from '../../../nodes/BookingRequestsTrigger/state/seen';
import { DecisionMemory, emptyCustomers } from '../../../nodes/BookingRequestsTrigger/events/context';
import { makeSettings, MIN, newCustomer, Runner, T0, World } from '../../support/triggerWorld';

afterEach(() => jest.restoreAllMocks());

test('a poll decodes each memory once and encodes it once, whatever its events and options', async () => {
	const settings = makeSettings({ skipIfBooked: true, customerCooldownMs: 86_400_000 });
	const world = new World();
	const runner = new Runner(world, settings);
	await runner.poll();
	// Activity for every rule that reads a memory: an abandonment (seen, reminded), a booking (booked),
	// a completion of a reminded customer (recovery), a second draft of that customer (cooldown).
	const bo = newCustomer();
	const draft = world.start({}, bo);
	world.advance(31 * MIN);
	await runner.poll();
	world.start({}, bo);
	world.complete(draft);
	world.addRequest({}, newCustomer());
	world.advance(31 * MIN);

	const spies = [SeenMemory, BookedMemory, RemindedMemory].flatMap((memory) => [jest.spyOn(memory, 'decode'), jest.spyOn(memory.prototype, 'encode')]);
	const poll = await runner.poll();
	expect(poll.events.map((event) => event.event)).toEqual(expect.arrayContaining(['session.completed', 'request.created']));
	expect(poll.skipped.cooldown + poll.skipped.booked).toBeGreaterThan(0);
	// SeenMemory serves two memories: the sessions seen abandoned and the shared phones (once each).
	expect(spies.map((spy) => spy.mock.calls.length)).toEqual([2, 2, 1, 1, 1, 1]);
});

test('the decisions see the saved memories plus their own additions, and leave the decoded copy as it was', () => {
	const codes = customerCodes({ email: 'bo@example.com' });
	const saved = emptyCustomers();
	saved.seen.add('s-1', T0);
	saved.booked.add(codes, T0);
	saved.reminded.add({ codes, sessionId: 's-1', activity: T0 - MIN, at: T0 });
	const memory = new DecisionMemory(saved);
	memory.see('s-2', T0 + 1);
	memory.book(codes, T0 + 5);
	memory.remind({ codes, sessionId: 's-2', activity: T0, at: T0 + 10 });
	expect([memory.hasSeen('s-1', T0 + 1), memory.hasSeen('s-2', T0 + 1), memory.hasSeen('s-3', T0 + 1)]).toEqual([true, true, false]);
	// judged by event time: seen more than 30 days before an event counts as not seen, even if still kept
	expect(memory.hasSeen('s-1', T0 + 32 * 86_400_000)).toBe(false);
	expect(memory.newestBooking(codes)).toBe(T0 + 5);
	expect(memory.lastReminder(codes)?.sessionId).toBe('s-2');
	// the decoded copy: unchanged (nextState applies only the decisions the poll handled)
	expect([saved.seen.has('s-2'), saved.booked.newest(codes), saved.reminded.last(codes)?.sessionId]).toEqual([false, T0, 's-1']);
	// an older reminder added in the poll does not hide a newer saved one
	const other = new DecisionMemory(saved);
	other.remind({ codes, sessionId: 's-0', activity: T0 - 3 * MIN, at: T0 - 2 * MIN });
	expect(other.lastReminder(codes)?.sessionId).toBe('s-1');
});
