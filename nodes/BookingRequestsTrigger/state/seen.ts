/**
 * Sessions this trigger saw abandoned (and, with the same structure, phones found shared by many
 * customers): codes (keySet.ts `codeOf`) bucketed by UTC day, bounded (SEEN_LIMIT). Pure, JSON-safe.
 */
import { DayBuckets, type DayPacker } from './dayBuckets';
import { CODE_LENGTH, codeOf, splitCodes } from './keySet';

export const DAY_MS = 86_400_000;
/** The UTC day number of a time: the memories are kept by day. */
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);
/** A session seen abandoned is remembered for this long (by the day it became abandoned). */
export const SEEN_RETENTION_DAYS = 30;
/**
 * At most this many sessions remembered as seen abandoned: 56,000 codes are 448,000 characters of
 * static data (+ 31 day keys). Past it, the oldest sessions are dropped (and the node logs a warning).
 */
export const SEEN_LIMIT = 56_000;

/** Stored form: UTC day number (days since 1970-01-01, as a decimal string) → concatenated codes. */
export type PackedSeen = Record<string, string>;

/** A day of codes, written as their concatenation. */
const packCodes: DayPacker<true> = (codes) => [...codes.keys()].join('');

/** Sessions this trigger saw abandoned, for "once per session", `recovered` and Only Recovered. */
export class SeenMemory {
	/** Codes by the UTC day they were seen, in the order seen. */
	private readonly days = new DayBuckets<true>();
	/** Sessions forgotten because of the bound in the last `prune` (not because of age). */
	droppedForBound = 0;

	static decode(packed: PackedSeen | undefined): SeenMemory {
		const memory = new SeenMemory();
		for (const [day, codes] of Object.entries(packed ?? {})) {
			const number = Number(day);
			if (!Number.isInteger(number)) continue;
			const list = splitCodes(codes);
			const entries = new Map(list.map((code) => [code, true as const]));
			// Its text stays the day's text while it holds each code once (as this memory writes it).
			memory.days.load(number, entries, entries.size === list.length && codes.length === list.length * CODE_LENGTH ? codes : undefined);
		}
		return memory;
	}

	has(id: string): boolean {
		return this.hasCode(codeOf(id));
	}

	/** Whether `id` was seen on the day of `ms` or later (a catch-up judges by event time, not by now). */
	seenSince(id: string, ms: number): boolean {
		return (this.days.find(codeOf(id))?.day ?? -Infinity) >= dayOf(ms);
	}

	/** Whether this code (already hashed) is remembered. */
	hasCode(code: string): boolean {
		return this.days.find(code) !== undefined;
	}

	/** Remembers `id` as seen abandoned at `at` (ms). */
	add(id: string, at: number): void {
		this.addCode(codeOf(id), at);
	}

	/**
	 * Remembers a code (already hashed) at `at` (ms), for SEEN_RETENTION_DAYS from the newest day it was
	 * seen: a session reported again after its day expired must not be forgotten with that day.
	 */
	addCode(code: string, at: number): void {
		const day = dayOf(at);
		const known = this.days.find(code);
		if (known && known.day >= day) return;
		if (known) this.days.delete(known.day, code);
		this.days.set(day, code, true);
	}

	/** Takes `other`'s codes in too (a code known to both keeps the newer day). */
	merge(other: SeenMemory): void {
		for (const day of other.days.dayNumbers()) for (const code of other.days.entries(day)?.keys() ?? []) this.addCode(code, day * DAY_MS);
	}

	get size(): number {
		return this.days.size;
	}

	/**
	 * Forgets days older than the retention, then the oldest sessions while over `limit` — within a day
	 * too (a day's codes are in the order they were seen), so a busy day never empties the memory.
	 */
	prune(now: number, limit = SEEN_LIMIT): void {
		this.droppedForBound = 0;
		this.days.dropDaysBefore(dayOf(now) - SEEN_RETENTION_DAYS);
		let excess = this.size - limit;
		for (const day of this.days.dayNumbers()) {
			if (excess <= 0) break;
			const gone = [...(this.days.entries(day)?.keys() ?? [])].slice(0, excess);
			for (const code of gone) this.days.delete(day, code);
			this.droppedForBound += gone.length;
			excess -= gone.length;
		}
	}

	encode(): PackedSeen {
		return this.days.encode(packCodes);
	}
}
