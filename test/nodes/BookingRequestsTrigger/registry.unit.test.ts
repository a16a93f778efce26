/**
 * The registry of events (events/index.ts) is checked when it loads: each event's value, item event,
 * letter (the state's record of the selected events) and memory slot are its own, and a slot is not a
 * key of the state itself (state/codec.ts).
 */
import { checkedKinds, EVENT_KINDS } from '../../../nodes/BookingRequestsTrigger/events';
import type { EventKind } from '../../../nodes/BookingRequestsTrigger/events/kind';
import { checkedSlots } from '../../../nodes/BookingRequestsTrigger/state/codec';

/** A copy of a registered event with some of its declarations replaced. */
const like = (kind: EventKind, change: Partial<EventKind>): EventKind => ({ ...kind, ...change });
const [abandoned, completed, , updated] = EVENT_KINDS;

test('the registry as it is passes its checks', () => {
	expect(checkedKinds(EVENT_KINDS)).toBe(EVENT_KINDS);
	expect(() => checkedSlots(EVENT_KINDS)).not.toThrow();
	expect(new Set(EVENT_KINDS.map((kind) => kind.letter)).size).toBe(EVENT_KINDS.length);
});

test.each([
	['letter', like(completed, { value: 'sessionRescheduled', name: 'session.rescheduled', letter: abandoned.letter }), `the letter "${abandoned.letter}"`],
	['value', like(completed, { name: 'session.rescheduled', letter: 'r' }), `the value "${completed.value}"`],
	['item event', like(completed, { value: 'sessionRescheduled', letter: 'r' }), `the name "${completed.name}"`],
	['memory slot', like(completed, { value: 'sessionRescheduled', name: 'session.rescheduled', letter: 'r', memory: updated.memory }), `the memory slot "${updated.memory?.slot}"`],
	['window whose event times it moves', like(completed, { value: 'sessionRescheduled', name: 'session.rescheduled', letter: 'r', judges: abandoned.judges, offset: abandoned.offset }), `the offset of the window "${abandoned.judges[0]}"`],
])('two events with one %s: refused, naming it', (_what, twin, named) => {
	expect(() => checkedKinds([...EVENT_KINDS, twin])).toThrow(`two events declare ${named}`);
});

test.each(['since', 'sessions', 'cursor', 'requests'])('a memory slot named like a key of the state ("%s"): refused', (slot) => {
	const memory = { ...(updated.memory as NonNullable<EventKind['memory']>), slot };
	const kind = like(completed, { value: 'sessionRescheduled', name: 'session.rescheduled', letter: 'r', memory });
	expect(() => checkedSlots([...EVENT_KINDS.filter((other) => other !== updated), kind])).toThrow(`keeps its memory under "${slot}", a key of the state itself`);
});
