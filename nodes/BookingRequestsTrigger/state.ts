/**
 * The trigger's memory between polls: its shape, its bounds, and how it is read back from workflow
 * static data. Everything here is pure and JSON-safe (n8n stores static data as JSON).
 *
 * Times are milliseconds on the API server's clock (timestamps it wrote, and its `Date` header), never
 * n8n's clock, so clock skew between n8n and the API cannot make the trigger fire early or never.
 */

export const STATE_VERSION = 1;

/** Key of the trigger's state inside the node's static data. */
export const STATE_KEY = 'bookingRequestsTrigger';

/**
 * Items whose timestamp lies within this window below the cursor are read again on the next poll
 * and recognised by their remembered keys (`edge`). It covers ties at the boundary timestamp and
 * rows the server commits a moment after a later timestamp was already listed.
 */
export const EDGE_WINDOW_MS = 5_000;

/** A timestamp further than this ahead of the server's clock is not trusted to move a cursor. */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** Bounds of the remembered ids (see README "State"). */
export const LIMITS = {
	/** Keys at the cursor boundary, per list. Normally a handful. */
	edge: 500,
	/** Sessions watched until they have been idle for the delay. */
	pending: 2_000,
	/** Sessions seen abandoned: for once-only delivery, re-abandon and "Only Recovered". */
	abandoned: 2_000,
	/** Completed sessions already reported: a completed session listed again is not reported twice. */
	completed: 1_000,
} as const;

export const RETENTION_MS = {
	/** A session seen abandoned is remembered this long after it was seen abandoned. */
	abandoned: 30 * 86_400_000,
	/** A completed session is remembered this long after it was last listed. */
	completed: 7 * 86_400_000,
} as const;

/** Cursor over one list: everything at or below `cursor` (minus the edge window) has been processed. */
export interface ListCursor {
	/** Highest timestamp processed (ms, server clock); null = nothing listed yet, everything is new. */
	cursor: number | null;
	/** `id@ms` of the items listed with a timestamp >= cursor - EDGE_WINDOW_MS (already processed). */
	edge: string[];
}

export interface SessionsState extends ListCursor {
	/** Sessions with request_id null, not idle for the delay yet: id -> activity time (ms). */
	pending: Record<string, number>;
	/** Sessions this trigger saw abandoned: id -> [activity time of that version, server time it was seen abandoned]. */
	abandoned: Record<string, [number, number]>;
	/** Completed sessions already handled: id -> server time last listed. */
	completed: Record<string, number>;
}

export interface TriggerState {
	v: typeof STATE_VERSION;
	/** Fingerprint of what the state is about (events, form filter, API target). Another value: reset. */
	fp: string;
	/** Server time of the baseline (first activation or last reset). */
	since: number;
	/** Server time of the last poll that produced this state. */
	polledAt: number;
	/** Server clock minus n8n's clock at the last poll with a `Date` header (fallback for "now"). */
	skewMs: number;
	sessions?: SessionsState;
	requests?: ListCursor;
}

/** Milliseconds of an ISO timestamp (epoch milliseconds are accepted too); null when missing or unreadable. */
export function timeOf(value: unknown): number | null {
	if (typeof value === 'number') return Number.isFinite(value) ? value : null;
	if (typeof value !== 'string' || value === '') return null;
	const ms = Date.parse(value);
	return Number.isFinite(ms) ? ms : null;
}

export function edgeKey(id: string, ms: number): string {
	return `${id}@${ms}`;
}

function edgeKeyTime(key: string): number {
	const at = key.lastIndexOf('@');
	return at < 0 ? NaN : Number(key.slice(at + 1));
}

/**
 * Keeps the edge keys at or above `cursor - EDGE_WINDOW_MS`; when there are more than the bound, the
 * newest are kept (an older key lost only means an item near the boundary is looked at again, which
 * every rule of the diff tolerates except a repeated request, and that needs > 500 rows in 5 s).
 */
export function pruneEdge(keys: Iterable<string>, cursor: number | null): string[] {
	const floor = cursor === null ? -Infinity : cursor - EDGE_WINDOW_MS;
	const kept = [...new Set(keys)].filter((key) => edgeKeyTime(key) >= floor);
	if (kept.length <= LIMITS.edge) return kept;
	return kept.sort((a, b) => edgeKeyTime(b) - edgeKeyTime(a)).slice(0, LIMITS.edge);
}

/** Keeps the `limit` entries with the highest rank. */
function capBy<V>(record: Record<string, V>, limit: number, rank: (value: V) => number): Record<string, V> {
	const entries = Object.entries(record);
	if (entries.length <= limit) return record;
	entries.sort((a, b) => rank(b[1]) - rank(a[1]));
	return Object.fromEntries(entries.slice(0, limit));
}

/** Applies the retention times and caps. Pure: returns new records. */
export function pruneSessions(state: SessionsState, now: number): SessionsState {
	const abandoned: SessionsState['abandoned'] = {};
	for (const [id, entry] of Object.entries(state.abandoned)) {
		if (entry[1] >= now - RETENTION_MS.abandoned) abandoned[id] = entry;
	}
	const completed: SessionsState['completed'] = {};
	for (const [id, seenAt] of Object.entries(state.completed)) {
		if (seenAt >= now - RETENTION_MS.completed) completed[id] = seenAt;
	}
	return {
		cursor: state.cursor,
		edge: pruneEdge(state.edge, state.cursor),
		// Over the bound (thousands of customers active within one delay), the most recent activity wins.
		pending: capBy(state.pending, LIMITS.pending, (at) => at),
		abandoned: capBy(abandoned, LIMITS.abandoned, (entry) => entry[1]),
		completed: capBy(completed, LIMITS.completed, (at) => at),
	};
}

// ---------------------------------------------------------------------------------------------
// Reading a stored state back. Static data may come from an older version of the package, be
// hand-edited, or be partly written: anything that does not validate is treated as absent (a new
// baseline), never as a reason to fail every poll.

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isMs = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function readCursor(raw: unknown): ListCursor | undefined {
	if (!isRecord(raw)) return undefined;
	if (!(raw.cursor === null || isMs(raw.cursor))) return undefined;
	if (!Array.isArray(raw.edge) || !raw.edge.every((key) => typeof key === 'string')) return undefined;
	return { cursor: raw.cursor, edge: [...(raw.edge as string[])] };
}

function readNumberRecord(raw: unknown): Record<string, number> | undefined {
	if (!isRecord(raw)) return undefined;
	const out: Record<string, number> = {};
	for (const [key, value] of Object.entries(raw)) {
		if (!isMs(value)) return undefined;
		out[key] = value;
	}
	return out;
}

function readSessions(raw: unknown): SessionsState | undefined {
	const cursor = readCursor(raw);
	if (!cursor || !isRecord(raw)) return undefined;
	const pending = readNumberRecord(raw.pending);
	const completed = readNumberRecord(raw.completed);
	if (!pending || !completed || !isRecord(raw.abandoned)) return undefined;
	const abandoned: SessionsState['abandoned'] = {};
	for (const [id, entry] of Object.entries(raw.abandoned)) {
		if (!Array.isArray(entry) || entry.length !== 2 || !isMs(entry[0]) || !isMs(entry[1])) return undefined;
		abandoned[id] = [entry[0], entry[1]];
	}
	return { ...cursor, pending, abandoned, completed };
}

/**
 * The stored state if it is valid and about the same thing (`fingerprint`); otherwise undefined,
 * which makes the next poll take a new baseline. The result is a fresh copy (plain objects, not
 * n8n's observable proxies), so nothing done with it changes the static data.
 */
export function readState(raw: unknown, fingerprint: string, lists: { sessions: boolean; requests: boolean }): TriggerState | undefined {
	if (!isRecord(raw) || raw.v !== STATE_VERSION || raw.fp !== fingerprint) return undefined;
	if (!isMs(raw.since) || !isMs(raw.polledAt) || !isMs(raw.skewMs)) return undefined;
	const sessions = raw.sessions === undefined ? undefined : readSessions(raw.sessions);
	const requests = raw.requests === undefined ? undefined : readCursor(raw.requests);
	if ((raw.sessions !== undefined && !sessions) || (raw.requests !== undefined && !requests)) return undefined;
	// The fingerprint covers the events, so this only fails for a state written inconsistently.
	if (lists.sessions !== (sessions !== undefined) || lists.requests !== (requests !== undefined)) return undefined;
	return {
		v: STATE_VERSION,
		fp: raw.fp,
		since: raw.since,
		polledAt: raw.polledAt,
		skewMs: raw.skewMs,
		...(sessions ? { sessions } : {}),
		...(requests ? { requests } : {}),
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
