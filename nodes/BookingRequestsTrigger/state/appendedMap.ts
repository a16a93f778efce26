/**
 * A day of a customers' memory (dayBuckets.ts) that only gained entries since the memory it was copied
 * from: the entries it shares with that memory (`base`, never changed: the memory copied is not changed
 * any more) and its own new ones (`added`, none of them in `base`). A poll adds a few dozen customers
 * to today's day of thousands; copying the day for them cost more than the rest of writing the memory.
 *
 * Read like a Map in the order a copy would have: the shared entries, then the new ones in the order
 * they were added (the order of the day's stored text).
 */
export class AppendedMap<V> implements ReadonlyMap<string, V> {
	/** The new entries, changed in place by the one memory that made this map. */
	readonly added = new Map<string, V>();

	/** `base` shared as it is, `added` copied (a copy of a copy shares the same base: one layer, never a chain). */
	constructor(
		readonly base: ReadonlyMap<string, V>,
		added?: ReadonlyMap<string, V>,
	) {
		if (added) for (const [code, value] of added) this.added.set(code, value);
	}

	/**
	 * Whether the new entries are many enough to copy the day whole instead: copying `added` at each
	 * change costs its size, flattening costs the day's, so new entries up to about the square root of
	 * the day keep each poll's copy small.
	 */
	get crowded(): boolean {
		return this.added.size > 8 * Math.sqrt(this.base.size);
	}

	get size(): number {
		return this.base.size + this.added.size;
	}

	get(code: string): V | undefined {
		return this.added.has(code) ? this.added.get(code) : this.base.get(code);
	}

	has(code: string): boolean {
		return this.added.has(code) || this.base.has(code);
	}

	*entries(): MapIterator<[string, V]> {
		yield* this.base;
		yield* this.added;
	}

	*keys(): MapIterator<string> {
		for (const [code] of this.entries()) yield code;
	}

	*values(): MapIterator<V> {
		for (const [, value] of this.entries()) yield value;
	}

	forEach(callback: (value: V, code: string, map: ReadonlyMap<string, V>) => void): void {
		for (const [code, value] of this.entries()) callback(value, code, this);
	}

	[Symbol.iterator](): MapIterator<[string, V]> {
		return this.entries();
	}
}
