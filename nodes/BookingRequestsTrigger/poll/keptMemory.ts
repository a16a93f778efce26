/**
 * The decoded memory of each published trigger, kept in this process from one poll to the next, so
 * that a poll does not decode the whole state again (nor the next encode it all again: the memory keeps
 * its stored form where nothing changed). It is used only when the stored state is exactly the one this
 * process wrote last for that node — the state carries a random token per write (`g`), and the
 * parameters that decide how it is read are the same — so whatever else happened to the static data
 * falls back to decoding it: n8n restarted, another main took over (multi-main), a save was lost (n8n
 * saves the static data only after a poll that emits; a crash loses what it held), the workflow was
 * edited or saved with an older copy, a parameter changed. The pure core never changes the memory it is
 * given (rules/core.ts), so the memory kept stays what that state decodes to.
 *
 * It also keeps what the state does not: the rows some windows keep in this process as read (each
 * window's module says how: windows/window.ts `carryRows`, `countRows`), so the poll that judges them
 * need not read their pages again; a memory decoded from the state has none.
 *
 * Bounded: at most KEPT_LIMITS.triggers memories and KEPT_LIMITS.entries entries of their memories
 * together (customers, sessions, watched requests, the windows' rows at ROW_ENTRIES each: each window bounds its own), the
 * least recently polled dropped first, and one not polled for KEPT_LIMITS.idleMs is dropped (n8n does
 * not tell a polling node it was unpublished).
 * A dropped memory is decoded again at its next poll. Fetch Test Event neither reads nor writes it.
 *
 * Module state: the build emits one module per source file, so there is one store per process.
 */
import { randomBytes } from 'node:crypto';

import type { StoredMemory } from '../state/codec';
import { readMemory, writeMemory, writtenMemory } from '../state/codec';
import type { TriggerMemory } from '../state/decoded';
import type { TriggerState } from '../state/format';
import type { WindowMemories } from '../windows';
import { WINDOW_KINDS } from '../windows';
import type { WindowMemory } from '../windows/window';

export const KEPT_LIMITS = { triggers: 5_000, entries: 2_000_000, idleMs: 24 * 3_600_000 };

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
 * Whether the windows' rows are carried into the memory kept. Tests only turn it off: with it off, the
 * kept memory is exactly what its state decodes to, so the trigger reads the same pages whether it
 * keeps its memory or decodes it every poll (the differential property test).
 */
let rowsCarried = true;

/** Tests only: carry the windows' rows into the memory kept (true, as in production) or not. */
export function keepRowsForTests(keep: boolean): void {
	rowsCarried = keep;
}

/** The window memories `into` (decoded from the state just written) with the rows of `from` (the memories it was written from). */
function withRows(into: WindowMemories, from: WindowMemories): WindowMemories {
	const out: Record<string, WindowMemory | undefined> = { ...into };
	for (const kind of WINDOW_KINDS) {
		const target = into[kind.name];
		const source = from[kind.name];
		if (kind.carryRows && target && source) out[kind.name] = kind.carryRows(target, source);
	}
	return out;
}

/** How many rows the window memories keep (what they weigh in the process). */
function rowsKept(memories: WindowMemories): number {
	return WINDOW_KINDS.reduce((sum, kind) => {
		const memory = memories[kind.name];
		return sum + (kind.countRows && memory ? kind.countRows(memory) : 0);
	}, 0);
}

/**
 * What a window's row weighs against an entry: a session row as read is about 750 bytes of heap, an
 * entry (a code and its value in a Map) about 60 (measured with Node 20).
 */
export const ROW_ENTRIES = 12;

const readingOf = (read: ReadInput): string => JSON.stringify([read.expect, read.settings.events, read.about ?? null]);

/** Entries of a memory (its customers, sessions and each event's records), roughly what it weighs. */
function entriesOf(memory: TriggerMemory): number {
	const customers = memory.sessions?.customers;
	const sizes = customers ? customers.seen.size + customers.booked.size + customers.reminded.keys + customers.shared.size : 0;
	const own = Object.values(memory.events).reduce((sum: number, value) => sum + ((value as { size?: unknown }).size as number | undefined ?? 0), 0);
	return 100 + sizes + own + ROW_ENTRIES * rowsKept(memory.windows);
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

/**
 * The memory a poll starts from: the one kept for `key` (workflow and node) when the stored state is
 * the one written with it and is read the same way, else `raw` decoded (readMemory).
 */
export function memoryAtStart(key: string, raw: unknown, read: ReadInput): StoredMemory & { kept?: true } {
	const kept = KEPT.get(key);
	const generation = typeof raw === 'object' && raw !== null ? (raw as { g?: unknown }).g : undefined;
	if (kept && kept.generation === generation && kept.reading === readingOf(read)) {
		KEPT.delete(key);
		KEPT.set(key, { ...kept, usedAt: Date.now() });
		return { memory: kept.memory, kept: true };
	}
	drop(key);
	return readMemory(raw, read);
}

/** The state a poll writes for its memory (with a new token), the memory kept for the next poll of `key`. */
export function stateAtEnd(key: string, memory: TriggerMemory, read: ReadInput): TriggerState {
	const generation = randomBytes(9).toString('base64url');
	const state = writeMemory({ ...memory, label: { ...memory.label, generation } });
	const written = writtenMemory(memory, state, read.settings);
	const kept = rowsCarried ? { ...written, windows: withRows(written.windows, memory.windows) } : written;
	drop(key);
	const entries = entriesOf(kept);
	KEPT.set(key, { generation, reading: readingOf(read), memory: kept, entries, usedAt: Date.now() });
	entriesKept += entries;
	evict(Date.now());
	return state;
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
