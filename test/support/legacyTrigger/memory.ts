/**
 * Compact, JSON-safe memories of ids for the trigger's state. An id is remembered as the first 6 bytes
 * of its SHA-256, written as 8 base64url characters, so a remembered id costs 8 bytes of static data
 * whatever its length, and no id is stored in clear. Two different ids share a code with probability
 * 2^-48 per pair: with 50,000 codes remembered, a new id collides with one of them about once in 5
 * billion lookups (the effect would be one missed re-report, never a crash).
 *
 * - `KeySet`: ids processed at a given timestamp, above a list's floor (ties and late rows at the
 *   boundary). Grouped by timestamp so that pruning below a new floor is a key deletion.
 * - `SeenMemory`: sessions seen abandoned, bucketed by UTC day, bounded (see SEEN_LIMIT).
 */
import { createHash } from 'node:crypto';

export const CODE_LENGTH = 8;

/** The 8-character code of an id. */
export function codeOf(id: string): string {
	return createHash('sha256').update(id).digest().subarray(0, 6).toString('base64url');
}

function splitCodes(packed: string): string[] {
	const codes: string[] = [];
	for (let at = 0; at + CODE_LENGTH <= packed.length; at += CODE_LENGTH) codes.push(packed.slice(at, at + CODE_LENGTH));
	return codes;
}

const CODE_RE = /^(?:[A-Za-z0-9_-]{8})*$/;

/** Whether a stored string is a valid run of codes. */
export function isPackedCodes(value: unknown): value is string {
	return typeof value === 'string' && CODE_RE.test(value);
}

/** Stored form of a KeySet: timestamp (ms, as a decimal string) → concatenated codes. */
export type PackedKeys = Record<string, string>;

/** Ids (as codes) by timestamp. */
export class KeySet {
	private readonly byTime = new Map<number, Set<string>>();

	static decode(packed: PackedKeys | undefined): KeySet {
		const set = new KeySet();
		for (const [time, codes] of Object.entries(packed ?? {})) {
			const ms = Number(time);
			if (!Number.isFinite(ms)) continue;
			for (const code of splitCodes(codes)) set.addCode(ms, code);
		}
		return set;
	}

	private addCode(ms: number, code: string): void {
		let codes = this.byTime.get(ms);
		if (!codes) this.byTime.set(ms, (codes = new Set()));
		codes.add(code);
	}

	add(ms: number, id: string): void {
		this.addCode(ms, codeOf(id));
	}

	has(ms: number, id: string): boolean {
		return this.byTime.get(ms)?.has(codeOf(id)) ?? false;
	}

	/** A copy keeping only the timestamps above `floor`. */
	above(floor: number): KeySet {
		const copy = new KeySet();
		for (const [ms, codes] of this.byTime) if (ms > floor) for (const code of codes) copy.addCode(ms, code);
		return copy;
	}

	get size(): number {
		let size = 0;
		for (const codes of this.byTime.values()) size += codes.size;
		return size;
	}

	/** The lowest and highest timestamps held (undefined when empty). */
	span(): { min: number; max: number } | undefined {
		const times = [...this.byTime.keys()];
		return times.length === 0 ? undefined : { min: Math.min(...times), max: Math.max(...times) };
	}

	/** A copy keeping the timestamps above `floor`, without the ids of `other`. */
	aboveWithout(floor: number, other: KeySet): KeySet {
		const copy = new KeySet();
		for (const [ms, codes] of this.byTime) {
			if (ms <= floor) continue;
			const drop = other.byTime.get(ms);
			for (const code of codes) if (!drop?.has(code)) copy.addCode(ms, code);
		}
		return copy;
	}

	/** Adds every id of `other`. */
	merge(other: KeySet): void {
		for (const [ms, codes] of other.byTime) for (const code of codes) this.addCode(ms, code);
	}

	encode(): PackedKeys {
		const out: PackedKeys = {};
		for (const ms of [...this.byTime.keys()].sort((a, b) => a - b)) out[String(ms)] = [...(this.byTime.get(ms) as Set<string>)].join('');
		return out;
	}
}

export const DAY_MS = 86_400_000;
/** A session seen abandoned is remembered for this long (by the day it became abandoned). */
export const SEEN_RETENTION_DAYS = 30;
/**
 * At most this many sessions remembered as seen abandoned: 56,000 codes are 448,000 characters of
 * static data (+ 31 day keys). Past it, the oldest sessions are dropped (and the node logs a warning).
 */
export const SEEN_LIMIT = 56_000;

/** Stored form: UTC day number (days since 1970-01-01, as a decimal string) → concatenated codes. */
export type PackedSeen = Record<string, string>;

/** Sessions this trigger saw abandoned, for "once per session", `recovered` and Only Recovered. */
export class SeenMemory {
	private readonly days = new Map<number, string[]>();
	/** Each code with the day it was seen. */
	private readonly codes = new Map<string, number>();
	/** Sessions forgotten because of the bound in the last `prune` (not because of age). */
	droppedForBound = 0;

	static decode(packed: PackedSeen | undefined): SeenMemory {
		const memory = new SeenMemory();
		for (const [day, codes] of Object.entries(packed ?? {})) {
			const number = Number(day);
			if (!Number.isInteger(number)) continue;
			const list = splitCodes(codes);
			memory.days.set(number, list);
			for (const code of list) memory.codes.set(code, number);
		}
		return memory;
	}

	has(id: string): boolean {
		return this.codes.has(codeOf(id));
	}

	/** Whether `id` was seen on the day of `ms` or later (a catch-up judges by event time, not by now). */
	seenSince(id: string, ms: number): boolean {
		return (this.codes.get(codeOf(id)) ?? -Infinity) >= Math.floor(ms / DAY_MS);
	}

	/** Whether this code (already hashed) is remembered. */
	hasCode(code: string): boolean {
		return this.codes.has(code);
	}

	/** Remembers `id` as seen abandoned at `at` (ms). */
	add(id: string, at: number): void {
		this.addCode(codeOf(id), at);
	}

	/** Remembers a code (already hashed) at `at` (ms). */
	addCode(code: string, at: number): void {
		if (this.codes.has(code)) return;
		const day = Math.floor(at / DAY_MS);
		this.codes.set(code, day);
		const list = this.days.get(day);
		if (list) list.push(code);
		else this.days.set(day, [code]);
	}

	get size(): number {
		let size = 0;
		for (const list of this.days.values()) size += list.length;
		return size;
	}

	/**
	 * Forgets days older than the retention, then the oldest sessions while over `limit` — within a day
	 * too (a day's codes are in the order they were seen), so a busy day never empties the memory.
	 */
	prune(now: number, limit = SEEN_LIMIT): void {
		const oldest = Math.floor(now / DAY_MS) - SEEN_RETENTION_DAYS;
		this.droppedForBound = 0;
		for (const day of [...this.days.keys()]) if (day < oldest) this.forgetDay(day);
		const days = [...this.days.keys()].sort((a, b) => a - b);
		let excess = this.size - limit;
		while (excess > 0 && days.length > 0) {
			const day = days.shift() as number;
			const list = this.days.get(day) as string[];
			const gone = list.splice(0, Math.min(excess, list.length));
			for (const code of gone) this.codes.delete(code);
			if (list.length === 0) this.days.delete(day);
			this.droppedForBound += gone.length;
			excess -= gone.length;
		}
	}

	private forgetDay(day: number): void {
		for (const code of this.days.get(day) ?? []) this.codes.delete(code);
		this.days.delete(day);
	}

	encode(): PackedSeen {
		const out: PackedSeen = {};
		for (const day of [...this.days.keys()].sort((a, b) => a - b)) out[String(day)] = (this.days.get(day) as string[]).join('');
		return out;
	}
}
