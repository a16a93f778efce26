/**
 * The poll's one memory: each published trigger's decoded memory, kept in this process from one poll to
 * the next and changed in place by the changes its polls decide (rules/core.ts decides, `applyChanges`
 * applies: the one place the memory changes), so that a poll neither decodes the whole state again nor
 * copies it.
 *
 * A poll takes its memory out of the store (`takeMemory`) and puts it back only with the state it wrote
 * (`writeState`), or unchanged (`putBack`): any error in between leaves nothing kept, and the next poll
 * decodes the stored state. A memory kept is used only when the stored state is exactly the one this
 * process wrote with it — the state carries a random token per write (`g`), and the parameters that
 * decide how it is read are the same — so whatever else happened to the static data falls back to
 * decoding it: n8n restarted, another main took over (multi-main), a save was lost (n8n saves the static
 * data only after a poll that emits; a crash loses what it held), the workflow was edited or saved with
 * an older copy, a parameter changed. It also holds what the state does not: the held drafts' rows as
 * read (windows/heldRows.ts); a memory decoded from the state has none.
 *
 * Bounded: at most KEPT_LIMITS.triggers memories and KEPT_LIMITS.entries entries of their memories
 * together (customers, watched requests, a window's row at ROW_ENTRIES each), the least recently polled
 * dropped first, and one not polled for KEPT_LIMITS.idleMs is dropped (n8n does not tell a polling node
 * it was unpublished). Fetch Test Event neither reads nor writes it.
 *
 * Module state: the build emits one module per source file, so there is one store per process.
 */
import { randomBytes } from 'node:crypto';

import { EVENT_KINDS } from '../events';
import type { StoredMemory } from '../state/codec';
import { readMemory, writeMemory } from '../state/codec';
import type { CustomerMemories, MemoryChanges, StateLabel, TriggerMemory } from '../state/decoded';
import type { TriggerState } from '../state/format';
import { applyCustomers } from '../state/sessionList';
import type { RowsRead } from '../windows/window';

export const KEPT_LIMITS = { triggers: 5_000, entries: 2_000_000, idleMs: 24 * 3_600_000 };

/**
 * What a window's row weighs against an entry: a session row as read is about 750 bytes of heap, an
 * entry (a code and its value in a Map) about 60 (measured with Node 20).
 */
export const ROW_ENTRIES = 12;

/** How a poll reads the stored state (state/codec.ts `readMemory`): what the memory read from it depends on. */
export type ReadInput = Parameters<typeof readMemory>[1];

interface Kept {
	generation: string;
	/** How it was read: the same parameters give the same memory. */
	reading: string;
	memory: TriggerMemory;
	entries: number;
	usedAt: number;
}

const KEPT = new Map<string, Kept>();
let entriesKept = 0;

/**
 * Whether the held drafts' rows are kept. Tests only turn it off: then the kept memory is exactly what
 * its state decodes to, so the trigger reads the same pages whether it keeps its memory or decodes it
 * every poll (the differential property test).
 */
let rowsKept = true;

/** Tests only: keep the windows' rows (true, as in production) or not. */
export function keepRowsForTests(keep: boolean): void {
	rowsKept = keep;
}

const readingOf = (read: ReadInput): string => JSON.stringify([read.expect, read.settings.events, read.about ?? null]);

const rowsOf = (memory: TriggerMemory) => Object.values(memory.windows).map((window) => (window as { rows?: RowsRead } | undefined)?.rows);

/** Entries of a memory (its customers, each event's records, its rows), roughly what it weighs. */
function entriesOf(memory: TriggerMemory): number {
	const customers = memory.sessions?.customers;
	const sizes = customers ? customers.seen.size + customers.booked.size + customers.reminded.keys + customers.shared.size : 0;
	const own = EVENT_KINDS.reduce((sum, kind) => sum + (kind.memory && memory.events[kind.memory.slot] !== undefined ? kind.memory.size(memory.events[kind.memory.slot]) : 0), 0);
	const rows = rowsOf(memory).reduce((sum: number, held) => sum + (held?.size ?? 0), 0);
	return 100 + sizes + own + ROW_ENTRIES * rows;
}

function drop(key: string): void {
	const kept = KEPT.get(key);
	if (!kept) return;
	KEPT.delete(key);
	entriesKept -= kept.entries;
}

/** Drops the least recently used memories while over a bound, and those idle too long. */
function evict(now: number): void {
	for (const [key, kept] of KEPT) {
		const over = KEPT.size > KEPT_LIMITS.triggers || entriesKept > KEPT_LIMITS.entries;
		if (!over && now - kept.usedAt <= KEPT_LIMITS.idleMs) return;
		drop(key);
	}
}

function keep(key: string, memory: TriggerMemory, generation: string, read: ReadInput): void {
	drop(key);
	if (!rowsKept) {
		const windows = Object.fromEntries(Object.entries(memory.windows).map(([name, window]) => [name, window && { ...window, rows: undefined }]));
		memory = { ...memory, windows };
	}
	const entries = entriesOf(memory);
	KEPT.set(key, { generation, reading: readingOf(read), memory, entries, usedAt: Date.now() });
	entriesKept += entries;
	evict(Date.now());
}

const generationOf = (raw: unknown): unknown => (typeof raw === 'object' && raw !== null ? (raw as { g?: unknown }).g : undefined);

/**
 * The memory a poll starts from, taken out of the store: the one kept for `key` (workflow and node)
 * when the stored state is the one written with it and is read the same way, else `raw` decoded.
 */
export function takeMemory(key: string, raw: unknown, read: ReadInput): StoredMemory & { kept?: true } {
	const kept = KEPT.get(key);
	drop(key);
	if (kept && kept.generation === generationOf(raw) && kept.reading === readingOf(read)) return { memory: kept.memory, kept: true };
	return readMemory(raw, read);
}

/** Puts back a memory the poll did not change, for the state it was read from (`raw`, not written again). */
export function putBack(key: string, memory: TriggerMemory, raw: unknown, read: ReadInput): void {
	const generation = generationOf(raw);
	if (typeof generation === 'string') keep(key, memory, generation, read);
}

/** The state a poll writes for its memory (with a new token); the memory is kept for the next poll of `key`. */
export function writeState(key: string, memory: TriggerMemory, read: ReadInput): TriggerState {
	const generation = randomBytes(9).toString('base64url');
	memory.label.generation = generation;
	const state = writeMemory(memory);
	keep(key, memory, generation, read);
	return state;
}

/** What applying a poll's changes forgot because of the memories' bounds (the node logs a warning). */
export interface Forgotten {
	/** Sessions seen abandoned. */
	seen: number;
	/** Customer keys who booked, customers reminded. */
	booked: number;
	reminded: number;
	/** Entries the events' own memories forgot (watched requests that left the range). */
	events: number;
}

/**
 * A new start keeps the customers' memories a state about another Form carried (they are about
 * customers, not a form), with what the first poll found added.
 */
function withCarried(memory: TriggerMemory, carried: CustomerMemories | undefined): void {
	const customers = memory.sessions?.customers;
	if (!carried || !customers) return;
	carried.booked.merge(customers.booked);
	carried.shared.merge(customers.shared);
	memory.sessions = { ...(memory.sessions as NonNullable<TriggerMemory['sessions']>), customers: carried };
}

/** Applies a poll's changes to its memory, in place (the memory of a new start is `changes.start`). */
export function applyChanges(previous: TriggerMemory | undefined, changes: MemoryChanges, carried?: CustomerMemories): { memory: TriggerMemory; forgotten: Forgotten } {
	const memory = changes.start ?? (previous as TriggerMemory);
	if (changes.start) withCarried(memory, carried);
	const forgotten: Forgotten = { seen: 0, booked: 0, reminded: 0, events: 0 };
	memory.polledAt = changes.polledAt;
	memory.skewMs = changes.skewMs;
	memory.label.ref = changes.ref;
	memory.windows = changes.windows;
	if (changes.rotation) memory.rotation = changes.rotation.cursor;
	if (!changes.sessions || !memory.sessions) delete memory.sessions;
	else {
		memory.sessions.checkpoints = changes.sessions.checkpoints;
		if (changes.sessions.customers) Object.assign(forgotten, applyCustomers(memory.sessions.customers, changes.sessions.customers));
	}
	for (const { slot, change } of changes.events) {
		const kind = EVENT_KINDS.find((candidate) => candidate.memory?.slot === slot);
		if (kind?.memory && memory.events[slot] !== undefined) forgotten.events += kind.memory.apply(memory.events[slot], change);
	}
	return { memory, forgotten };
}

/** How a poll ends, whoever runs it (the node, the tests): what it started from and what it found. */
export interface PollEnd {
	/** The workflow and node whose memory this is. */
	key: string;
	/** The stored state as the poll read it, and the memory taken from it (`takeMemory`). */
	raw: unknown;
	stored: StoredMemory;
	/** The memory the poll judged from: `stored.memory`, or undefined when the poll started afresh. */
	memory: TriggerMemory | undefined;
	/** The core's changes; undefined when nothing could be read. */
	changes: MemoryChanges | undefined;
	read: ReadInput;
	/** Who wrote the state (the key's id, the events, the Base URL's hash). */
	label: Omit<StateLabel, 'fingerprint'>;
}

/**
 * The end of a poll, the one place the memory changes: its changes applied, labelled and written (the
 * memory kept for the next poll); a poll that read nothing puts its memory back as it was and writes
 * nothing (`state` undefined).
 */
export function finishPoll(end: PollEnd): { state: TriggerState | undefined; forgotten: Forgotten } {
	if (!end.changes) {
		if (end.memory) putBack(end.key, end.memory, end.raw, end.read);
		return { state: undefined, forgotten: { seen: 0, booked: 0, reminded: 0, events: 0 } };
	}
	const { memory, forgotten } = applyChanges(end.memory, end.changes, end.stored.carried);
	Object.assign(memory.label, end.label);
	return { state: writeState(end.key, memory, end.read), forgotten };
}

/** Forgets every kept memory (as a new process would start): the next polls decode their states. */
export function forgetKeptMemories(): void {
	KEPT.clear();
	entriesKept = 0;
}

/** What is kept now: memories and their entries. */
export function keptMemories(): { triggers: number; entries: number } {
	return { triggers: KEPT.size, entries: entriesKept };
}
