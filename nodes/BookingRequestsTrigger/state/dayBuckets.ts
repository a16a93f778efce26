/**
 * Entries keyed by code and grouped by UTC day, the storage of the customers' memories (customers.ts,
 * seen.ts), which are stored by day too. A copy (`clone`) shares every day with the memory it was
 * copied from, and copies a day before it changes it (copy on write); the memory copied is not changed
 * any more (the pure core changes only the copies it makes). So the memory after a poll shares every
 * day the poll left alone with the memory before it — both stay valid — and each day keeps its stored
 * text (`packed`) until it changes: encoding writes again only the days that changed, and a day that
 * only gained entries appends their text.
 *
 * The entries of a day keep the order of its stored text (decoded in that order, new ones appended,
 * removed ones taken out), so a memory kept from poll to poll and one decoded from what it wrote encode
 * the same text.
 */
import { AppendedMap } from './appendedMap';

/** Days with fewer entries than this are copied whole before a change (cheap): no layer to read through. */
const SHARE_FROM = 256;

/** One day's entries, and its stored text while it is up to date. Never changed: a change makes a new one. */
interface Day<V> {
	/** A Map, or (a day that only gained entries since the memory it was copied from) the shared ones and the new (appendedMap.ts). */
	readonly entries: Map<string, V> | AppendedMap<V>;
	/** The day's text for the first `packedCount` entries (undefined: encode it again). */
	readonly packed?: string;
	readonly packedCount: number;
}

/**
 * How a memory writes one day: its text for these entries, given the text of the first `count` of them
 * when the day only gained entries since (undefined: write it whole), and `added`, the entries after
 * those `count`.
 */
export type DayPacker<V> = (entries: ReadonlyMap<string, V>, day: number, before?: { packed: string; count: number; added: Iterable<[string, V]> }) => string;

/**
 * The entries after the first `count`: those a day's text lacks. A layered day whose text holds every
 * shared entry gives its new ones without walking the thousands it shares.
 */
function* entriesAfter<V>(entries: Map<string, V> | AppendedMap<V>, count: number): Generator<[string, V]> {
	const layered = entries instanceof AppendedMap && count >= entries.base.size;
	let skip = layered ? count - entries.base.size : count;
	for (const entry of layered ? entries.added : entries) if (skip-- <= 0) yield entry;
}

export class DayBuckets<V> {
	private days = new Map<number, Day<V>>();
	/** The day numbers held, newest first: kept when a day comes or goes (reads change nothing: the memory a poll starts from may be frozen). */
	private newestFirst: readonly number[] = [];
	/** The entries this copy made or copied itself: it may change them in place (no other memory holds them). */
	private readonly own = new Set<Map<string, V>>();

	/** A copy sharing every day; it copies a day's entries before it changes them. */
	clone(): DayBuckets<V> {
		const copy = new DayBuckets<V>();
		copy.days = new Map(this.days);
		copy.newestFirst = this.newestFirst;
		return copy;
	}

	/** A day as decoded: its entries in the order of `packed`, which stays its text when it encodes them exactly. */
	load(day: number, entries: Map<string, V>, packed: string | undefined): void {
		const added = !this.days.has(day);
		this.days.set(day, { entries, packed, packedCount: packed === undefined ? 0 : entries.size });
		if (added) this.reorder();
		this.own.add(entries);
	}

	/** The day numbers held, oldest first. */
	dayNumbers(): number[] {
		return [...this.newestFirst].reverse();
	}

	private reorder(): void {
		this.newestFirst = [...this.days.keys()].sort((a, b) => b - a);
	}

	/** Entries of every day. */
	get size(): number {
		let size = 0;
		for (const bucket of this.days.values()) size += bucket.entries.size;
		return size;
	}

	entries(day: number): ReadonlyMap<string, V> | undefined {
		return this.days.get(day)?.entries;
	}

	/** The newest day holding `code`, and its value there. */
	find(code: string): { day: number; value: V } | undefined {
		// Newest day first: the first day holding the code is the answer (a poll's lookups mostly hit today).
		for (const day of this.newestFirst) {
			const value = (this.days.get(day) as Day<V>).entries.get(code);
			if (value !== undefined) return { day, value };
		}
		return undefined;
	}

	/**
	 * The day's entries to change in place, copied first when another memory may hold them; `stale`: a
	 * known entry changes or goes, so its text must be written whole again. A large day that only gains
	 * entries keeps sharing the ones it had (appendedMap.ts) and gives the map of its new ones to add to.
	 */
	private writable(day: number, stale: boolean): Map<string, V> {
		const held = this.days.get(day);
		const bucket = held ?? { entries: new Map<string, V>(), packed: '', packedCount: 0 };
		const entries = this.changeable(bucket.entries, stale);
		this.days.set(day, { entries, packed: stale ? undefined : bucket.packed, packedCount: bucket.packedCount });
		if (!held) this.reorder();
		return entries instanceof AppendedMap ? entries.added : entries;
	}

	/** `entries` when this copy may change them in place, else a copy of its own: layered when only added to, else whole. */
	private changeable(entries: Map<string, V> | AppendedMap<V>, stale: boolean): Map<string, V> | AppendedMap<V> {
		const layered = entries instanceof AppendedMap;
		const owned = this.own.has(layered ? entries.added : entries);
		if (!stale && layered && !entries.crowded) return owned ? entries : this.owning(new AppendedMap(entries.base, entries.added));
		if (!layered && owned) return entries;
		if (!stale && !layered && entries.size >= SHARE_FROM) return this.owning(new AppendedMap(entries));
		return this.owning(new Map(entries));
	}

	/** Marks entries this copy made: it changes them in place from now on. */
	private owning<M extends Map<string, V> | AppendedMap<V>>(entries: M): M {
		this.own.add(entries instanceof AppendedMap ? entries.added : entries);
		return entries;
	}

	/** Sets a code's value in a day: a new code goes last (its text is appended), a known one changes in place. */
	set(day: number, code: string, value: V): void {
		this.writable(day, this.days.get(day)?.entries.has(code) === true).set(code, value);
	}

	delete(day: number, code: string): void {
		if (!this.days.get(day)?.entries.has(code)) return;
		const entries = this.writable(day, true);
		entries.delete(code);
		if (entries.size === 0) this.dropDay(day);
	}

	private dropDay(day: number): void {
		this.days.delete(day);
		this.reorder();
	}

	/** Deletes the entries of `day` whose value is `gone` (the day's text is written again if any goes). */
	deleteWhere(day: number, gone: (value: V) => boolean): void {
		const codes: string[] = [];
		for (const [code, value] of this.entries(day) ?? []) if (gone(value)) codes.push(code);
		for (const code of codes) this.delete(day, code);
	}

	/** Forgets every day before `day`, whole (the days kept stay as they are: no text written again). */
	dropDaysBefore(day: number): void {
		const before = this.days.size;
		for (const held of this.days.keys()) if (held < day) this.days.delete(held);
		if (this.days.size !== before) this.reorder();
	}

	/** Each day's text, oldest day first: the days unchanged since their last encoding as they were. */
	encode(pack: DayPacker<V>): Record<string, string> {
		const out: Record<string, string> = {};
		for (const day of this.dayNumbers()) {
			let bucket = this.days.get(day) as Day<V>;
			if (bucket.packed === undefined || bucket.packedCount < bucket.entries.size) {
				const { packed, packedCount: count } = bucket;
				const before = packed === undefined ? undefined : { packed, count, added: entriesAfter(bucket.entries, count) };
				bucket = { entries: bucket.entries, packed: pack(bucket.entries, day, before), packedCount: bucket.entries.size };
				this.days.set(day, bucket);
			}
			out[String(day)] = bucket.packed as string;
		}
		return out;
	}
}
