/**
 * Skip Customers Who Booked, in one place: its parameter, when it applies, what counts as booked and how
 * long a booking is remembered (docs/booking-requests-trigger.md "Skip Customers Who Booked").
 *
 * - It applies while Session Abandoned is selected and the option is on (on in new nodes, version 1.1;
 *   off in version 1, so that existing workflows do not change behaviour silently). The request list is
 *   then read, for every form also with a Form filter: a booking on any form counts.
 * - Booked: a booking request created at or after the draft's `created_at` (a booking from before the
 *   draft does not count: a returning customer starting a new one) by a customer with the same e-mail or
 *   phone (nodes/shared/customer.ts; a phone shared by many customers identifies nobody), remembered from
 *   earlier polls or read in this one, up to its now.
 * - Remembered: every booking request the request window passes (New Request's judge records it, selected
 *   or not), per customer key the newest `created_at`, for BOOKED_RETENTION_DAYS (and the rest of the
 *   oldest UTC day: days are forgotten whole), at most BOOKED_LIMIT keys; the first poll remembers the
 *   bookings it read. Stored by UTC day: code (8) + milliseconds of the day (5), 13 characters per key.
 */
import type { INodeProperties } from 'n8n-workflow';

import type { BookingRequest, BookingSession } from '../../shared/types';
import { timestampMs } from '../../shared/utils';
import type { PageObservation } from '../model/pages';
import { requestsRead, sortTime } from '../model/pages';
import { customerCodes, type PackedDays } from '../state/customers';
import { DayBuckets } from '../state/dayBuckets';
import { decodeNumberAt, encodeNumber } from '../state/numbers';
import { DAY_MS, dayOf } from '../state/seen';

/** A booking is remembered at least this long, at most a day more (a draft started earlier is checked against the bookings kept). */
export const BOOKED_RETENTION_DAYS = 7;
/** At most this many customer keys remembered as booked (13 characters each: 1.3 MB at the bound). */
export const BOOKED_LIMIT = 100_000;

export interface SkipBookedSettings {
	/** "Skip Customers Who Booked"; off when absent (node version 1). */
	skipIfBooked?: boolean;
	/**
	 * Set when the request list is read for every form although the node watches one: New Request and
	 * Request Updated report only this form's requests.
	 */
	requestsForm?: string;
}

const DESCRIPTION =
	'Whether to send no "Session Abandoned" for a customer who booked after starting the draft (same e-mail or phone), through another session or a booking without a draft, on any form';

/** On in new nodes (version 1.1), off in nodes of version 1. */
export const SKIP_IF_BOOKED: INodeProperties[] = [
	{ displayName: 'Skip Customers Who Booked', name: 'skipIfBooked', type: 'boolean', default: false, displayOptions: { show: { '@version': [1] } }, description: DESCRIPTION },
	{ displayName: 'Skip Customers Who Booked', name: 'skipIfBooked', type: 'boolean', default: true, displayOptions: { show: { '@version': [{ _cnd: { gte: 1.1 } }] } }, description: DESCRIPTION },
];

/** Its parameter read (an event's `read` input: events/kind.ts `ParameterInput`). */
export function readSkipBooked(input: { node: { typeVersion: number }; value(name: string, fallback: unknown): unknown; events: Readonly<Record<string, boolean | undefined>>; formId: string | undefined }): SkipBookedSettings {
	const skipIfBooked = input.events.sessionAbandoned === true && input.value('skipIfBooked', input.node.typeVersion >= 1.1) === true;
	// Bookings on every form count: with a Form filter the request list is read for every form.
	return { skipIfBooked, ...(skipIfBooked && input.formId ? { requestsForm: input.formId } : {}) };
}

/** Whether the rule applies (it needs the request list read). */
export function skipsBooked(settings: SkipBookedSettings & { events: Readonly<Record<string, boolean | undefined>> }): boolean {
	return settings.events.sessionAbandoned === true && settings.skipIfBooked === true;
}

/** What the rule reads of a poll's judging: the customers' memory as its decisions see it, and the bookings this poll read. */
interface Judging {
	memory: { newestBooking(codes: string[]): number | undefined; book(codes: string[], at: number): void; identity(codes: string[]): string[] };
	/** The bookings this poll read (`bookingsOfPoll`). */
	bookings: BookingsOfPoll;
}

/** Whether the customer of a draft (its identifying codes) booked since starting it. */
export function bookedSinceDraft(session: BookingSession, codes: string[], judging: Judging, eventTime: number): boolean {
	if (codes.length === 0) return false;
	const since = timestampMs(session.created_at) ?? eventTime;
	if ((judging.memory.newestBooking(codes) ?? -Infinity) >= since) return true;
	const newest = judging.bookings.newestSince(since);
	return codes.some((code) => (newest.get(code) ?? -Infinity) >= since);
}

/** A booking request the request window passes, remembered for its customer (what the decision adds). */
export function bookingOf(request: BookingRequest, createdAt: number, judging: Judging): { codes: string[]; at: number } | undefined {
	const codes = judging.memory.identity(customerCodes(request));
	if (codes.length === 0) return undefined;
	judging.memory.book(codes, createdAt);
	return { codes, at: createdAt };
}

/** The bookings a poll read, up to its now: per identifying customer key code, the newest `created_at`, at or after `since` (and more). */
export interface BookingsOfPoll {
	newestSince(since: number): ReadonlyMap<string, number>;
}

/**
 * The bookings a poll read, newest first, their customers' codes worked out only as far back as asked:
 * a code costs a hash per e-mail and phone, and a poll reads up to 1,000 requests going back days while a
 * judged draft asks about the hours since it started.
 */
export function bookingsOfPoll(pages: PageObservation[], now: number, identity: (codes: string[]) => string[]): BookingsOfPoll {
	const newestFirst = requestsRead<BookingRequest>(pages)
		.flatMap((request) => {
			const at = sortTime('requests', request);
			return at !== null && at <= now ? [{ request, at }] : [];
		})
		.sort((a, b) => b.at - a.at);
	const newest = new Map<string, number>();
	let filled = 0;
	return {
		newestSince(since) {
			for (; filled < newestFirst.length && newestFirst[filled].at >= since; filled++) {
				const { request, at } = newestFirst[filled];
				for (const code of identity(customerCodes(request))) if (!newest.has(code)) newest.set(code, at);
			}
			return newest;
		},
	};
}

/** What the first poll remembers: the bookings it read, when the rule applies. */
export function bookedAtStart(pages: PageObservation[], settings: Parameters<typeof skipsBooked>[0], now: number, identity: (codes: string[]) => string[]): BookedMemory {
	const booked = new BookedMemory();
	if (skipsBooked(settings)) for (const [code, at] of bookingsOfPoll(pages, now, identity).newestSince(-Infinity)) booked.add([code], at);
	booked.prune(now);
	return booked;
}

const BOOKED_RE = /^(?:[A-Za-z0-9_-]{13})*$/;

export function isPackedBooked(value: unknown): value is string {
	return typeof value === 'string' && BOOKED_RE.test(value);
}

/** A booking's stored record: its key code (8) and its milliseconds in its UTC day (5). */
const recordOf = (code: string, ms: number): string => code + encodeNumber(ms - dayOf(ms) * DAY_MS, 5);
const msOf = (day: number, record: string): number => day * DAY_MS + decodeNumberAt(record, 8, 5);

/** Customer keys (as codes) with the time of their newest booking request. */
export class BookedMemory {
	/** Each key's stored record, under the UTC day of its newest booking: a day's text is their concatenation. */
	private readonly days = new DayBuckets<string>();
	/** Keys forgotten because of the bound in the last `prune`. */
	droppedForBound = 0;

	static decode(packed: PackedDays | undefined): BookedMemory {
		const memory = new BookedMemory();
		const days: Array<{ day: number; text: string; entries: Map<string, string> }> = [];
		let records = 0;
		for (const [day, text] of Object.entries(packed ?? {})) {
			const entries = new Map<string, string>();
			for (let at = 0; at + 13 <= text.length; at += 13, records++) entries.set(text.slice(at, at + 8), text.slice(at, at + 13));
			days.push({ day: Number(day), text, entries });
		}
		// As this memory writes it, each key once: every day's text stays as it is. Else the newest booking per key.
		const once = new Set(days.flatMap(({ entries }) => [...entries.keys()])).size === records;
		for (const { day, text, entries } of days) {
			if (once) memory.days.load(day, entries, text.length === entries.size * 13 ? text : undefined);
			else for (let at = 0; at + 13 <= text.length; at += 13) memory.addCode(text.slice(at, at + 8), msOf(day, text.slice(at, at + 13)));
		}
		return memory;
	}

	private addCode(code: string, ms: number): void {
		const known = this.days.find(code);
		if (known !== undefined && ms <= msOf(known.day, known.value)) return;
		if (known !== undefined && known.day !== dayOf(ms)) this.days.delete(known.day, code);
		this.days.set(dayOf(ms), code, recordOf(code, ms));
	}

	/** Remembers a booking request of the customer with these key codes, created at `ms`. */
	add(codes: string[], ms: number): void {
		for (const code of codes) this.addCode(code, ms);
	}

	/** Takes `other`'s bookings in too (the newest time per key wins). */
	merge(other: BookedMemory): void {
		for (const day of other.days.dayNumbers()) for (const [code, record] of other.days.entries(day) ?? []) this.addCode(code, msOf(day, record));
	}

	/** The newest booking time of any of these keys, or undefined. */
	newest(codes: string[]): number | undefined {
		let newest: number | undefined;
		for (const code of codes) {
			const found = this.days.find(code);
			const ms = found && msOf(found.day, found.value);
			if (ms !== undefined && (newest === undefined || ms > newest)) newest = ms;
		}
		return newest;
	}

	get size(): number {
		return this.days.size;
	}

	/**
	 * Forgets the days past the retention (a day goes whole once all of it is: dropping part of the oldest
	 * day would copy and write that day again at every poll); over `limit`, the bookings past the retention
	 * first, then the oldest bookings (within a day too).
	 */
	prune(now: number, limit = BOOKED_LIMIT): void {
		this.droppedForBound = 0;
		const oldest = now - BOOKED_RETENTION_DAYS * DAY_MS;
		this.days.dropDaysBefore(dayOf(oldest));
		// Over the bound, the bookings already past the retention go first (expired, not dropped for the bound).
		if (this.size > limit) this.days.deleteWhere(dayOf(oldest), (record) => msOf(dayOf(oldest), record) < oldest);
		let excess = this.size - limit;
		for (const day of this.days.dayNumbers()) {
			if (excess <= 0) break;
			const byAge = [...(this.days.entries(day) ?? [])].sort((a, b) => msOf(day, a[1]) - msOf(day, b[1])).slice(0, excess);
			for (const [code] of byAge) this.days.delete(day, code);
			this.droppedForBound += byAge.length;
			excess -= byAge.length;
		}
	}

	encode(): PackedDays {
		return this.days.encode((records) => [...records.values()].join(''));
	}
}
