/**
 * Entries keyed by code and grouped by UTC day: the storage of the customers' memories (customers.ts,
 * seen.ts), which are stored by day too. The memory that holds it changes it in place (one owner: the
 * poll, poll/memory.ts).
 *
 * Each day keeps its stored text while its entries are unchanged (as read, or as last written), so a
 * poll writes again only the days it changed: a large client's memory holds about 100,000 keys, and a
 * poll adds a few dozen, mostly to today. A day's entries keep the order of its text (decoded in that
 * order, new ones last), so a memory kept from poll to poll and one decoded from what it wrote write the
 * same text.
 */

/** How a memory writes one day: its text for these entries. */
export type DayPacker<V> = (entries: ReadonlyMap<string, V>) => string;

export class DayBuckets<V> {
	private readonly days = new Map<number, Map<string, V>>();
	/** Each day's stored text while its entries are unchanged. */
	private readonly texts = new Map<number, string>();
	/** The day numbers held, newest first (a lookup mostly finds today's day). */
	private newestFirst: number[] = [];

	/** A day as decoded: its entries in the order of `text`, which stays its text when it encodes them exactly. */
	load(day: number, entries: Map<string, V>, text: string | undefined): void {
		this.days.set(day, entries);
		if (text === undefined) this.texts.delete(day);
		else this.texts.set(day, text);
		this.reorder();
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
		for (const entries of this.days.values()) size += entries.size;
		return size;
	}

	entries(day: number): ReadonlyMap<string, V> | undefined {
		return this.days.get(day);
	}

	/** The newest day holding `code`, and its value there. */
	find(code: string): { day: number; value: V } | undefined {
		for (const day of this.newestFirst) {
			const value = (this.days.get(day) as Map<string, V>).get(code);
			if (value !== undefined) return { day, value };
		}
		return undefined;
	}

	/** Sets a code's value in a day: a new code goes last, a known one keeps its place. */
	set(day: number, code: string, value: V): void {
		let entries = this.days.get(day);
		if (!entries) {
			this.days.set(day, (entries = new Map()));
			this.reorder();
		}
		entries.set(code, value);
		this.texts.delete(day);
	}

	delete(day: number, code: string): void {
		const entries = this.days.get(day);
		if (!entries?.delete(code)) return;
		this.texts.delete(day);
		if (entries.size === 0) this.dropDay(day);
	}

	private dropDay(day: number): void {
		this.days.delete(day);
		this.texts.delete(day);
		this.reorder();
	}

	/** Deletes the entries of `day` whose value is `gone`. */
	deleteWhere(day: number, gone: (value: V) => boolean): void {
		for (const [code, value] of this.days.get(day) ?? []) if (gone(value)) this.delete(day, code);
	}

	/** Forgets every day before `day`, whole. */
	dropDaysBefore(day: number): void {
		for (const held of [...this.days.keys()]) if (held < day) this.dropDay(held);
	}

	/** Each day's text, oldest day first: a day unchanged since it was read or written keeps its text. */
	encode(pack: DayPacker<V>): Record<string, string> {
		const out: Record<string, string> = {};
		for (const day of this.dayNumbers()) {
			let text = this.texts.get(day);
			if (text === undefined) this.texts.set(day, (text = pack(this.days.get(day) as Map<string, V>)));
			out[String(day)] = text;
		}
		return out;
	}
}
