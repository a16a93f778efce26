/**
 * RemindedMemory writes a day that only gained later reminders by appending them to its stored text
 * (state/customers.ts `appendedReminders`). Checked byte for byte against the whole write: the same
 * reminders added to a new memory and encoded once (a new day is always written whole), over random
 * polls of adds (earlier, equal and later times, customers sharing keys) and prunes.
 */
import fc from 'fast-check';

import { RemindedMemory, type Reminder } from '../../../nodes/BookingRequestsTrigger/state/customers';
import { DAY_MS } from '../../../nodes/BookingRequestsTrigger/state/seen';

const T0 = Date.UTC(2026, 10, 20, 12);
const code = (n: number) => `c${String(n).padStart(7, '0')}`;
const sessionId = (n: number) => `${String(n).padStart(8, '0')}-1111-4111-8111-111111111111`;

const reminderArb = fc
	.record({
		keys: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 2 }),
		session: fc.integer({ min: 0, max: 99_999 }),
		at: fc.oneof(fc.integer({ min: -3 * DAY_MS, max: DAY_MS }), fc.constantFrom(0, 1_000, 60_000)),
		idle: fc.integer({ min: 0, max: 3_600_000 }),
	})
	.map(({ keys, session, at, idle }): Reminder => ({ codes: [...new Set(keys)].map(code), sessionId: sessionId(session), activity: T0 + at - idle, at: T0 + at }));

const pollArb = fc.record({ added: fc.array(reminderArb, { maxLength: 6 }), pruneAt: fc.option(fc.integer({ min: 0, max: 40 * DAY_MS }), { nil: undefined }), limit: fc.integer({ min: 3, max: 60 }) });

describe('RemindedMemory: a day that only gained later reminders is appended to', () => {
	it('writes what the whole write gives, poll after poll (random polls)', () => {
		fc.assert(
			fc.property(fc.array(pollArb, { minLength: 1, maxLength: 12 }), (polls) => {
				let kept = new RemindedMemory();
				const history: Array<(memory: RemindedMemory) => void> = [];
				for (const poll of polls) {
					const next = kept.clone();
					const before = JSON.stringify(kept.encode());
					const step = (memory: RemindedMemory) => {
						for (const reminder of poll.added) memory.add(reminder);
						if (poll.pruneAt !== undefined) memory.prune(T0 + poll.pruneAt, poll.limit);
					};
					step(next);
					history.push(step);
					const whole = new RemindedMemory();
					for (const replay of history) replay(whole);
					expect(next.encode()).toEqual(whole.encode());
					// the memory the poll started from is not changed
					expect(JSON.stringify(kept.encode())).toBe(before);
					kept = next;
				}
			}),
			{ numRuns: 400, seed: 42 },
		);
	});

	it('appends a later reminder to a stored day, and writes the day whole for an earlier one', () => {
		const memory = new RemindedMemory();
		memory.add({ codes: [code(1)], sessionId: sessionId(1), activity: T0 - 60_000, at: T0 });
		const first = memory.encode();
		const later = memory.clone();
		later.add({ codes: [code(2), code(3)], sessionId: sessionId(2), activity: T0, at: T0 + 60_000 });
		const day = Object.keys(first)[0];
		expect(later.encode()[day].startsWith(`${first[day]},`)).toBe(true);
		const earlier = memory.clone();
		earlier.add({ codes: [code(4)], sessionId: sessionId(4), activity: T0 - 120_000, at: T0 - 60_000 });
		expect(earlier.encode()[day].endsWith(`,${first[day]}`)).toBe(true);
	});
});
