/**
 * A map whose copy shares it until one changes, and then copies only the changes: the entries of the
 * map it was copied from (`base`, never changed) and its own changes over them (a value, or GONE). A
 * poll changes a few dozen of Request Updated's 5,000 records; copying them all at the first change
 * allocated more than the rest of the poll's writing.
 *
 * The changes are folded into a new base at the first change after a copy once they outnumber about
 * the square root of the base (as appendedMap.ts): copying them at every poll costs their number,
 * folding costs the base's.
 *
 * The order of a walk is the base's entries, then the new ones: not the order a Map with the same
 * history would give. Callers that write in an order sort.
 */
const GONE: unique symbol = Symbol('gone');

/** Change maps held by more than one copy: each copies it before its first change. */
const SHARED = new WeakSet<Map<string, unknown>>();

export class OverlayMap<V> {
	private base: ReadonlyMap<string, V> = new Map();
	private changes = new Map<string, V | typeof GONE>();
	private count = 0;

	/** A copy sharing everything with this map until one of the two changes. */
	copy(): OverlayMap<V> {
		SHARED.add(this.changes);
		const copy = new OverlayMap<V>();
		copy.base = this.base;
		copy.changes = this.changes;
		copy.count = this.count;
		return copy;
	}

	get size(): number {
		return this.count;
	}

	get(key: string): V | undefined {
		const changed = this.changes.get(key);
		if (changed === undefined) return this.base.get(key);
		return changed === GONE ? undefined : changed;
	}

	has(key: string): boolean {
		return this.get(key) !== undefined;
	}

	/** Sets a value (never undefined: undefined is read as absent). */
	set(key: string, value: V): void {
		if (!this.has(key)) this.count++;
		this.writable().set(key, value);
	}

	delete(key: string): void {
		if (!this.has(key)) return;
		this.count--;
		// The base may be new once the changes are writable (folded).
		const changes = this.writable();
		if (this.base.has(key)) changes.set(key, GONE);
		else changes.delete(key);
	}

	/** Calls `visit` for each entry (Map's forEach underneath: no entry allocated for each of thousands). */
	forEach(visit: (value: V, key: string) => void): void {
		const { base, changes } = this;
		base.forEach((value, key) => {
			if (!changes.has(key)) visit(value, key);
		});
		changes.forEach((value, key) => {
			if (value !== GONE) visit(value, key);
		});
	}

	/** This map's own changes, to change in place: copied, or folded into a new base, when a copy shares them. */
	private writable(): Map<string, V | typeof GONE> {
		if (!SHARED.has(this.changes)) return this.changes;
		if (this.changes.size > 8 * Math.sqrt(this.base.size)) {
			const folded = new Map<string, V>();
			this.forEach((value, key) => folded.set(key, value));
			this.base = folded;
			this.changes = new Map();
		} else this.changes = new Map(this.changes);
		return this.changes;
	}
}
