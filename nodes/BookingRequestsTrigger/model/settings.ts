/**
 * What a poll is asked to do: the trigger's settings as the rules read them (parameters.ts reads and
 * checks them from the node), and the rules that follow from them alone.
 */
import type { WatchGroup } from '../events/requestUpdated/fields';

/** Request Updated's options. */
export interface UpdateSettings {
	/** "Watch the Newest (Requests)". */
	watchNewest: number;
	/** "Fields to Watch". */
	fields: WatchGroup[];
	/** "Only When Status Changes To" / "Only When Lead Status Changes To": trimmed, lower case; empty = any. */
	statusTo: string[];
	leadStatusTo: string[];
}

export interface TriggerSettings {
	/** The selected events (the values of the node's Events parameter; events/index.ts lists them). */
	events: { sessionAbandoned: boolean; sessionCompleted: boolean; requestCreated: boolean; requestUpdated?: boolean };
	/** Request Updated's options; set when that event is selected. */
	updates?: UpdateSettings;
	abandonedAfterMs: number;
	fireAgainIfReabandoned: boolean;
	onlyRecovered: boolean;
	/**
	 * "Skip Customers Who Booked": no Session Abandoned event for a session whose customer (same e-mail
	 * or phone: shared/customer.ts) has a booking request created at or after the session's `created_at`,
	 * up to the poll that judges it. Off when absent (node version 1).
	 */
	skipIfBooked?: boolean;
	/** "Remind a Customer At Most Once Every (Days)", in ms: 0 or absent = off. */
	customerCooldownMs?: number;
	/**
	 * "Only Sessions With an E-Mail": an idle session without an e-mail is no Session Abandoned, so it
	 * is no reminder either (no cooldown starts, a later completion is no recovery from it).
	 */
	onlyWithEmail?: boolean;
	/**
	 * Set when the request list is read for every form although the node watches one (Skip Customers
	 * Who Booked counts bookings on any form): New Request reports only this form's requests.
	 */
	requestsForm?: string;
	/** Identifies the form filter and the API target; a different value starts afresh. */
	fingerprint: string;
}

/** The values of the node's Events parameter, as `TriggerSettings.events` names them. */
export type EventValue = keyof TriggerSettings['events'];

/** Whether "Skip Customers Who Booked" applies (it needs the request list). */
export function skipsBooked(settings: TriggerSettings): boolean {
	return settings.events.sessionAbandoned && settings.skipIfBooked === true;
}
