/**
 * A memo of a pure function of a string for this process, so that a poll does not compute again what
 * it or the poll before computed from the same text (a timestamp parsed: a quiet poll reads the same
 * rows as the poll before it).
 *
 * Bounded: two generations of at most `limit` entries each; a full generation becomes the old one and
 * the one before it is dropped, so what the recent polls used stays (found in the old generation, it
 * moves to the new one) and the memo never holds more than 2 × `limit`. Its keys stay in this
 * process's memory only.
 *
 * Keyed by the string itself, never by a row object: the rows of a page are the caller's, and a value
 * computed from a row must not outlive a change to it.
 *
 * Worth it only for a value a poll asks for several times: the memo is shared by every trigger in the
 * process, and when an agency's clients read more keys than it holds, a miss (a lookup, the computation,
 * an insert: about 1 µs) costs twice a direct Date.parse, SHA-256 of an id or phone normalised (0.4 to
 * 0.6 µs), a hit a third of one. A timestamp is placed by several windows in a poll; an id's code and a
 * booking's phone are worked out once a poll, so they are not memoised.
 */

export function boundedMemo<V>(compute: (key: string) => V, limit: number): (key: string) => V {
	let current = new Map<string, V>();
	let old = new Map<string, V>();
	return (key) => {
		let value = current.get(key);
		if (value !== undefined || current.has(key)) return value as V;
		value = old.has(key) ? (old.get(key) as V) : compute(key);
		if (current.size >= limit) {
			old = current;
			current = new Map();
		}
		current.set(key, value);
		return value;
	};
}
