/**
 * NewestBookings answers "booked at or after `since`?" while hashing only the bookings down to the
 * questions asked: the answers must be those of the map of every booking's newest time per customer
 * code (events/context.ts `bookingsInPoll(...).newest`), whatever the order of the questions.
 */
import type { BookingRequest } from '../../../nodes/shared/types';
import { bookingsInPoll, requestCodes } from '../../../nodes/BookingRequestsTrigger/events/context';
import { NewestBookings } from '../../../nodes/BookingRequestsTrigger/events/newestBookings';
import type { PageObservation } from '../../../nodes/BookingRequestsTrigger/model/pages';

const T0 = Date.UTC(2026, 10, 1);

/** A seeded generator (mulberry32): the same cases every run. */
function random(seed: number): () => number {
	let a = seed;
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

test('answers as the map of every booking, asked in any order, with customers sharing e-mails and phones', () => {
	for (let seed = 1; seed <= 40; seed++) {
		const next = random(seed);
		const pick = (n: number) => Math.floor(next() * n);
		const requests = Array.from({ length: 60 + pick(200) }, (_, i) => ({
			id: `r${i}`,
			created_at: next() < 0.05 ? null : new Date(T0 + pick(10) * 60_000 - pick(3) * 86_400_000 + pick(2) * 120_000).toISOString(),
			email: next() < 0.1 ? null : `c${pick(40)}@example.com`,
			phone: next() < 0.3 ? null : `+1512555${String(1000 + pick(30))}`,
		})) as unknown as BookingRequest[];
		const now = T0 + 5 * 60_000;
		const pages: PageObservation[] = [{ list: 'requests', page: 1, perPage: requests.length, items: requests as never, seq: 0 }];
		const dropped = new Set(Array.from({ length: 3 }, () => requestCodes(requests[pick(requests.length)])[0]));
		const identity = (codes: string[]) => codes.filter((code) => !dropped.has(code));
		const all = bookingsInPoll(pages, now, identity).newest;
		const lazy = new NewestBookings(requests, now, (request) => identity(requestCodes(request)));
		for (let q = 0; q < 30; q++) {
			const codes = requestCodes(requests[pick(requests.length)]);
			const since = now - pick(4) * 86_400_000 + pick(20) * 60_000;
			const expected = codes.some((code) => (all.get(code) ?? -Infinity) >= since);
			expect(lazy.bookedSince(codes, since)).toBe(expected);
		}
	}
});
