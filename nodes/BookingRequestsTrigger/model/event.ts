/**
 * What every event the trigger emits has, before it is shaped into an item. Each event declares its own
 * type with its own fields (events/<event>.ts); events/index.ts has their union, `TriggerEvent`.
 */
import type { BookingRequest, BookingSession } from '../../shared/types';

export interface EventBase {
	/** The item's `event` (e.g. `session.abandoned`). */
	event: string;
	/** Stable id: the same occurrence always gets the same id, so downstream can deduplicate. */
	eventId: string;
	/** When it happened (server ms), for ordering. */
	at: number;
	/** The session it is about (session events). */
	session?: BookingSession;
	/**
	 * The booking request it is about (request events), or the one attached to a session's item
	 * (poll/attach.ts; null when the API answered 404).
	 */
	request?: BookingRequest | null;
}
