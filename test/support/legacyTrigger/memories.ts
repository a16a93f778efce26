/**
 * The trigger's memories of one poll, decoded once from the saved state (state.ts) and encoded once at
 * its end (diff.ts `nextState`). `decide` reads them through a `DecisionMemory`: the decoded state,
 * read only, plus what the poll's decisions added so far — so that a poll cut short (the budget) keeps
 * only what its handled decisions added, without decoding the state a second time.
 */
import type { Reminder } from './customers';
import { BookedMemory, RemindedMemory } from './customers';
import { DAY_MS, SEEN_RETENTION_DAYS, SeenMemory } from './memory';
import type { SessionsState } from './state';

export interface Memories {
	/** Sessions seen abandoned. */
	seen: SeenMemory;
	/** Customers who booked (Skip Customers Who Booked). */
	booked: BookedMemory;
	/** Customers reported abandoned (cooldown, recovery). */
	reminded: RemindedMemory;
	/** Phone codes shared by many customers (customers.ts sharedPhoneCodes): they identify nobody. */
	shared: SeenMemory;
}

/** Decodes the memories of the session state; a memory no option reads starts empty (and is dropped). */
export function decodeMemories(sessions: SessionsState | undefined, keep: { booked: boolean; reminded: boolean }): Memories {
	return {
		seen: SeenMemory.decode(sessions?.seen),
		booked: BookedMemory.decode(keep.booked ? sessions?.booked : undefined),
		reminded: RemindedMemory.decode(keep.reminded ? sessions?.reminded : undefined),
		shared: SeenMemory.decode(sessions?.shared),
	};
}

/** The memories as the decisions of one poll see them, in event order. */
export class DecisionMemory {
	private readonly seenNow = new SeenMemory();
	private readonly bookedNow = new BookedMemory();
	private readonly remindedNow = new RemindedMemory();

	constructor(
		private readonly saved: Memories,
		/** Phone codes found shared in this poll's bookings. */
		private readonly sharedNow: Set<string> = new Set(),
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
