// Fault injection. Faults are decided per API request after authentication and the rate limiter
// (a 401 or a real 429 is never replaced by a fault), in this order of precedence:
//   always (429|500) > dropEvery > every429 > every500
// The every-N counters count the API requests that reach this point (passed auth and the limiter)
// and restart at every setFaults(). `latencyMs` here is an ANSWER delay: added after the rate check,
// before answering any API request (the server is slow). The network latency seen before the rate
// check (the request is on its way) is the sandbox's own `latencyMs` option (server.ts, NetworkLatency).
// `malformed` applies to successful list responses only (every Nth of them with malformedEvery).

import { Rng } from './rng';
import type { FaultOptions, MalformedKind } from './types';

export const MALFORMED_KINDS: MalformedKind[] = [
	'html',
	'truncated',
	'noItems',
	'wrongTotal',
	'missingTotal',
	'oversizedPage',
	'duplicateIds',
	'wrongTypes',
	'errorBody200',
];

export type RequestFault = 'always429' | 'always500' | 'drop' | 'every429' | 'every500';

function positiveInt(name: string, v: unknown): number | undefined {
	if (v === undefined || v === null) return undefined;
	if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new Error(`faults.${name} must be a positive integer`);
	return v;
}

/** Validates and normalises fault options (throws on invalid input). */
export function normaliseFaults(f: FaultOptions): FaultOptions {
	if (f === null || typeof f !== 'object') throw new Error('faults must be an object');
	const out: FaultOptions = {};
	const every429 = positiveInt('every429', f.every429);
	const every500 = positiveInt('every500', f.every500);
	const dropEvery = positiveInt('dropEvery', f.dropEvery);
	const malformedEvery = positiveInt('malformedEvery', f.malformedEvery);
	if (every429) out.every429 = every429;
	if (every500) out.every500 = every500;
	if (dropEvery) out.dropEvery = dropEvery;
	if (malformedEvery) out.malformedEvery = malformedEvery;
	if (f.churnSessionsPerPage !== undefined && f.churnSessionsPerPage !== null) {
		const n = f.churnSessionsPerPage;
		if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw new Error('faults.churnSessionsPerPage must be an integer >= 0');
		if (n > 0) out.churnSessionsPerPage = n;
	}
	if (f.latencyMs !== undefined && f.latencyMs !== null) {
		const l = f.latencyMs;
		if (!Array.isArray(l) || l.length !== 2 || !l.every((x) => typeof x === 'number' && x >= 0) || l[0] > l[1]) {
			throw new Error('faults.latencyMs must be [min, max] with 0 <= min <= max');
		}
		out.latencyMs = [l[0], l[1]];
	}
	if (f.malformed !== undefined && f.malformed !== null) {
		if (!MALFORMED_KINDS.includes(f.malformed)) throw new Error(`faults.malformed must be one of ${MALFORMED_KINDS.join(', ')}`);
		out.malformed = f.malformed;
	}
	if (f.always !== undefined && f.always !== null) {
		if (f.always !== 429 && f.always !== 500) throw new Error('faults.always must be 429 or 500');
		out.always = f.always;
	}
	return out;
}

/**
 * A network latency as given to the sandbox: a constant (ms), a range [min, max] (uniform, whole ms),
 * or null/0 for none. Normalised to [min, max] or null; throws on invalid input.
 */
export function normaliseLatency(value: unknown): [number, number] | null {
	if (value === undefined || value === null) return null;
	if (typeof value === 'number') {
		if (!Number.isFinite(value) || value < 0) throw new Error('latencyMs must be a number >= 0 or [min, max]');
		return value === 0 ? null : [value, value];
	}
	if (!Array.isArray(value) || value.length !== 2 || !value.every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0) || value[0] > value[1]) {
		throw new Error('latencyMs must be a number >= 0 or [min, max] with 0 <= min <= max');
	}
	return value[1] === 0 ? null : [value[0], value[1]];
}

/**
 * Draws delays from a latency range with the sandbox's seeded generator (reproducible per seed). Each
 * `set` starts the draws again from the seed, so two runs that each begin with the same setLatency see
 * the same sequence of delays: the bench compares two nodes on one jittery route this way.
 */
export class NetworkLatency {
	private range: [number, number] | null;
	private rng: Rng;

	constructor(
		private readonly seed: number,
		initial: unknown,
	) {
		this.rng = NetworkLatency.generator(seed);
		this.range = normaliseLatency(initial);
	}

	private static generator(seed: number): Rng {
		return new Rng((seed ^ 0x1b873593) >>> 0);
	}

	set(value: unknown): void {
		this.range = normaliseLatency(value);
		this.rng = NetworkLatency.generator(this.seed);
	}

	current(): [number, number] | null {
		return this.range ? [this.range[0], this.range[1]] : null;
	}

	next(): number {
		const r = this.range;
		if (!r) return 0;
		return r[0] + Math.floor(this.rng.float() * (r[1] - r[0] + 1));
	}
}

export class Faults {
	private opts: FaultOptions = {};
	private requestCount = 0;
	private listCount = 0;
	private htmlCount = 0;
	private readonly rng: Rng;

	constructor(seed: number) {
		this.rng = new Rng((seed ^ 0x3c6ef372) >>> 0);
	}

	set(f: FaultOptions): void {
		this.opts = normaliseFaults(f);
		this.requestCount = 0;
		this.listCount = 0;
		this.htmlCount = 0;
	}

	current(): FaultOptions {
		return { ...this.opts };
	}

	/** The fault of the next API request that passed auth and the rate limiter. */
	nextRequestFault(): RequestFault | null {
		const n = ++this.requestCount;
		const o = this.opts;
		if (o.always === 429) return 'always429';
		if (o.always === 500) return 'always500';
		if (o.dropEvery && n % o.dropEvery === 0) return 'drop';
		if (o.every429 && n % o.every429 === 0) return 'every429';
		if (o.every500 && n % o.every500 === 0) return 'every500';
		return null;
	}

	latency(): number {
		const l = this.opts.latencyMs;
		if (!l) return 0;
		return l[0] + Math.floor(this.rng.float() * (l[1] - l[0] + 1));
	}

	churnPerPage(): number {
		return this.opts.churnSessionsPerPage ?? 0;
	}

	/** Whether the next successful list response is malformed, and how. */
	nextMalformed(): MalformedKind | null {
		const kind = this.opts.malformed;
		if (!kind) return null;
		const n = ++this.listCount;
		const every = this.opts.malformedEvery ?? 1;
		return n % every === 0 ? kind : null;
	}

	/** html alternates: the 1st, 3rd... answer is a 200 HTML page, the 2nd, 4th... a 502 proxy page. */
	nextHtmlStatus(): number {
		return ++this.htmlCount % 2 === 1 ? 200 : 502;
	}
}

export interface Answer {
	status: number;
	headers: Record<string, string>;
	body: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

const HTML_502 =
	'<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n';
const HTML_200 =
	'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Just a moment...</title></head>\n<body>\n<h1>Checking your browser before accessing the site.</h1>\n<p>This process is automatic. Your browser will redirect to your requested content shortly.</p>\n</body>\n</html>\n';

/**
 * A list answer spoilt the `kind` way:
 * - html: an HTML proxy page instead of JSON (status from nextHtmlStatus: 200 or 502), text/html.
 * - truncated: the JSON body cut in half (valid Content-Length of the cut body), so it does not parse.
 * - noItems: `{ pagination }` without `items`.
 * - wrongTotal: pagination.total is 1000 more than the real total (so paging by total never ends
 *   unless the client also stops on an empty page).
 * - missingTotal: pagination without `total`.
 * - oversizedPage: more items than pagination.per_page (the page plus the next page's items; when
 *   there are not enough records, the first items repeated).
 * - duplicateIds: the page's last item replaced by a copy of its first (a one-item page: two copies).
 * - wrongTypes: pagination numbers as strings, and every item's created_at as epoch ms numbers.
 * - errorBody200: status 200 with an error body `{ error: 'internal_server_error', message }`.
 */
export function malformListAnswer(
	kind: MalformedKind,
	list: { sorted: unknown[]; items: unknown[]; page: number; perPage: number; total: number },
	htmlStatus: () => number,
): Answer {
	const pagination = { page: list.page, per_page: list.perPage, total: list.total };
	const json = (body: unknown, status = 200): Answer => ({ status, headers: { 'Content-Type': JSON_TYPE }, body: JSON.stringify(body) });
	switch (kind) {
		case 'html': {
			const status = htmlStatus();
			return { status, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: status === 200 ? HTML_200 : HTML_502 };
		}
		case 'truncated': {
			const full = JSON.stringify({ items: list.items, pagination });
			return { status: 200, headers: { 'Content-Type': JSON_TYPE }, body: full.slice(0, Math.max(1, Math.floor(full.length / 2))) };
		}
		case 'noItems':
			return json({ pagination });
		case 'wrongTotal':
			return json({ items: list.items, pagination: { ...pagination, total: list.total + 1000 } });
		case 'missingTotal':
			return json({ items: list.items, pagination: { page: list.page, per_page: list.perPage } });
		case 'oversizedPage': {
			const start = (list.page - 1) * list.perPage;
			const items = list.sorted.slice(start, start + list.perPage * 2);
			for (let i = 0; items.length <= list.perPage && list.sorted.length; i++) items.push(list.sorted[i % list.sorted.length]);
			return json({ items, pagination });
		}
		case 'duplicateIds': {
			const items = [...list.items];
			if (items.length >= 2) items[items.length - 1] = items[0];
			else if (items.length === 1) items.push(items[0]);
			return json({ items, pagination });
		}
		case 'wrongTypes': {
			const items = list.items.map((it) => {
				const o = { ...(it as Record<string, unknown>) };
				if (typeof o.created_at === 'string') o.created_at = Date.parse(o.created_at);
				return o;
			});
			return json({ items, pagination: { page: String(list.page), per_page: String(list.perPage), total: String(list.total) } });
		}
		case 'errorBody200':
			return json({ error: 'internal_server_error', message: 'Upstream query failed' });
	}
}
