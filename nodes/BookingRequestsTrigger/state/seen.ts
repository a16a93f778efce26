/**
 * Sessions this trigger saw abandoned (and, with the same structure, phones found shared by many
 * customers): codes (keySet.ts `codeOf`) bucketed by UTC day, bounded (SEEN_LIMIT). Pure, JSON-safe.
 */
import { codeOf, splitCodes } from './keySet';

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

	/** A copy to change (a poll never changes the memory it starts from). */
	clone(): SeenMemory {
		const copy = new SeenMemory();
		for (const [day, codes] of this.days) copy.days.set(day, [...codes]);
		for (const [code, day] of this.codes) copy.codes.set(code, day);
		return copy;
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

	/** Takes `other`'s codes in too (a code known to both keeps the day this memory has). */
	merge(other: SeenMemory): void {
		for (const [day, list] of other.days) for (const code of list) this.addCode(code, day * DAY_MS);
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
