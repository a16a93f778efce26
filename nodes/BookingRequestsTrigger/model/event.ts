/** An event the trigger emits, before it is shaped into an item (events/*.ts shape each kind). */
import type { BookingRequest, BookingSession } from '../../shared/types';

export type EventName = 'session.abandoned' | 'session.completed' | 'request.created' | 'request.updated';

export interface TriggerEvent {
	event: EventName;
	/** Stable id: the same occurrence always gets the same id, so downstream can deduplicate. */
	eventId: string;
	/** When it happened (server ms), for ordering. */
	at: number;
	session?: BookingSession;
	/**
	 * request.created / request.updated: the request. session.completed: the session's booking request
	 * when the node asked for it (null when the API answered 404), attached by poll/attach.ts.
	 */
	request?: BookingRequest | null;
	/**
	 * session.completed: whether this trigger reported the same customer abandoned (any session) within
	 * the recovery window before, or saw this very session abandoned.
	 */
	recovered?: boolean;
	/** session.completed: the session of that abandonment (null when not recovered). */
	recoveredFromSessionId?: string | null;
	/** session.completed: whole minutes from that session's last activity to this completion (null when not recovered or unknown). */
	minutesToRecover?: number | null;
	/** request.updated: the changed fields (empty when not known) and their earlier values (null when not known). */
	changedFields?: string[];
	previous?: Record<string, string | null> | null;
}
