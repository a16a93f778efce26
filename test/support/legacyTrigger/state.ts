/**
 * The trigger's memory between polls: its shape and how it is read back from workflow static data.
 * Pure and JSON-safe (n8n stores static data as JSON). No API key, no id in clear.
 *
 * Times are milliseconds on the API server's clock (timestamps it wrote, and its `Date` header), never
 * n8n's clock, so clock skew between n8n and the API cannot make the trigger fire early or never.
 *
 * What is remembered (docs/how-it-works.md), per window of a list (windows.ts):
 * - `floor`: every item at or below this timestamp has been handled;
 * - `done`: ids (hashed, memory.ts) handled ABOVE the floor: rows at the newest timestamps that a late
 *   commit could still join, and part of a tie group too large for one poll. Pruned as soon as the
 *   floor passes them, so its size does not grow with traffic;
 * - `tie`: set while a tie group larger than one poll is drained from its bottom up;
 * - `below`: where the floor sits in the list, counted from the end (stable when items are added at
 *   the top), to find a window deep in the list without reading everything above it; `deeper` when
 *   only a bound is known (a search starts there).
 * Sessions also keep `checkpoints` ([server time, list length] of recent polls) to find the top of the
 * abandonment window, `seen` (sessions seen abandoned, bounded: memory.ts) and, while a backlog is
 * drained, `held` (open drafts the horizon passed before their event time, hashed: diff.ts).
 */
import { timestampMs } from '../../../nodes/shared/utils';
import type { PackedDays } from './customers';
import { isPackedBooked, isPackedReminded } from './customers';
import type { PackedKeys, PackedSeen } from './memory';
import { isPackedCodes } from './memory';
import type { UpdatesState } from './updates/records';
import { isUpdatesState } from './updates/records';

/**
 * v1: capped pending/abandoned/completed id lists (read back as "no state": a new baseline).
 * v2: windows and the seen memory; read back as v3 with empty customer memories (no new baseline).
 * v3: + the customer memories (customers.ts).
 */
export const STATE_VERSION = 3;

/** Key of the trigger's state inside the node's static data. */
export const STATE_KEY = 'bookingRequestsTrigger';

/**
 * A row can become visible up to this long after the timestamp the server gave it (a late commit):
 * the newest rows are remembered by id until the server's clock is this far past them.
 */
export const EDGE_WINDOW_MS = 5_000;

/** Checkpoints kept for the sessions list (thinned evenly beyond this). */
export const MAX_CHECKPOINTS = 48;

export interface WindowState {
	floor: number;
	done: PackedKeys;
	tie?: number;
	below?: number;
	/** When `below` is not known: the floor lies at most this far from the end (a search starts there). */
	deeper?: number;
}

export interface HeldState extends WindowState {
	codes: PackedKeys;
	/** Sessions at or below the newest held one, counted from the end (where its pages start). */
	topBelow?: number;
}

export interface SessionsState {
	/** Completed sessions (and placeholder sessions): by `updated_at`, from the top of the list. */
	completions: WindowState;
	/** Sessions crossing the abandonment horizon (now − delay): by `updated_at`, deep in the list. */
	horizon: WindowState;
	/**
	 * Open sessions the horizon's floor moved past before their event time (diff.ts `holdFurther`):
	 * judged on a fresh read of their pages when every window has reached their event time. `codes`:
	 * their hashed ids by `updated_at`; the window's floor lies below the oldest. Absent when none.
	 */
	held?: HeldState;
	/** [server time, list length] at recent polls: every session at or before that time is at most that far from the end. */
	checkpoints: Array<[number, number]>;
	/** Sessions seen abandoned (hashed, by day). */
	seen: PackedSeen;
	/** Customers who booked (hashed keys, by day: customers.ts BookedMemory); absent when empty. */
	booked?: PackedDays;
	/** Customers reported abandoned (customers.ts RemindedMemory); absent when empty. */
	reminded?: PackedDays;
	/** Phone codes shared by many customers (customers.ts sharedPhoneCodes), by day; absent when empty. */
	shared?: PackedSeen;
}

export interface TriggerState {
	v: typeof STATE_VERSION;
	/** Fingerprint of what the state is about (events, form filter, Base URL). Another value: reset. */
	fp: string;
	/**
	 * The API key that last polled, as its key id (a hash: shared/transport/keyId.ts). Another key of
	 * the same workspace continues the state (workspace.ts); absent in states of older versions.
	 */
	key?: string;
	/** A booking request id of the workspace (the newest read), to tell whether a new key reads the same one. */
	ref?: string;
	/**
	 * The events selected at the last poll (one letter each: EVENT_LETTERS). Changing the events keeps
	 * the state: an event added starts from the last poll (what happened since is reported once).
	 */
	ev?: string;
	/** The Base URL the state is about, as a short hash: a Form change keeps the customer memories of the same API. */
	bu?: string;
	/** Server time of the baseline (first activation or last reset). */
	since: number;
	/** Server time of the last poll that produced this state. */
	polledAt: number;
	/** Server clock minus n8n's clock at the last poll with a `Date` header (fallback for "now"). */
	skewMs: number;
	sessions?: SessionsState;
	requests?: WindowState;
	/** Request Updated: the watched requests as last read (updates/records.ts); absent when not selected. */
	updates?: UpdatesState;
}

/** Milliseconds of an API timestamp (ISO, or epoch ms); null when missing or unreadable. */
export const timeOf = timestampMs;

// ---------------------------------------------------------------------------------------------
// Reading a stored state back. Static data may come from an older version of the package, be
// hand-edited, or be partly written: anything that does not validate is treated as absent (a new
// baseline), never as a reason to fail every poll.

/**
 * The customer memories of a stored state that `readState` refused only because it is about another
 * Form (issue 29): same Base URL (`bu`) and the same key. Who booked, who was reminded and which
 * sessions were seen abandoned are about customers, whatever form they used.
 */
export function carriedCustomerMemories(
	raw: unknown,
	fingerprint: string,
	lists: { sessions: boolean; requests: boolean; updates?: boolean },
	selection: { events: string; abandonedAfterMs: number },
	about: { baseUrl: string; key: string },
): Pick<SessionsState, 'booked' | 'reminded' | 'seen' | 'shared'> | undefined {
	if (!lists.sessions || !isRecord(raw) || raw.bu !== about.baseUrl || raw.key !== about.key || raw.sessions === undefined) return undefined;
	const sessions = readState({ ...raw, fp: fingerprint }, fingerprint, lists, undefined, selection)?.sessions;
	if (!sessions) return undefined;
	return {
		seen: sessions.seen,
		...(sessions.booked ? { booked: sessions.booked } : {}),
		...(sessions.reminded ? { reminded: sessions.reminded } : {}),
		...(sessions.shared ? { shared: sessions.shared } : {}),
	};
}

/** The letters of the events in the state's `ev`. */
export const EVENT_LETTERS = { sessionAbandoned: 'a', sessionCompleted: 'c', requestCreated: 'n', requestUpdated: 'u' } as const;

function isShortText(value: unknown): value is string {
	return typeof value === 'string' && value.length > 0 && value.length <= 64;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isMs = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function readPacked(
	raw: unknown,
	keyIsValid: (key: string) => boolean,
	valueIsValid: (value: unknown) => value is string = isPackedCodes,
): Record<string, string> | undefined {
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

function readWindow(raw: unknown): WindowState | undefined {
	if (!isRecord(raw) || !isMs(raw.floor)) return undefined;
	const done = readPacked(raw.done, isMsKey);
	if (!done) return undefined;
	if (raw.tie !== undefined && !isMs(raw.tie)) return undefined;
	const count = (value: unknown) => value === undefined || (Number.isInteger(value) && (value as number) >= 0);
	if (!count(raw.below) || !count(raw.deeper)) return undefined;
	return {
		floor: raw.floor,
		done,
		...(raw.tie !== undefined ? { tie: raw.tie as number } : {}),
		...(raw.below !== undefined ? { below: raw.below as number } : {}),
		...(raw.deeper !== undefined ? { deeper: raw.deeper as number } : {}),
	};
}

function readSessions(raw: unknown): SessionsState | undefined {
	if (!isRecord(raw)) return undefined;
	const completions = readWindow(raw.completions);
	const horizon = readWindow(raw.horizon);
	const seen = readPacked(raw.seen, isDayKey);
	if (!completions || !horizon || !seen || !Array.isArray(raw.checkpoints)) return undefined;
	const checkpoints: Array<[number, number]> = [];
	for (const entry of raw.checkpoints as unknown[]) {
		if (!Array.isArray(entry) || entry.length !== 2 || !isMs(entry[0]) || !Number.isInteger(entry[1]) || entry[1] < 0) return undefined;
		checkpoints.push([entry[0], entry[1] as number]);
	}
	let held: HeldState | undefined;
	if (raw.held !== undefined) {
		const window = readWindow(raw.held);
		const codes = isRecord(raw.held) ? readPacked(raw.held.codes, isMsKey) : undefined;
		const topBelow = isRecord(raw.held) ? raw.held.topBelow : undefined;
		if (!window || !codes || (topBelow !== undefined && !(Number.isInteger(topBelow) && (topBelow as number) >= 0))) return undefined;
		held = { ...window, codes, ...(topBelow !== undefined ? { topBelow: topBelow as number } : {}) };
	}
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

/**
 * The stored state if it is valid and about the same thing (`fingerprint`); otherwise undefined,
 * which makes the next poll take a new baseline. The result is a fresh copy (plain objects, not
 * n8n's observable proxies), so nothing done with it changes the static data.
 *
 * A v2 state (before the customer memories) is read as v3 with them empty. The request list is read
 * for more than New Request now (Skip Customers Who Booked, recovery by customer): a state without a
 * requests window gets one starting at its last poll (requests created since are read), and a window
 * no longer needed is dropped, so switching those options never takes a new baseline.
 */
export function readState(
	raw: unknown,
	fingerprint: string,
	lists: { sessions: boolean; requests: boolean; updates?: boolean },
	/** The fingerprint older versions wrote (it covered the key and the events): read as this one, by that key. */
	legacy?: { fingerprint: string; key: string },
	/** The events selected now (letters) and Abandoned After: what an added event starts from. */
	selection?: { events: string; abandonedAfterMs: number },
): TriggerState | undefined {
	if (!isRecord(raw) || (raw.v !== STATE_VERSION && raw.v !== 2)) return undefined;
	const fromLegacy = legacy !== undefined && raw.fp === legacy.fingerprint;
	if (raw.fp !== fingerprint && !fromLegacy) return undefined;
	const key = fromLegacy ? legacy.key : isShortText(raw.key) ? raw.key : undefined;
	const ref = isShortText(raw.ref) ? raw.ref : undefined;
	if (!isMs(raw.since) || !isMs(raw.polledAt) || !isMs(raw.skewMs)) return undefined;
	let sessions = raw.sessions === undefined ? undefined : readSessions(raw.sessions);
	let requests = raw.requests === undefined ? undefined : readWindow(raw.requests);
	if ((raw.sessions !== undefined && !sessions) || (raw.requests !== undefined && !requests)) return undefined;
	const before = typeof raw.ev === 'string' ? raw.ev : selection?.events;
	const added = (letter: string) => selection !== undefined && selection.events.includes(letter) && !(before ?? '').includes(letter);
	if (lists.sessions && !sessions) {
		// Session events added to a trigger that read only requests: from the last poll, as if it had watched.
		if (!selection) return undefined;
		sessions = { completions: { floor: raw.polledAt, done: {} }, horizon: { floor: raw.polledAt - selection.abandonedAfterMs, done: {} }, checkpoints: [], seen: {} };
	} else if (sessions && added(EVENT_LETTERS.sessionCompleted)) {
		// Session Completed added: its window was not kept up to date while it was off.
		sessions = { ...sessions, completions: { floor: raw.polledAt, done: {} } };
	}
	// No session event left: the session windows and the customer memories go.
	if (!lists.sessions) sessions = undefined;
	if (lists.requests && !requests) requests = { floor: raw.polledAt, done: {} };
	if (!lists.requests) requests = undefined;
	// Request Updated's records: dropped when it is not selected; a malformed copy starts them afresh
	// (its next poll only remembers), without a new baseline for the other events.
	const kept = lists.updates === true && isUpdatesState(raw.updates) ? raw.updates : undefined;
	const updates: UpdatesState | undefined = kept && {
		from: kept.from,
		...(kept.cursor !== undefined ? { cursor: kept.cursor } : {}),
		values: [...kept.values],
		records: kept.records,
	};
	return {
		v: STATE_VERSION,
		fp: fingerprint,
		...(key !== undefined ? { key } : {}),
		...(ref !== undefined ? { ref } : {}),
		...(selection ? { ev: selection.events } : {}),
		since: raw.since,
		polledAt: raw.polledAt,
		skewMs: raw.skewMs,
		...(sessions ? { sessions } : {}),
		...(requests ? { requests } : {}),
		...(updates ? { updates } : {}),
	};
}

/**
 * "Now" on the API server's clock: its `Date` header when it sent one (1 s resolution, so at most one
 * second late, never early); otherwise n8n's clock corrected by the skew measured at an earlier poll.
 */
export function serverNow(serverDate: number | undefined, localNow: number, previousSkewMs: number | undefined): number {
	if (serverDate !== undefined && Number.isFinite(serverDate)) return serverDate;
	return localNow + (previousSkewMs ?? 0);
}

/**
 * Keeps the checkpoints needed to place timestamps at or above `floor` (those after it, and the newest
 * one at or before it), at most MAX_CHECKPOINTS: beyond that, the one whose removal leaves the
 * smallest gap goes, so they stay spread over the window.
 */
export function pruneCheckpoints(checkpoints: Array<[number, number]>, floor: number): Array<[number, number]> {
	const sorted = [...checkpoints].sort((a, b) => a[0] - b[0]);
	let first = 0;
	for (let i = 0; i < sorted.length; i++) if (sorted[i][0] <= floor) first = i;
	const kept = sorted.slice(first);
	while (kept.length > MAX_CHECKPOINTS) {
		let best = 1;
		for (let i = 2; i < kept.length - 1; i++) {
			if (kept[i + 1][0] - kept[i - 1][0] < kept[best + 1][0] - kept[best - 1][0]) best = i;
		}
		kept.splice(best, 1);
	}
	return kept;
}
