/**
 * What an event's judge sees (events/*.ts): the candidate, the settings, and the customers' memory as
 * the poll's decisions see it, in event order. A judge returns a Decision; the rules (rules/next.ts)
 * apply the memory it adds only when the decision is handled (a poll cut short keeps only what its
 * handled decisions added).
 */
import { draftContact } from '../../shared/output/session';
import type { BookingRequest, BookingSession } from '../../shared/types';
import type { Reminder } from '../state/customers';
import { customerCodes, RemindedMemory } from '../state/customers';
import { DAY_MS, SEEN_RETENTION_DAYS, SeenMemory } from '../state/seen';
import type { EventBase } from '../model/event';
import type { CustomerAdds, CustomerMemories } from '../state/decoded';
import type { BookingsOfPoll } from './skipBooked';
import { BookedMemory, bookingsOfPoll } from './skipBooked';
import type { PageObservation } from '../model/pages';
import { readBounds, requestsRead } from '../model/pages';
import type { SettingsOf } from '../model/settings';
import type { Candidate } from '../windows/window';

export interface Decision<E extends EventBase = EventBase> extends CustomerAdds {
	candidate: Candidate;
	/** The event that judged (its value; rules/judge.ts sets it). */
	by?: string;
	/** The event to emit; undefined for an item handled silently (an open session at the top, …). */
	event?: E;
	/** What handling this decision adds to its event's own memory (the event's `remember` reads it). */
	own?: unknown;
	/** Why the judge left the candidate out (one of its event's `skips`; counted in tests and logs). */
	skipped?: string;
	/**
	 * Not decidable in this poll: what the rule needs may still appear (a booking request committed after
	 * the poll read the request list). The poll's events stop before it; the next poll judges it.
	 */
	defer?: true;
}

/** A customers' memory with nothing in it (a poll that reads no session list, a new start). */
export function emptyCustomers(): CustomerMemories {
	return { seen: new SeenMemory(), booked: new BookedMemory(), reminded: new RemindedMemory(), shared: new SeenMemory() };
}

/** The customer key codes of a session: its draft's contact, plus its booking request's when known. */
export function sessionCodes(session: BookingSession, request: BookingRequest | undefined): string[] {
	const codes = new Set(customerCodes(draftContact(session)));
	if (request) for (const code of customerCodes(request)) codes.add(code);
	return [...codes];
}

/**
 * The customers' memory as the decisions of one poll see it: the memory decoded at the start, read
 * only, plus what the poll's decisions added so far.
 */
export class DecisionMemory {
	private readonly seenNow = new SeenMemory();
	private readonly bookedNow = new BookedMemory();
	private readonly remindedNow = new RemindedMemory();

	constructor(
		private readonly saved: CustomerMemories,
		/** Phone codes found shared in this poll's bookings. */
		private readonly sharedNow: ReadonlySet<string> = new Set(),
	) {}

	/** The customer key codes that identify someone: without phones shared by many customers. */
	identity(codes: string[]): string[] {
		return codes.filter((code) => !this.sharedNow.has(code) && !this.saved.shared.hasCode(code));
	}

	/** Whether the session was seen abandoned within SEEN_RETENTION_DAYS before `at` (its event time). */
	hasSeen(id: string, at: number): boolean {
		return this.saved.seen.seenSince(id, at - SEEN_RETENTION_DAYS * DAY_MS) || this.seenNow.has(id);
	}

	see(id: string, at: number): void {
		this.seenNow.add(id, at);
	}

	/** The newest booking time of any of these customer key codes. */
	newestBooking(codes: string[]): number | undefined {
		const saved = this.saved.booked.newest(codes);
		const now = this.bookedNow.newest(codes);
		return saved === undefined ? now : now === undefined ? saved : Math.max(saved, now);
	}

	book(codes: string[], at: number): void {
		this.bookedNow.add(codes, at);
	}

	/** The newest reported abandonment of a customer with any of these key codes. */
	lastReminder(codes: string[]): Reminder | undefined {
		const saved = this.saved.reminded.last(codes);
		const now = this.remindedNow.last(codes);
		return !saved ? now : !now ? saved : now.at >= saved.at ? now : saved;
	}

	remind(reminder: Reminder): void {
		this.remindedNow.add(reminder);
	}
}

/** The bookings this poll read: by id, and per customer key code their newest `created_at` (skipBooked.ts). */
interface BookingsInPoll extends BookingsOfPoll {
	byId: Map<string, BookingRequest>;
}

function bookingsInPoll(pages: PageObservation[], now: number, identity: (codes: string[]) => string[]): BookingsInPoll {
	const byId = new Map<string, BookingRequest>();
	for (const request of requestsRead<BookingRequest>(pages)) byId.set(request.id, request);
	return { byId, ...bookingsOfPoll(pages, now, identity) };
}

/** What every judge of one poll shares. */
export interface JudgeContext<O = unknown> {
	settings: SettingsOf<O>;
	memory: DecisionMemory;
	/** The events' own memories before this poll, by slot (events/*: `memory`); read only. */
	memories: Readonly<Record<string, unknown>>;
	bookings: BookingsInPoll;
	/**
	 * Server time of the poll's first read of the request list's page 1, when the poll reads it: a booking
	 * request created up to EDGE_WINDOW_MS before may have been committed after that read.
	 */
	requestsReadAt: number | undefined;
}

export function judgeContext<O>(input: { customers: CustomerMemories; memories: Readonly<Record<string, unknown>>; pages: PageObservation[]; now: number; settings: SettingsOf<O>; shared: ReadonlySet<string> }): JudgeContext<O> {
	const { customers, pages, now, settings } = input;
	const memory = new DecisionMemory(customers, input.shared);
	const bookings = bookingsInPoll(pages, now, (codes) => memory.identity(codes));
	const firstRead = pages.find((page) => page.list === 'requests' && page.page === 1);
	const requestsReadAt = firstRead && readBounds(pages, now).get(firstRead.seq);
	return { settings, memory, memories: input.memories, bookings, requestsReadAt };
}
