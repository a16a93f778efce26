/**
 * A window as the state stores it (JSON-safe, ids hashed):
 * - `floor`: every item at or below this timestamp has been handled;
 * - `done`: ids (hashed) handled ABOVE the floor: rows at the newest timestamps that a late commit
 *   could still join, and part of a tie group too large for one poll. Pruned as soon as the floor
 *   passes them, so its size does not grow with traffic;
 * - `tie`: set while a tie group larger than one poll is drained from its bottom up;
 * - `below`: where the floor sits in the list, counted from the end (stable when items are added at
 *   the top); `deeper` when only a bound is known (a search starts there).
 */
import { KeySet } from '../state/keySet';
import { isCount, isMs, isMsKey, isRecord, readPacked } from '../state/checks';
import type { WindowMemory, WindowState } from './window';

/** A stored window, checked; undefined when malformed. */
export function readWindow(raw: unknown): WindowState | undefined {
	if (!isRecord(raw) || !isMs(raw.floor)) return undefined;
	const done = readPacked(raw.done, isMsKey);
	if (!done) return undefined;
	if (raw.tie !== undefined && !isMs(raw.tie)) return undefined;
	if (!isCount(raw.below) || !isCount(raw.deeper)) return undefined;
	return {
		floor: raw.floor,
		done,
		...(raw.tie !== undefined ? { tie: raw.tie as number } : {}),
		...(raw.below !== undefined ? { below: raw.below as number } : {}),
		...(raw.deeper !== undefined ? { deeper: raw.deeper as number } : {}),
	};
}

export function decodeWindow(state: WindowState): WindowMemory {
	const { done, ...rest } = state;
	return { ...rest, done: KeySet.decode(done) };
}

export function encodeWindow(memory: WindowMemory): WindowState {
	const { floor, done, tie, below, deeper } = memory;
	return { floor, done: done.encode(), ...(tie !== undefined ? { tie } : {}), ...(below !== undefined ? { below } : {}), ...(deeper !== undefined ? { deeper } : {}) };
}

/** A window that starts at `floor` with nothing handled above it. */
export function startAt(floor: number): WindowState {
	return { floor, done: {} };
}
