// The sandbox HTTP server (node:http, no framework): the whole Booking Requests Read API contract
// (shared/api) plus a control interface under /__sandbox/ (control.ts).
//
// Order of processing of an API request, all decided at arrival (synchronously, so concurrent
// requests are judged in arrival order):
//   0. network latency (option `latencyMs`, constant or a [min, max] range; also set through
//      `setLatency`, the control API and the CLI's --latency): the request is held this long before
//      anything else, as if it were still on its way. The client's round trip includes it and the
//      rate check sees the request when it "arrives" — the case a pacing client must handle.
//   1. log entry (arrival time = when the rate check sees the request, method, path, query, key hash)
//   2. authentication -> 401 unauthorized + WWW-Authenticate: Bearer (never rate limited)
//   3. rate limiter (per key) -> 429 rate_limited; rejected requests do not move the window
//   4. injected request fault (faults.ts): always429/always500/drop/every429/every500
//   5. answer delay (faults.latencyMs, after the check: a slow server), then routing: 404 unknown path, 405 non-GET, 400 invalid UUID,
//      404 not_found for Get request, lists (with session churn and malformed answers if configured).
// Every response, control routes included, carries a `Date` header from the sandbox clock.
//
// The rate limiter works on real arrival times (performance clock, or SandboxOptions.arrivalClock),
// not on the sandbox clock: moving the sandbox clock changes timestamps and the Date header, never the
// rate budget.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { applyChoices, DEFAULT_CHOICES, KIND_CHOICES, type ChoicesInput, type ListName, type SandboxChoices } from './choices';
import { handleControl } from './control';
import { Faults, NetworkLatency, malformListAnswer, type Answer } from './faults';
import { KEY_PATTERN } from './seed';
import { readSandboxState, resumedOffsetMs, writeSandboxState } from './state';
import { ApiError, Clock, Store, hashKey, sortDefaultFirst, sortRequests, sortSessions, type ListResult } from './store';
import type { FaultOptions, ListRows, RequestLogEntry, Sandbox, SandboxOptions, SandboxStats, Workspace } from './types';

const JSON_TYPE = 'application/json; charset=utf-8';

interface KeyStats {
	accepted: number;
	rateLimited: number;
	errors: number;
	minGapMs: number | null;
	lastAcceptedAt: number | null;
}

function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
	return { status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body: JSON.stringify(body) };
}

function errorAnswer(status: number, error: string, message: string, headers: Record<string, string> = {}): Answer {
	return jsonAnswer(status, { error, message }, headers);
}

/** The headers of a 429: Retry-After as choices.retryAfterS says (left out when null). */
function rateLimitHeaders(retryAfterS: number | null): Record<string, string> {
	const limit = { 'X-RateLimit-Limit': '1', 'X-RateLimit-Remaining': '0' };
	return retryAfterS === null ? limit : { 'Retry-After': String(retryAfterS), ...limit };
}

/** Choices from a start option or a control body: `'kind'` (keeping `values`, fixed at start), or settings over `base`. */
export function choicesFrom(base: SandboxChoices, input: ChoicesInput | 'kind' | undefined): SandboxChoices {
	if (input === undefined) return base;
	if (input === 'kind') return { ...KIND_CHOICES, maxPerPage: { ...KIND_CHOICES.maxPerPage }, values: base.values };
	return applyChoices(base, input);
}

/** First value of each query parameter. */
function queryRecord(params: URLSearchParams): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [k, v] of params) if (!(k in out)) out[k] = v;
	return out;
}

/** The token of an `Authorization: Bearer <token>` header; null when absent or another scheme. */
function bearerToken(header: string | undefined): string | null {
	if (header === undefined) return null;
	const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
	return m ? m[1] : null;
}

function urlHost(host: string): string {
	if (host === '0.0.0.0' || host === '') return '127.0.0.1';
	if (host === '::') return '[::1]';
	return host.includes(':') ? `[${host}]` : host;
}

const LIST_PATHS: Record<string, ListName> = {
	'/api/v1/requests': 'requests',
	'/api/v1/abandoned-sessions': 'sessions',
	'/api/v1/forms': 'forms',
	'/api/v1/profiles': 'profiles',
};
const GET_REQUEST_PATH = /^\/api\/v1\/requests\/([^/]+)$/;

/** SandboxOptions.stateFile: the state is also written this often (its clock), besides after each change. */
const STATE_SAVE_EVERY_MS = 30_000;

/** SandboxOptions.recent: the seeded range ends this many minutes before the sandbox starts ... */
export const RECENT_SEED_ENDS_MINUTES_AGO = 5;
/** ... and customers left a booking unfinished this many minutes before it starts (35 min to 20 h). */
export const RECENT_DRAFTS_MINUTES_AGO = [35, 50, 80, 140, 200, 320, 480, 720, 1200];

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
	const host = opts.host ?? '127.0.0.1';
	const saved = opts.stateFile === undefined ? undefined : readSandboxState(opts.stateFile);
	const seed = saved?.store.seed ?? opts.seed ?? 42;
	const rateLimit = opts.rateLimit ?? true;
	const arrivalNow = opts.arrivalClock ?? (() => performance.timeOrigin + performance.now());
	const minGapMs = opts.minGapMs ?? 1000;
	const clock = new Clock();
	const startChoices = opts.choices === 'kind' ? KIND_CHOICES : choicesFrom(DEFAULT_CHOICES, opts.choices);
	const startedAt = Date.now();
	const seedEndsAt = opts.recent ? startedAt - RECENT_SEED_ENDS_MINUTES_AGO * 60_000 : undefined;
	const store = new Store({ seed, sizes: opts.sizes, clock, choices: startChoices, seedEndsAt, restore: saved?.store });
	if (saved) clock.setOffsetMs(resumedOffsetMs(saved));
	else if (opts.recent) store.leftRecently(RECENT_DRAFTS_MINUTES_AGO, startedAt);
	const stateFile = opts.stateFile;
	const save = stateFile === undefined ? () => undefined : () => writeSandboxState(stateFile, clock.now(), store.snapshot());
	save(); // a first run's world is kept even if it is stopped before its first change
	// the clock too, now and then: a sandbox killed without closing goes on from near where it was
	const saveClock =
		stateFile === undefined
			? undefined
			: setInterval(() => {
					try {
						save();
					} catch (err) {
						if (!(opts.quiet ?? false)) console.error('[sandbox] could not save its state:', err);
					}
				}, STATE_SAVE_EVERY_MS).unref();
	const faults = new Faults(seed);
	const network = new NetworkLatency(seed, opts.latencyMs);
	const log: RequestLogEntry[] = [];
	const keyStats = new Map<string, KeyStats>();
	const timers = new Set<NodeJS.Timeout>();
	let closed = false;

	const statsFor = (keyHash: string): KeyStats => {
		let s = keyStats.get(keyHash);
		if (!s) {
			s = { accepted: 0, rateLimited: 0, errors: 0, minGapMs: null, lastAcceptedAt: null };
			keyStats.set(keyHash, s);
		}
		return s;
	};

	const delay = (ms: number): Promise<void> =>
		ms <= 0
			? Promise.resolve()
			: new Promise((resolve) => {
					const t = setTimeout(() => {
						timers.delete(t);
						resolve();
					}, ms);
					timers.add(t);
				});

	const write = (res: http.ServerResponse, a: Answer): void => {
		if (res.destroyed || res.writableEnded) return;
		const body = Buffer.from(a.body, 'utf8');
		res.statusCode = a.status;
		for (const [k, v] of Object.entries(a.headers)) res.setHeader(k, v);
		res.setHeader('Date', new Date(clock.now()).toUTCString());
		res.setHeader('Content-Length', String(body.length));
		res.end(body);
	};

	/** Sends an API answer, records its status in the log entry and the key's error count. */
	const answer = (res: http.ServerResponse, entry: RequestLogEntry, st: KeyStats | null, a: Answer, limiter429 = false): void => {
		entry.status = a.status;
		if (st && a.status >= 400 && !limiter429) st.errors++;
		write(res, a);
	};

	const route = (ws: Workspace, method: string, rawPath: string, query: Record<string, string>): Answer => {
		const path = rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath;
		const list = LIST_PATHS[path];
		const get = list ? null : GET_REQUEST_PATH.exec(path);
		if (!list && !get) return errorAnswer(404, 'not_found', `No such endpoint: ${path}`);
		if (method !== 'GET') return errorAnswer(405, 'method_not_allowed', `Method ${method} not allowed; this API is read-only (GET)`, { Allow: 'GET' });
		try {
			if (get) {
				let id: string;
				try {
					id = decodeURIComponent(get[1]);
				} catch {
					id = get[1];
				}
				return jsonAnswer(200, store.getRequest(ws, id));
			}
			let result: ListResult<unknown>;
			switch (list) {
				case 'requests':
					result = store.listRequests(ws, query);
					break;
				case 'sessions': {
					const n = faults.churnPerPage();
					if (n > 0) store.churn(ws, n);
					result = store.listSessions(ws, query);
					break;
				}
				case 'forms':
					result = store.listForms(ws, query);
					break;
				default:
					result = store.listProfiles(ws, query);
			}
			const kind = faults.nextMalformed();
			if (kind) return withFault(malformListAnswer(kind, result, () => faults.nextHtmlStatus()), `malformed:${kind}`);
			return jsonAnswer(200, { items: result.items, pagination: { page: result.page, per_page: result.perPage, total: result.total } });
		} catch (e) {
			if (e instanceof ApiError) return errorAnswer(e.status, e.code, e.message, e.headers);
			throw e;
		}
	};

	const handleApi = async (req: http.IncomingMessage, res: http.ServerResponse, at: number, url: URL): Promise<void> => {
		const method = req.method ?? 'GET';
		const query = queryRecord(url.searchParams);
		const header = req.headers.authorization;
		const token = bearerToken(header);
		const keyHash = token === null ? null : hashKey(token);
		const entry: RequestLogEntry = { at, method, path: url.pathname, query, keyHash, status: 0 };
		log.push(entry);
		const st = keyHash === null ? null : statsFor(keyHash);

		// 2. authentication
		let authError: string | null = null;
		let ws: Workspace | undefined;
		if (header === undefined) authError = 'Missing Authorization header (Authorization: Bearer <API_KEY>)';
		else if (token === null) authError = 'Authorization header must use the Bearer scheme';
		else if (!KEY_PATTERN.test(token)) authError = 'Malformed API key';
		else {
			ws = store.lookupKey(token);
			if (!ws) authError = 'Unknown API key';
			else if (store.isRevoked(token)) authError = 'API key has been revoked';
		}
		if (authError !== null || !ws || !st) {
			await delay(faults.latency());
			answer(res, entry, st, errorAnswer(401, 'unauthorized', authError ?? 'Unauthorized', { 'WWW-Authenticate': 'Bearer' }));
			return;
		}

		// 3. rate limiter
		if (rateLimit && st.lastAcceptedAt !== null && at - st.lastAcceptedAt < minGapMs) {
			st.rateLimited++;
			entry.sinceAcceptedMs = at - st.lastAcceptedAt;
			await delay(faults.latency());
			answer(res, entry, st, errorAnswer(429, 'rate_limited', 'Rate limit exceeded: 1 request per second per API key', rateLimitHeaders(store.choices.retryAfterS)), true);
			return;
		}
		if (st.lastAcceptedAt !== null) {
			const gap = at - st.lastAcceptedAt;
			st.minGapMs = st.minGapMs === null ? gap : Math.min(st.minGapMs, gap);
		}
		st.lastAcceptedAt = at;
		st.accepted++;

		// 4. injected request faults
		const fault = faults.nextRequestFault();
		await delay(faults.latency());
		if (fault === 'drop') {
			entry.fault = 'drop';
			st.errors++;
			req.socket.destroy();
			return;
		}
		if (fault !== null) {
			entry.fault = fault;
			const a =
				fault === 'always429' || fault === 'every429'
					? errorAnswer(429, 'rate_limited', 'Rate limit exceeded (injected)', rateLimitHeaders(store.choices.retryAfterS))
					: errorAnswer(500, 'internal_server_error', 'Internal server error (injected)');
			answer(res, entry, st, a);
			return;
		}

		// 5. routing
		const a = route(ws, method, url.pathname, query);
		const f = (a as Answer & { fault?: string }).fault;
		if (f) entry.fault = f;
		answer(res, entry, st, a);
	};

	const server = http.createServer((req, res) => {
		let url: URL;
		try {
			url = new URL(req.url ?? '/', 'http://sandbox.invalid');
		} catch {
			write(res, errorAnswer(400, 'invalid_request', 'Bad request URL'));
			return;
		}
		const isControl = url.pathname === '/__sandbox' || url.pathname.startsWith('/__sandbox/');
		const fail = (err: unknown): void => {
			if (!(opts.quiet ?? false) && !closed) console.error('[sandbox] handler error:', err);
			write(res, errorAnswer(500, 'internal_server_error', 'Internal server error'));
		};
		if (isControl) {
			handleControl(ctx, req, url.pathname, queryRecord(url.searchParams))
				.then((c) => {
					// saved before the answer: what the caller made is kept once it has the answer
					if (req.method === 'POST' && c.status === 200) save();
					write(res, jsonAnswer(c.status, c.body));
				})
				.catch(fail);
			return;
		}
		// The arrival time is taken after the network latency, synchronously before the checks.
		const arrive = (): void => {
			if (closed) return;
			handleApi(req, res, arrivalNow(), url).catch(fail);
		};
		const inFlight = network.next();
		if (inFlight <= 0) arrive();
		else delay(inFlight).then(arrive, fail);
	});

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(opts.port ?? 0, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;

	const sandbox: Sandbox = {
		url: `http://${urlHost(host)}:${port}`,
		keys: { ...store.keys },
		log,
		clearLog: () => {
			log.length = 0;
		},
		stats: (key?: string): SandboxStats => {
			const s = keyStats.get(hashKey(key ?? store.keys.demo));
			if (!s) return { accepted: 0, rateLimited: 0, errors: 0, minGapMs: null };
			return { accepted: s.accepted, rateLimited: s.rateLimited, errors: s.errors, minGapMs: s.minGapMs };
		},
		setFaults: (f: FaultOptions) => faults.set(f),
		setLatency: (latency) => network.set(latency),
		latency: () => network.current(),
		workspace: (key?: string) => store.workspace(key),
		choices: () => store.choices,
		setChoices: (input) => {
			store.setChoices(choicesFrom(store.choices, input));
			return store.choices;
		},
		ordered: <L extends ListName>(list: L, key?: string): ListRows[L] => {
			const ws = store.workspace(key);
			const order = store.order;
			const rows = {
				requests: () => sortRequests(ws.requests, order),
				sessions: () => sortSessions(ws.sessions, order),
				forms: () => sortDefaultFirst(ws.forms, order),
				profiles: () => sortDefaultFirst(ws.profiles, order),
			};
			return rows[list]() as ListRows[L];
		},
		startSession: (input) => store.startSession(input),
		saveSession: (id, change) => store.saveSession(id, change),
		completeSession: (id) => store.completeSession(id),
		bookWithoutDraft: (input) => store.bookWithoutDraft(input),
		addRequest: (input) => store.addRequest(input),
		abandonNow: (input = {}) => {
			const { idleMinutes = 0, ...start } = input;
			if (!Number.isFinite(idleMinutes) || idleMinutes < 0) throw new Error('idleMinutes must be a non-negative number');
			const session = store.startSession(start);
			clock.advance(idleMinutes * 60_000);
			return { session, now: clock.now() };
		},
		updateRequest: (id, change) => store.updateRequest(id, change),
		deleteRequest: (id) => store.deleteRequest(id),
		revokeKey: (key) => store.revokeKey(key),
		clock,
		close: async () => {
			if (closed) return;
			closed = true;
			for (const t of timers) clearTimeout(t);
			timers.clear();
			clearInterval(saveClock);
			save();
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
	const ctx = {
		sandbox,
		seed,
		rateLimit,
		minGapMs,
		faults: () => faults.current(),
		latency: () => network.current(),
		clockOffsetMs: () => clock.offsetMs(),
		writtenAt: (id: string) => store.writtenAt(id),
	};
	return sandbox;
}

function withFault(a: Answer, fault: string): Answer & { fault: string } {
	return { ...a, fault };
}
