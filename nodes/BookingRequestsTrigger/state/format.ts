/**
 * The trigger's state as n8n stores it (workflow static data): its shape. JSON-safe, no API key, no id
 * or contact in clear. codec.ts reads it into the memory the rules use and writes it back; each part
 * is checked and encoded by what owns it: a window by its module (windows/, stored.ts), the session
 * list's part by sessionList.ts, an event's own memory by its event (events/).
 *
 * Per list: the request list's window at the top (`requests`); the session list's windows inside
 * `sessions`, with `checkpoints` ([server time, list length] of recent polls) and the customers'
 * memories (hashed: customers.ts, seen.ts). Each event's own memory in its slot (events/*: `memory`):
 * Request Updated's records in `updates`.
 *
 * Versions: v1 (capped id lists) is read as no state (a new start); v2 (windows and the seen memory) is
 * read as v3 with empty customer memories; v3 adds the customer memories. Request Updated's records
 * gained an optional change chain (`~` + 6 characters) without a new version: older records read as
 * records without one.
 */
import type { RequestWindowsState, SessionWindowsState } from '../windows';
import type { PackedDays } from './customers';
import type { Checkpoint } from './decoded';
import type { PackedSeen } from './seen';

export const STATE_VERSION = 3;

/** Key of the trigger's state inside the node's static data. */
export const STATE_KEY = 'bookingRequestsTrigger';

export interface SessionsState extends SessionWindowsState {
	checkpoints: Checkpoint[];
	/** Sessions seen abandoned (hashed, by day). */
	seen: PackedSeen;
	/** Customers who booked; absent when empty. */
	booked?: PackedDays;
	/** Customers reported abandoned; absent when empty. */
	reminded?: PackedDays;
	/** Phone codes shared by many customers, by day; absent when empty. */
	shared?: PackedSeen;
}

/** The state's own keys (besides the windows'): an event's memory slot is none of them. */
export const STATE_KEYS: readonly string[] = ['v', 'fp', 'key', 'ref', 'ev', 'bu', 'g', 'since', 'polledAt', 'skewMs', 'sessions', 'cursor'];

export interface TriggerState extends RequestWindowsState {
	v: typeof STATE_VERSION;
	/** Fingerprint of what the state is about (form filter, Base URL). Another value: a new start. */
	fp: string;
	/** The API key that last polled, as its key id (a hash). */
	key?: string;
	/** A booking request id of the workspace (the newest read). */
	ref?: string;
	/** The events selected at the last poll (one letter each). */
	ev?: string;
	/** The Base URL, as a short hash. */
	bu?: string;
	/** The write that made this state: a random token (state/decoded.ts `StateLabel.generation`). */
	g?: string;
	since: number;
	polledAt: number;
	skewMs: number;
	sessions?: SessionsState;
	/** Rank where the watched requests' rotation goes on (events/watched.ts); absent: at page 2. */
	cursor?: number;
	/** Each selected event's own memory, under its slot (events/*: `memory`). */
	[slot: string]: unknown;
}
