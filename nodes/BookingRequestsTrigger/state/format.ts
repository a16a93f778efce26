/**
 * The trigger's state as n8n stores it (workflow static data): its shape and its checks. JSON-safe, no
 * API key, no id or contact in clear. codec.ts reads it into the memory the rules use and writes it
 * back; nothing else reads or writes this shape.
 *
 * Per window of a list (model/windows.ts):
 * - `floor`: every item at or below this timestamp has been handled;
 * - `done`: ids (hashed) handled ABOVE the floor: rows at the newest timestamps that a late commit
 *   could still join, and part of a tie group too large for one poll. Pruned as soon as the floor
 *   passes them, so its size does not grow with traffic;
 * - `tie`: set while a tie group larger than one poll is drained from its bottom up;
 * - `below`: where the floor sits in the list, counted from the end (stable when items are added at
 *   the top); `deeper` when only a bound is known (a search starts there).
 * Sessions also keep `checkpoints` ([server time, list length] of recent polls), the customers'
 * memories (hashed: customers.ts, seen.ts) and, while a backlog is drained, `held` (open drafts passed early).
 *
 * Versions: v1 (capped id lists) is read as no state (a new start); v2 (windows and the seen memory) is
 * read as v3 with empty customer memories; v3 adds the customer memories. Request Updated's records
 * gained an optional change chain (`~` + 6 characters) without a new version: older records read as
 * records without one.
 */
import { timestampMs } from '../../shared/utils';
import type { PackedDays } from './customers';
import { isPackedBooked, isPackedReminded } from './customers';
import type { PackedKeys } from './keySet';
import { isPackedCodes } from './keySet';
import type { UpdatesState } from '../events/requestUpdated/records';
import type { PackedSeen } from './seen';

export const STATE_VERSION = 3;

/** Key of the trigger's state inside the node's static data. */
export const STATE_KEY = 'bookingRequestsTrigger';

export interface WindowState {
	floor: number;
	done: PackedKeys;
	tie?: number;
	below?: number;
	deeper?: number;
}

export interface HeldState extends WindowState {
	codes: PackedKeys;
	topBelow?: number;
}

export interface SessionsState {
	completions: WindowState;
	horizon: WindowState;
	held?: HeldState;
	checkpoints: Array<[number, number]>;
	/** Sessions seen abandoned (hashed, by day). */
	seen: PackedSeen;
	/** Customers who booked; absent when empty. */
	booked?: PackedDays;
	/** Customers reported abandoned; absent when empty. */
	reminded?: PackedDays;
	/** Phone codes shared by many customers, by day; absent when empty. */
	shared?: PackedSeen;
}

export interface TriggerState {
	v: typeof STATE_VERSION;
	/** Fingerprint of what the state is about (form filter, Base URL). Another value: a new start. */
	fp: string;
	/** The API key that last polled, as its key id (a hash). */
	key?: string;
	/** A booking request id of the workspace (the newest read). */
	ref?: string;
	/** The events selected at the last poll (one letter each). */
	ev?: string;
	/** The Base URL, as a short hash. */
	bu?: string;
	since: number;
	polledAt: number;
	skewMs: number;
	sessions?: SessionsState;
	requests?: WindowState;
	updates?: UpdatesState;
}

/** Milliseconds of an API timestamp (ISO, or epoch ms); null when missing or unreadable. */
export const timeOf = timestampMs;

export function isShortText(value: unknown): value is string {
	return typeof value === 'string' && value.length > 0 && value.length <= 64;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const isMs = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

const isCount = (value: unknown) => value === undefined || (Number.isInteger(value) && (value as number) >= 0);

function readPacked(raw: unknown, keyIsValid: (key: string) => boolean, valueIsValid: (value: unknown) => value is string = isPackedCodes): Record<string, string> | undefined {
	if (!isRecord(raw)) return undefined;
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(raw)) {
		if (!keyIsValid(key) || !valueIsValid(value)) return undefined;
		out[key] = value;
	}
	return out;
}

const isMsKey = (key: string) => /^-?\d+$/.test(key) && Number.isSafeInteger(Number(key));
const isDayKey = isMsKey;

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

function readCheckpoints(raw: unknown): Array<[number, number]> | undefined {
	if (!Array.isArray(raw)) return undefined;
	const checkpoints: Array<[number, number]> = [];
	for (const entry of raw as unknown[]) {
		if (!Array.isArray(entry) || entry.length !== 2 || !isMs(entry[0]) || !Number.isInteger(entry[1]) || entry[1] < 0) return undefined;
		checkpoints.push([entry[0], entry[1] as number]);
	}
	return checkpoints;
}

/** The held drafts; null when present but malformed. */
function readHeld(raw: unknown): HeldState | undefined | null {
	if (raw === undefined) return undefined;
	const window = readWindow(raw);
	const codes = isRecord(raw) ? readPacked(raw.codes, isMsKey) : undefined;
	const topBelow = isRecord(raw) ? raw.topBelow : undefined;
	if (!window || !codes || !isCount(topBelow)) return null;
	return { ...window, codes, ...(topBelow !== undefined ? { topBelow: topBelow as number } : {}) };
}

export function readSessions(raw: unknown): SessionsState | undefined {
	if (!isRecord(raw)) return undefined;
	const completions = readWindow(raw.completions);
	const horizon = readWindow(raw.horizon);
	const seen = readPacked(raw.seen, isDayKey);
	const checkpoints = readCheckpoints(raw.checkpoints);
	const held = readHeld(raw.held);
	if (!completions || !horizon || !seen || !checkpoints || held === null) return undefined;
	const booked = raw.booked === undefined ? {} : readPacked(raw.booked, isDayKey, isPackedBooked);
	const reminded = raw.reminded === undefined ? {} : readPacked(raw.reminded, isDayKey, isPackedReminded);
	const shared = raw.shared === undefined ? {} : readPacked(raw.shared, isDayKey);
	if (!booked || !reminded || !shared) return undefined;
	return {
		completions,
		horizon,
		...(held ? { held } : {}),
		checkpoints,
		seen,
		...(Object.keys(booked).length > 0 ? { booked } : {}),
		...(Object.keys(reminded).length > 0 ? { reminded } : {}),
		...(Object.keys(shared).length > 0 ? { shared } : {}),
	};
}
