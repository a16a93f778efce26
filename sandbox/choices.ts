// Where the contract (shared/api) leaves the server a choice, the sandbox makes it through one of
// these settings. The default is the unkind choice the contract allows (what a client must survive);
// KIND_CHOICES gives the easy world for comparison. Every setting is a startSandbox option
// (`choices`), a control route (GET/POST /__sandbox/choices) and a CLI flag (cli.ts); the list with what
// the package does under each is in CONTRIBUTING.md ("Where the contract is silent").

import { Rng } from './rng';

export type ListName = 'requests' | 'sessions' | 'forms' | 'profiles';

export interface SandboxChoices {
	/**
	 * Where rows without a sort time go: sessions without `updated_at`, forms without `created_at`
	 * (after the default form). The contract does not say; PostgreSQL's descending order puts them first.
	 */
	nulls: 'first' | 'last';
	/**
	 * Order of rows with one sort time (the contract does not say): `id` by id descending; `fixed` an
	 * order unrelated to the ids, the same at every read; `reshuffled` drawn again whenever the
	 * workspace changes (the contract promises stable paging only while nothing arrives).
	 */
	ties: 'id' | 'fixed' | 'reshuffled';
	/**
	 * Rows committed late into an older millisecond: each new or saved row is stamped this many ms
	 * before it becomes visible (a constant or a [min, max] range drawn per write), so it can land
	 * below rows already read, and a booking request and its session can differ by that much. 0: every
	 * write is stamped when it is visible, strictly after the one before.
	 */
	commitLagMs: number | [number, number];
	/**
	 * The largest page each list answers. The contract fixes 100 for requests, sessions and forms (the
	 * default); it does not say for profiles (the sandbox answers at most 50). Lower values answer fewer
	 * items than asked, with that `per_page` in the pagination object.
	 */
	maxPerPage: Record<ListName, number>;
	/** A non-numeric `per_page` on profiles (not shown): `default` uses 25 as the other lists do; `error` answers 400 invalid_request. */
	profilesBadPerPage: 'default' | 'error';
	/**
	 * The answer to an invalid UUID in a path or a filter (not shown): 400 invalid_request, 404
	 * not_found (reads like a missing row) or 422 validation_error.
	 */
	invalidUuid: 400 | 404 | 422;
	/**
	 * `business_profile_id` on the session list ("not supported on this endpoint", not said how):
	 * `error` answers 400; `ignored` lists every session as if it had not been sent.
	 */
	unsupportedFilter: 'error' | 'ignored';
	/**
	 * The `Retry-After` of a 429 in whole seconds, or null to leave the header out. The contract says
	 * 1 for the rate limit (the default); injected 429s (faults) carry the same.
	 */
	retryAfterS: number | null;
	/**
	 * Values of the fields whose allowed values are not shown (request `status`, `lead_status`, a
	 * preferred time's `slot`, an intake response's `scope` and `type`, a profile's `source`) and the
	 * draft's keys (its shape "may change"): `examples` only the contract's examples and common words;
	 * `open` also values no document names, on some rows, and drafts with keys not seen before.
	 */
	values: 'examples' | 'open';
	/**
	 * Whether completing a booking moves the session's `updated_at` (the contract says only that
	 * `request_id` is set and the session stays in the list). The trigger assumes it does.
	 */
	completionTouchesSession: boolean;
}

/** The defaults: the unkind choices within the contract (and within what the package documents it assumes). */
export const DEFAULT_CHOICES: SandboxChoices = {
	nulls: 'first',
	ties: 'fixed',
	commitLagMs: [0, 2_000],
	maxPerPage: { requests: 100, sessions: 100, forms: 100, profiles: 50 },
	profilesBadPerPage: 'error',
	invalidUuid: 404,
	unsupportedFilter: 'ignored',
	retryAfterS: 1,
	values: 'open',
	completionTouchesSession: true,
};

/** The kind world: nulls last, ties by id, no late commits, the most every list allows, 400 for bad input, the contract's examples only. */
export const KIND_CHOICES: SandboxChoices = {
	nulls: 'last',
	ties: 'id',
	commitLagMs: 0,
	maxPerPage: { requests: 100, sessions: 100, forms: 100, profiles: 100 },
	profilesBadPerPage: 'default',
	invalidUuid: 400,
	unsupportedFilter: 'error',
	retryAfterS: 1,
	values: 'examples',
	completionTouchesSession: true,
};

export type ChoicesInput = Partial<Omit<SandboxChoices, 'maxPerPage'>> & { maxPerPage?: Partial<Record<ListName, number>> | number };

const LISTS: ListName[] = ['requests', 'sessions', 'forms', 'profiles'];

function oneOf<T>(name: string, value: unknown, allowed: readonly T[]): T {
	if (!allowed.includes(value as T)) throw new Error(`choices.${name} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`);
	return value as T;
}

function lagOf(value: unknown): number | [number, number] {
	const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
	if (ok(value)) return value;
	if (Array.isArray(value) && value.length === 2 && ok(value[0]) && ok(value[1]) && value[0] <= value[1]) return [value[0], value[1]];
	throw new Error('choices.commitLagMs must be ms >= 0 or [min, max] with 0 <= min <= max');
}

function perPageOf(value: unknown, base: Record<ListName, number>): Record<ListName, number> {
	const whole = (n: unknown, name: string): number => {
		if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new Error(`choices.maxPerPage${name} must be a whole number >= 1`);
		return n;
	};
	if (typeof value === 'number') return Object.fromEntries(LISTS.map((list) => [list, whole(value, '')])) as Record<ListName, number>;
	if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('choices.maxPerPage must be a number or { requests?, sessions?, forms?, profiles? }');
	const out = { ...base };
	for (const [list, n] of Object.entries(value)) {
		if (!LISTS.includes(list as ListName)) throw new Error(`choices.maxPerPage: unknown list ${list} (${LISTS.join(', ')})`);
		out[list as ListName] = whole(n, `.${list}`);
	}
	return out;
}

/** `base` with `input` applied; throws on an unknown name or value (a misspelt setting is never ignored). */
export function applyChoices(base: SandboxChoices, input: unknown): SandboxChoices {
	if (input === null || typeof input !== 'object' || Array.isArray(input)) throw new Error('choices must be an object');
	const out: SandboxChoices = { ...base, maxPerPage: { ...base.maxPerPage } };
	for (const [name, value] of Object.entries(input as Record<string, unknown>)) {
		if (value === undefined) continue;
		switch (name) {
			case 'nulls':
				out.nulls = oneOf(name, value, ['first', 'last'] as const);
				break;
			case 'ties':
				out.ties = oneOf(name, value, ['id', 'fixed', 'reshuffled'] as const);
				break;
			case 'commitLagMs':
				out.commitLagMs = lagOf(value);
				break;
			case 'maxPerPage':
				out.maxPerPage = perPageOf(value, out.maxPerPage);
				break;
			case 'profilesBadPerPage':
				out.profilesBadPerPage = oneOf(name, value, ['default', 'error'] as const);
				break;
			case 'invalidUuid':
				out.invalidUuid = oneOf(name, value, [400, 404, 422] as const);
				break;
			case 'unsupportedFilter':
				out.unsupportedFilter = oneOf(name, value, ['error', 'ignored'] as const);
				break;
			case 'retryAfterS':
				if (value !== null && (typeof value !== 'number' || !Number.isInteger(value) || value < 0)) throw new Error('choices.retryAfterS must be whole seconds >= 0 or null');
				out.retryAfterS = value;
				break;
			case 'values':
				out.values = oneOf(name, value, ['examples', 'open'] as const);
				break;
			case 'completionTouchesSession':
				out.completionTouchesSession = oneOf(name, value, [true, false] as const);
				break;
			default:
				throw new Error(`choices: unknown setting ${name} (${Object.keys(DEFAULT_CHOICES).join(', ')})`);
		}
	}
	return out;
}

/** How a list orders its rows: the two order choices, and the workspace's version for `reshuffled` ties. */
export interface ListOrder {
	nulls: SandboxChoices['nulls'];
	ties: SandboxChoices['ties'];
	/** Changes whenever the workspace does (reshuffled ties follow it). */
	version?: number;
}

/** FNV-1a of a string: the tie key of a row (unrelated to the id's own order). */
function fnv(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h;
}

/** Compares two rows that have one sort time, as `order.ties` says. */
export function tieOrder(order: ListOrder): (a: { id: string }, b: { id: string }) => number {
	const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
	if (order.ties === 'id') return byId;
	const salt = order.ties === 'reshuffled' ? `:${order.version ?? 0}` : '';
	return (a, b) => fnv(a.id + salt) - fnv(b.id + salt) || byId(a, b);
}

/** Descending on ISO timestamps (they sort as strings), nulls where `order.nulls` says. */
export function descending(order: ListOrder): (a: string | null, b: string | null) => number {
	const nullSide = order.nulls === 'first' ? -1 : 1;
	return (a, b) => {
		if (a === b) return 0;
		if (a === null) return nullSide;
		if (b === null) return -nullSide;
		return a < b ? 1 : -1;
	};
}

/** The lag of each write (choices.commitLagMs), drawn from its own seeded stream so the data's draws do not move. */
export class CommitLag {
	private rng: Rng;
	constructor(
		private readonly seed: number,
		private lag: number | [number, number],
	) {
		this.rng = new Rng((seed ^ 0x27d4eb2f) >>> 0);
	}
	set(lag: number | [number, number]): void {
		this.lag = lag;
		this.rng = new Rng((this.seed ^ 0x27d4eb2f) >>> 0);
	}
	/** Whether writes are stamped when they become visible (no lag at all). */
	get none(): boolean {
		return Array.isArray(this.lag) ? this.lag[1] === 0 : this.lag === 0;
	}
	next(): number {
		if (!Array.isArray(this.lag)) return this.lag;
		const [min, max] = this.lag;
		return min + Math.floor(this.rng.float() * (max - min + 1));
	}
}
