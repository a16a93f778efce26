/**
 * The trigger's memory between polls, decoded: what state/ reads from the workflow's static data at
 * the start of a poll, what the rules read and return, and what state/ writes at its end. Times are
 * milliseconds on the API server's clock, never n8n's.
 */
import type { BookedMemory, RemindedMemory } from './customers';
import type { UpdatesMemory } from '../events/requestUpdated/records';
import type { SeenMemory } from './seen';
import type { HeldMemory, WindowMemory } from '../model/windows';

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

/** The session list's windows and what the trigger knows about customers. */
export interface SessionMemory {
	/** Completed sessions (and placeholder sessions): by `updated_at`, from the top of the list. */
	completions: WindowMemory;
	/** Sessions crossing the abandonment horizon (now − delay): by `updated_at`, deep in the list. */
	horizon: WindowMemory;
	/** Open drafts the horizon passed before their event time, judged later on a fresh read (absent: none). */
	held?: HeldMemory;
	/** [server time, list length] at recent polls: every session at or before that time is at most that far from the end. */
	checkpoints: Array<[number, number]>;
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
}

export interface TriggerMemory {
	label: StateLabel;
	/** Server time of the baseline (first activation or last new start). */
	since: number;
	/** Server time of the last poll that produced this memory. */
	polledAt: number;
	/** Server clock minus n8n's clock at the last poll with a `Date` header (fallback for "now"). */
	skewMs: number;
	sessions?: SessionMemory;
	requests?: WindowMemory;
	/** Request Updated's watched requests; absent when it is not selected. */
	updates?: UpdatesMemory;
}
