/**
 * The trigger's state decoded: what codec.ts reads from the workflow's static data at the start of a
 * poll (the memory), what the rules read and return, and what codec.ts writes at its end. Times are
 * milliseconds on the API server's clock, never n8n's.
 */
import type { WindowMemories } from '../windows';
import type { WindowMemory } from '../windows/window';
import type { BookedMemory } from '../events/skipBooked';
import type { Rotation } from '../events/watched';
import type { Reminder, RemindedMemory } from './customers';
import type { SeenMemory } from './seen';

/** What the trigger knows about customers (not sessions): kept across a Form change. */
export interface CustomerMemories {
	/** Sessions seen abandoned (once per session, `recovered`). */
	seen: SeenMemory;
	/** Customers who booked (Skip Customers Who Booked). */
	booked: BookedMemory;
	/** Customers reported abandoned (the cooldown, `recovered`). */
	reminded: RemindedMemory;
	/** Phone codes shared by many customers: they identify nobody. */
	shared: SeenMemory;
}

/** [server time, list length] of the session list at a poll: every session at or before that time is at most that far from the end. */
export type Checkpoint = [number, number];

/** What the trigger keeps about the session list besides its windows, while a session event is selected. */
export interface SessionListMemory {
	/** Where the list stood at recent polls (the planner places a window's floor with them). */
	checkpoints: Checkpoint[];
	customers: CustomerMemories;
}

/** What the state is about, and who wrote it. */
export interface StateLabel {
	/** The form filter and the API target (settings' fingerprint). */
	fingerprint: string;
	/** The API key that last polled, as its key id (a hash). */
	key?: string;
	/** A booking request id of the workspace (the newest read), to tell whether a new key reads the same one. */
	ref?: string;
	/** The events selected at the last poll (one letter each: events/index.ts). */
	events?: string;
	/** The Base URL, as a short hash. */
	baseUrl?: string;
	/**
	 * A token unique to the write that made this state (set by the poll that writes it): the same token
	 * read back means the same state, so the poll that wrote it may go on with the memory it kept
	 * (poll/memory.ts). Not decoded.
	 */
	generation?: string;
}

export interface TriggerMemory {
	label: StateLabel;
	/** Server time of the baseline (first activation or last new start). */
	since: number;
	/** Server time of the last poll that produced this memory. */
	polledAt: number;
	/** Server clock minus n8n's clock at the last poll with a `Date` header (fallback for "now"). */
	skewMs: number;
	/** Each window's memory, by name (windows/). */
	windows: WindowMemories;
	sessions?: SessionListMemory;
	/** Where the watched requests' rotation goes on (events/watched.ts: a rank; undefined at page 2), while an event watches requests. */
	rotation?: number;
	/** Each selected event's own memory, by its slot in the state (events/*: `memory`; Request Updated's records). */
	events: Readonly<Record<string, unknown>>;
}

/** What handling one decision adds to the customers' memories (events/context.ts `Decision` carries it). */
export interface CustomerAdds {
	seen?: { id: string; at: number };
	booked?: { codes: string[]; at: number };
	reminded?: Reminder;
}

/** What a poll changes in the customers' memories: its handled decisions' additions, then pruned up to the event time it judged. */
export interface CustomerChanges {
	/** Phone codes found shared in the bookings this poll read (kept 30 days from `now`). */
	shared: Iterable<string>;
	added: readonly CustomerAdds[];
	now: number;
	judgedUpTo: number;
}

/**
 * What a poll changes in the memory: the pure core (rules/core.ts) decides it from the memory it read,
 * the poll (poll/memory.ts) applies it once the poll succeeded.
 */
export interface MemoryChanges {
	/** A new start (the first poll): the memory the rest applies to. */
	start?: TriggerMemory;
	polledAt: number;
	skewMs: number;
	/** A booking request id of the workspace read in this poll (undefined: none read). */
	ref: string | undefined;
	/** Every window's memory after the poll (a window absent from it keeps nothing). */
	windows: Record<string, WindowMemory>;
	/** The session list after the poll; undefined: it is not kept any more (no session event left). */
	sessions?: { checkpoints: Checkpoint[]; customers?: CustomerChanges };
	/** Where the watched requests' rotation goes on, when it moved in this poll. */
	rotation?: Rotation;
	/** What the poll changes in each event's own memory, in order (events/*: `watch`, `remember`). */
	events: Array<{ slot: string; change: unknown }>;
}
