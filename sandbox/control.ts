// HTTP control interface under /__sandbox/ for out-of-process users (demo, benchmarks,
// multi-process tests). No auth, no rate limit, no faults, not in the request log. JSON in and out.
//
//   GET  /__sandbox/info                      url, keys, seed, rate limit settings, latency, faults, clock
//   GET  /__sandbox/log                       the request log (array of RequestLogEntry)
//   POST /__sandbox/log/clear
//   GET  /__sandbox/stats?key=<api key>       stats of that key (default: demo key)
//   GET  /__sandbox/latency                   { latencyMs: [min, max] | null } (network latency before the rate check)
//   POST /__sandbox/latency                   body: { latencyMs: 250 | [80, 320] | null } -> { latencyMs }
//   GET  /__sandbox/faults                    current faults
//   POST /__sandbox/faults                    body: FaultOptions (replaces; {} clears)
//   GET  /__sandbox/requests?limit=&key=      the newest requests, short: { total, items: [{ id, first_name, ... }] }
//   GET  /__sandbox/sessions?status=&limit=&key=  the most recently active sessions (status abandoned | completed)
//   GET  /__sandbox/forms?key=                the forms: { items: [{ id, name, is_default }] }
//   POST /__sandbox/sessions                  body: { formId?, contact?, source?, attribution?, key? } -> Session
//   POST /__sandbox/sessions/:id/save         body: { step?, data? } -> Session
//   POST /__sandbox/abandon                   body: { contact?, formId?, key?, idleMinutes? (0) } -> { session, now,
//                                             offsetMs, clock }: a customer leaves a booking unfinished now (idle from
//                                             now on) and the clock moves on idleMinutes (0: not at all); `clock` says
//                                             in words what that does and where the clock stands against real time
//   POST /__sandbox/sessions/:id/complete     -> { session, request }
//   POST /__sandbox/bookings                  body: { formId?, key?, contact? } -> { session, request }
//   POST /__sandbox/requests                  body: Partial<Request> & { key?, formId?, contact? } -> Request
//   POST /__sandbox/requests/:id/update       body: RequestChange (status, lead_status, internal_notes,
//                                             completed_at ('now' | ISO | null), first_name, last_name,
//                                             email, phone; updatedAt 'now' | 'null' | 'keep') -> Request
// A contact is accepted in both of the contract's spellings (contact.ts), in `contact` or at the top of
// the body. `:id` may be `newest`: the newest request, or the most recently active abandoned session
// (of the demo workspace, or `?key=`'s). A body field a route does not take is refused, not ignored.
//   POST /__sandbox/keys/revoke               body: { key }
//   GET  /__sandbox/clock                     { now, offsetMs }
//   POST /__sandbox/clock                     body: { advanceMs } or { offsetMs } -> { now, offsetMs }
//   GET  /__sandbox/workspace?key=            the live data of that key's workspace (default demo)
//   GET  /__sandbox/choices                   where the contract leaves a choice, what the sandbox does (choices.ts)
//   POST /__sandbox/choices                   body: some settings, or { "kind": true } -> all of them
// Errors: 400 invalid_request (bad input), 404 not_found (unknown route, session, key or form),
// 405 method_not_allowed.

import type { IncomingMessage } from 'node:http';
import { applyChoices, type ChoicesInput, type ListOrder } from './choices';
import { asRequestFields, CONTACT_NAMES, ContactError, splitContact } from './contact';
import { sortRequests, sortSessions } from './store';
import type { FaultOptions, Latency, RequestChange, Sandbox, Session, SessionContact, Workspace } from './types';

/** By time, rows without one last, ties by id: whatever the API's choices. */
const BY_TIME: ListOrder = { nulls: 'last', ties: 'id' };

/**
 * The control routes' "newest" and "most recently active": the rows the customer activity wrote last
 * first (with a commit lag their timestamps do not tell), then the seeded rows by time.
 */
function recentFirst<T extends { id: string }>(ctx: ControlContext, sorted: T[]): T[] {
	return sorted
		.map((row, index) => ({ row, index, written: ctx.writtenAt(row.id) }))
		.sort((a, b) => b.written - a.written || a.index - b.index)
		.map(({ row }) => row);
}

export interface ControlContext {
	sandbox: Sandbox;
	seed: number;
	rateLimit: boolean;
	minGapMs: number;
	faults(): FaultOptions;
	latency(): [number, number] | null;
	clockOffsetMs(): number;
	/** When the customer activity last wrote a row (0: never; higher is later). */
	writtenAt(id: string): number;
}

export interface ControlAnswer {
	status: number;
	body: unknown;
}

class ControlError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

const MAX_BODY = 1024 * 1024;

export async function readJsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		const b = chunk as Buffer;
		size += b.length;
		if (size > MAX_BODY) throw new ControlError(400, 'invalid_request', 'body too large');
		chunks.push(b);
	}
	const text = Buffer.concat(chunks).toString('utf8').trim();
	if (!text) return {};
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		throw new ControlError(400, 'invalid_request', 'body is not valid JSON');
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ControlError(400, 'invalid_request', 'body must be a JSON object');
	return parsed as Record<string, unknown>;
}

function optString(body: Record<string, unknown>, name: string): string | undefined {
	const v = body[name];
	if (v === undefined || v === null) return undefined;
	if (typeof v !== 'string') throw new ControlError(400, 'invalid_request', `${name} must be a string`);
	return v;
}

function finiteNumber(v: unknown, name: string): number {
	if (typeof v !== 'number' || !Number.isFinite(v)) throw new ControlError(400, 'invalid_request', `${name} must be a number`);
	return v;
}

/** The body's contact (either spelling) and the rest; a field the route does not take is refused. */
function contactBody(body: Record<string, unknown>, route: string, takes: readonly string[]): { contact?: SessionContact; rest: Record<string, unknown> } {
	let split: ReturnType<typeof splitContact>;
	try {
		split = splitContact(body);
	} catch (e) {
		if (e instanceof ContactError) throw new ControlError(400, 'invalid_request', e.message);
		throw e;
	}
	const refused = Object.keys(split.rest).filter((name) => !takes.includes(name));
	if (refused.length > 0) {
		throw new ControlError(400, 'invalid_request', `${route} does not take ${refused.join(', ')}; it takes ${[...takes, 'a contact'].join(', ')} (${CONTACT_NAMES}, in "contact" or at the top)`);
	}
	return split;
}

/**
 * What abandon tells about the clock. A published trigger judges idle time by the API's clock and
 * reports a draft once that clock passes Abandoned After beyond it: in real time, or at once when the
 * route moved the clock on (a draft stamped in the past instead would be behind where the trigger
 * already looked, and never reported).
 */
function clockNote(movedMinutes: number, offsetMs: number): { offsetMs: number; clock: string } {
	const ahead = Math.round(offsetMs / 60_000);
	const stands = ahead === 0 ? 'on real time' : ahead > 0 ? `${ahead} minutes ahead of real time` : `${-ahead} minutes behind real time`;
	const clock =
		movedMinutes === 0
			? `the draft is idle from now on: a published trigger reports it at its first check once its Abandoned After has passed; the sandbox's clock did not move and is ${stands}`
			: `the sandbox's clock moved on ${movedMinutes} minutes, so the draft is already ${movedMinutes} minutes idle; the clock is now ${stands}, and every new timestamp of the sandbox follows it`;
	return { offsetMs, clock };
}

/** `limit` of a list route: 1 to 100, default 10. */
function limitOf(query: Record<string, string>): number {
	if (query.limit === undefined) return 10;
	const n = Number(query.limit);
	if (!Number.isInteger(n) || n < 1 || n > 100) throw new ControlError(400, 'invalid_request', 'limit must be a whole number from 1 to 100');
	return n;
}

/** The most recently active session still abandoned (`newest` in a session route). */
function newestAbandoned(ctx: ControlContext, ws: Workspace): Session {
	const session = recentFirst(ctx, sortSessions(ws.sessions.filter((s) => s.request_id === null), BY_TIME))[0];
	if (!session) throw new ControlError(404, 'not_found', 'no abandoned session in this workspace');
	return session;
}

export async function handleControl(
	ctx: ControlContext,
	req: IncomingMessage,
	path: string,
	query: Record<string, string>,
): Promise<ControlAnswer> {
	const sb = ctx.sandbox;
	const method = req.method ?? 'GET';
	const p = path.replace(/\/+$/, '');
	const ok = (body: unknown): ControlAnswer => ({ status: 200, body });
	const ws = () => sb.workspace(query.key);
	const sessionId = (raw: string) => (raw === 'newest' ? newestAbandoned(ctx, ws()).id : decodeURIComponent(raw));
	const requestId = (raw: string) => {
		if (raw !== 'newest') return decodeURIComponent(raw);
		const request = recentFirst(ctx, sortRequests(ws().requests, BY_TIME))[0];
		if (!request) throw new ControlError(404, 'not_found', 'no request in this workspace');
		return request.id;
	};

	type Route = { method: 'GET' | 'POST'; pattern: RegExp; run: (m: RegExpExecArray) => Promise<ControlAnswer> | ControlAnswer };
	const routes: Route[] = [
		{
			method: 'GET',
			pattern: /^\/__sandbox\/info$/,
			run: () =>
				ok({
					url: sb.url,
					keys: sb.keys,
					seed: ctx.seed,
					rateLimit: ctx.rateLimit,
					minGapMs: ctx.minGapMs,
					latencyMs: ctx.latency(),
					faults: ctx.faults(),
					choices: sb.choices(),
					clock: { now: sb.clock.now(), offsetMs: ctx.clockOffsetMs() },
				}),
		},
		{ method: 'GET', pattern: /^\/__sandbox\/choices$/, run: () => ok(sb.choices()) },
		{
			method: 'POST',
			pattern: /^\/__sandbox\/choices$/,
			run: async () => {
				const body = await readJsonBody(req);
				const { kind, ...settings } = body;
				if (kind !== undefined && kind !== true) throw new ControlError(400, 'invalid_request', 'kind must be true (all kind choices)');
				try {
					applyChoices(sb.choices(), settings); // refused before anything changes
					if (kind === true) sb.setChoices('kind');
					return ok(sb.setChoices(settings as ChoicesInput));
				} catch (e) {
					throw new ControlError(400, 'invalid_request', (e as Error).message);
				}
			},
		},
		{ method: 'GET', pattern: /^\/__sandbox\/log$/, run: () => ok(sb.log) },
		{
			method: 'POST',
			pattern: /^\/__sandbox\/log\/clear$/,
			run: () => {
				sb.clearLog();
				return ok({ ok: true });
			},
		},
		{ method: 'GET', pattern: /^\/__sandbox\/stats$/, run: () => ok(sb.stats(query.key)) },
		{ method: 'GET', pattern: /^\/__sandbox\/latency$/, run: () => ok({ latencyMs: ctx.latency() }) },
		{
			method: 'POST',
			pattern: /^\/__sandbox\/latency$/,
			run: async () => {
				const body = await readJsonBody(req);
				if (!('latencyMs' in body)) throw new ControlError(400, 'invalid_request', 'give latencyMs: a number, [min, max] or null');
				try {
					sb.setLatency(body.latencyMs as Latency);
				} catch (e) {
					throw new ControlError(400, 'invalid_request', (e as Error).message);
				}
				return ok({ latencyMs: ctx.latency() });
			},
		},
		{ method: 'GET', pattern: /^\/__sandbox\/faults$/, run: () => ok(ctx.faults()) },
		{
			method: 'POST',
			pattern: /^\/__sandbox\/faults$/,
			run: async () => {
				const body = await readJsonBody(req);
				try {
					sb.setFaults(body as FaultOptions);
				} catch (e) {
					throw new ControlError(400, 'invalid_request', (e as Error).message);
				}
				return ok(ctx.faults());
			},
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/sessions$/,
			run: async () => {
				const { contact, rest: body } = contactBody(await readJsonBody(req), 'POST /__sandbox/sessions', ['formId', 'source', 'attribution', 'key']);
				const source = body.source;
				if (source !== undefined && source !== null && typeof source !== 'string') throw new ControlError(400, 'invalid_request', 'source must be a string or null');
				const attribution = body.attribution;
				if (attribution !== undefined && attribution !== null && typeof attribution !== 'object') {
					throw new ControlError(400, 'invalid_request', 'attribution must be an object or null');
				}
				return ok(
					sb.startSession({
						formId: optString(body, 'formId'),
						contact,
						source: source as string | null | undefined,
						attribution: attribution as Record<string, string> | null | undefined,
						key: optString(body, 'key'),
					}),
				);
			},
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/abandon$/,
			run: async () => {
				const { contact, rest: body } = contactBody(await readJsonBody(req), 'POST /__sandbox/abandon', ['formId', 'key', 'idleMinutes']);
				const idleMinutes = body.idleMinutes === undefined ? undefined : finiteNumber(body.idleMinutes, 'idleMinutes');
				if (idleMinutes !== undefined && idleMinutes < 0) throw new ControlError(400, 'invalid_request', 'idleMinutes must not be negative');
				const abandoned = sb.abandonNow({ formId: optString(body, 'formId'), key: optString(body, 'key'), contact, idleMinutes });
				return ok({ ...abandoned, ...clockNote(idleMinutes ?? 0, ctx.clockOffsetMs()) });
			},
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/sessions\/([^/]+)\/save$/,
			run: async (m) => {
				const body = await readJsonBody(req);
				const data = body.data;
				if (data !== undefined && (data === null || typeof data !== 'object' || Array.isArray(data))) {
					throw new ControlError(400, 'invalid_request', 'data must be an object');
				}
				// the draft keeps the widget's spelling (contact.firstname) whichever spelling was sent
				const draft = data as Record<string, unknown> | undefined;
				const saved = draft?.contact === undefined ? draft : { ...draft, contact: contactBody({ contact: draft.contact }, 'data', []).contact ?? {} };
				return ok(sb.saveSession(sessionId(m[1]), { step: optString(body, 'step'), data: saved }));
			},
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/sessions\/([^/]+)\/complete$/,
			run: (m) => ok(sb.completeSession(sessionId(m[1]))),
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/bookings$/,
			run: async () => {
				const { contact, rest: body } = contactBody(await readJsonBody(req), 'POST /__sandbox/bookings', ['formId', 'key']);
				return ok(sb.bookWithoutDraft({ formId: optString(body, 'formId'), key: optString(body, 'key'), contact }));
			},
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/requests$/,
			run: async () => {
				// any field of a request (the store refuses others), plus formId as the other routes spell it
				const body = await readJsonBody(req);
				const { contact, rest } = contactBody(body, 'POST /__sandbox/requests', Object.keys(body).filter((name) => name !== 'contact'));
				const { formId, ...fields } = rest;
				if (formId !== undefined) {
					if (fields.form_id !== undefined && fields.form_id !== formId) throw new ControlError(400, 'invalid_request', 'formId and form_id differ: give the form once');
					fields.form_id = formId;
				}
				if (fields.form_id !== undefined && !sb.workspace(optString(fields, 'key')).forms.some((form) => form.id === fields.form_id)) {
					throw new ControlError(404, 'not_found', `no form ${String(fields.form_id)} in this workspace (GET /__sandbox/forms lists them)`);
				}
				return ok(sb.addRequest({ ...fields, ...asRequestFields(contact) }));
			},
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/requests\/([^/]+)\/update$/,
			run: async (m) => {
				const { contact, rest } = contactBody(await readJsonBody(req), 'POST /__sandbox/requests/:id/update', ['status', 'lead_status', 'internal_notes', 'completed_at', 'updatedAt']);
				return ok(sb.updateRequest(requestId(m[1]), { ...rest, ...asRequestFields(contact) } as RequestChange));
			},
		},
		{
			method: 'GET',
			pattern: /^\/__sandbox\/requests$/,
			run: () => {
				const requests = recentFirst(ctx, sortRequests(ws().requests, BY_TIME));
				return ok({
					total: requests.length,
					items: requests.slice(0, limitOf(query)).map(({ id, first_name, last_name, email, phone, status, lead_status, created_at, updated_at }) => ({
						id,
						first_name,
						last_name,
						email,
						phone,
						status,
						lead_status,
						created_at,
						updated_at,
					})),
				});
			},
		},
		{
			method: 'GET',
			pattern: /^\/__sandbox\/sessions$/,
			run: () => {
				const status = query.status;
				if (status !== undefined && status !== 'abandoned' && status !== 'completed') throw new ControlError(400, 'invalid_request', 'status must be abandoned or completed');
				const matching = ws().sessions.filter((s) => status === undefined || (status === 'abandoned') === (s.request_id === null));
				const sessions = recentFirst(ctx, sortSessions(matching, BY_TIME));
				return ok({
					total: sessions.length,
					items: sessions.slice(0, limitOf(query)).map(({ id, form_id, step, data, request_id, created_at, updated_at }) => ({
						id,
						form_id,
						step,
						contact: data.contact ?? null,
						request_id,
						created_at,
						updated_at,
					})),
				});
			},
		},
		{
			method: 'GET',
			pattern: /^\/__sandbox\/forms$/,
			run: () => ok({ items: ws().forms.map(({ id, name, is_default }) => ({ id, name, is_default })) }),
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/keys\/revoke$/,
			run: async () => {
				const body = await readJsonBody(req);
				const key = optString(body, 'key');
				if (!key) throw new ControlError(400, 'invalid_request', 'key is required');
				sb.revokeKey(key);
				return ok({ ok: true });
			},
		},
		{ method: 'GET', pattern: /^\/__sandbox\/clock$/, run: () => ok({ now: sb.clock.now(), offsetMs: ctx.clockOffsetMs() }) },
		{
			method: 'POST',
			pattern: /^\/__sandbox\/clock$/,
			run: async () => {
				const body = await readJsonBody(req);
				if (body.advanceMs !== undefined) sb.clock.advance(finiteNumber(body.advanceMs, 'advanceMs'));
				else if (body.offsetMs !== undefined) sb.clock.setOffsetMs(finiteNumber(body.offsetMs, 'offsetMs'));
				else throw new ControlError(400, 'invalid_request', 'give advanceMs or offsetMs');
				return ok({ now: sb.clock.now(), offsetMs: ctx.clockOffsetMs() });
			},
		},
		{ method: 'GET', pattern: /^\/__sandbox\/workspace$/, run: () => ok(sb.workspace(query.key)) },
	];

	try {
		const matching = routes.filter((r) => r.pattern.test(p));
		if (matching.length === 0) throw new ControlError(404, 'not_found', `no control route ${p}`);
		const route = matching.find((r) => r.method === method);
		if (!route) throw new ControlError(405, 'method_not_allowed', `use ${matching.map((r) => r.method).join(' or ')} on ${p}`);
		return await route.run(route.pattern.exec(p) as RegExpExecArray);
	} catch (e) {
		if (e instanceof ControlError) return { status: e.status, body: { error: e.code, message: e.message } };
		const message = (e as Error).message ?? String(e);
		// Store errors: "unknown ..." (session, key, form) -> 404, anything else (already completed...) -> 400.
		if (/unknown/i.test(message)) return { status: 404, body: { error: 'not_found', message } };
		return { status: 400, body: { error: 'invalid_request', message } };
	}
}
