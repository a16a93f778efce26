/**
 * RemindedMemory kept from poll to poll (each day's text kept while unchanged: state/dayBuckets.ts)
 * writes what a new memory given the same reminders writes, byte for byte, over random polls of adds
 * (earlier, equal and later times, customers sharing keys) and prunes.
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

describe('RemindedMemory kept from poll to poll', () => {
	it('writes what the whole write gives, poll after poll (random polls)', () => {
		fc.assert(
			fc.property(fc.array(pollArb, { minLength: 1, maxLength: 12 }), (polls) => {
				const kept = new RemindedMemory();
				const history: Array<(memory: RemindedMemory) => void> = [];
				for (const poll of polls) {
					const step = (memory: RemindedMemory) => {
						for (const reminder of poll.added) memory.add(reminder);
						if (poll.pruneAt !== undefined) memory.prune(T0 + poll.pruneAt, poll.limit);
					};
					step(kept);
					history.push(step);
					const whole = new RemindedMemory();
					for (const replay of history) replay(whole);
					expect(kept.encode()).toEqual(whole.encode());
				}
			}),
			{ numRuns: 400, seed: 42 },
		);
	});
});
