/**
 * "Fetch Test Event" (manual mode): what every event's samples share. Each event picks up to
 * SAMPLES_PER_EVENT recent examples from page 1 of its lists (events/*.ts `samples`), shaped exactly
 * like real events; the trigger's state is neither read nor written.
 */
import { draftContact, hasEmail } from '../../shared/output/session';
import type { BookingRequest, BookingSession } from '../../shared/types';

export const SAMPLES_PER_EVENT = 3;

/** Page 1 of each list the selected events read, and the poll's now. */
export interface FirstPages {
	sessions?: BookingSession[];
	requests?: BookingRequest[];
	now: number;
}

/** 2: an e-mail; 1: a name or phone only; 0: no contact details in the draft. */
export function contactRank(session: BookingSession): number {
	const contact = draftContact(session);
	if (hasEmail(contact)) return 2;
	return contact.first_name || contact.last_name || contact.phone ? 1 : 0;
}

/** Stable order: by the given keys (highest first), then as the list had them (newest first). */
export function ranked<T>(items: T[], keys: Array<(item: T) => number>): T[] {
	return items
		.map((item, index) => ({ item, index }))
		.sort((a, b) => {
			for (const key of keys) {
				const diff = key(b.item) - key(a.item);
				if (diff !== 0) return diff;
			}
			return a.index - b.index;
		})
		.map(({ item }) => item);
}
