/**
 * The bookings a poll read, asked "did a customer with any of these codes book at or after `since`?"
 * (Skip Customers Who Booked, events/context.ts). The customers' codes cost a hash per e-mail and phone,
 * and a poll reads up to 1,000 requests going back days while a judged session asks about the last
 * hours: the codes are worked out from the newest booking down, only as far as the questions so far
 * went. The answers are those of a map of every booking's newest time per code.
 */
import type { BookingRequest } from '../../shared/types';
import { sortTime } from '../model/pages';

export class NewestBookings {
	private readonly newest = new Map<string, number>();
	/** The bookings created up to the poll's now, newest first. */
	private readonly byTime: Array<{ request: BookingRequest; at: number }> = [];
	/** How many of `byTime` are in `newest`. */
	private filled = 0;

	constructor(
		requests: BookingRequest[],
		now: number,
		/** The codes a booking counts under (its customer's codes that identify someone). */
		private readonly codesOf: (request: BookingRequest) => string[],
	) {
		for (const request of requests) {
			const at = sortTime('requests', request);
			if (at !== null && at <= now) this.byTime.push({ request, at });
		}
		this.byTime.sort((a, b) => b.at - a.at);
	}

	/** Every booking at or after `since` in `newest` (those below it cannot answer a question about `since`). */
	private fillDownTo(since: number): void {
		while (this.filled < this.byTime.length && this.byTime[this.filled].at >= since) {
			const { request, at } = this.byTime[this.filled++];
			// Newest first: a code's first time is its newest.
			for (const code of this.codesOf(request)) if (!this.newest.has(code)) this.newest.set(code, at);
		}
	}

	bookedSince(codes: string[], since: number): boolean {
		this.fillDownTo(since);
		return codes.some((code) => (this.newest.get(code) ?? -Infinity) >= since);
	}
}
