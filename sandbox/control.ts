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
//   POST /__sandbox/sessions                  body: { formId?, contact?, source?, attribution?, key? } -> Session
//   POST /__sandbox/sessions/:id/save         body: { step?, data? } -> Session
//   POST /__sandbox/abandon                   body: { contact?, formId?, key?, idleMinutes? (61) } -> { session, now }:
//                                             a customer leaves a booking unfinished now and the clock moves on
//                                             idleMinutes (what a published trigger reports at its next poll)
//   POST /__sandbox/sessions/:id/complete     -> { session, request }
//   POST /__sandbox/bookings                  body: { formId?, key?, contact? } -> { session, request }
//   POST /__sandbox/requests                  body: Partial<Request> & { key? } -> Request
//   POST /__sandbox/requests/:id/update       body: RequestChange (status, lead_status, internal_notes,
//                                             completed_at ('now' | ISO | null), first_name, last_name,
//                                             email, phone; updatedAt 'now' | 'null' | 'keep') -> Request
//   POST /__sandbox/keys/revoke               body: { key }
//   GET  /__sandbox/clock                     { now, offsetMs }
//   POST /__sandbox/clock                     body: { advanceMs } or { offsetMs } -> { now, offsetMs }
//   GET  /__sandbox/workspace?key=            the live data of that key's workspace (default demo)
// Errors: 400 invalid_request (bad input), 404 not_found (unknown route, session, key or form),
// 405 method_not_allowed.

import type { IncomingMessage } from 'node:http';
import type { BookWithoutDraftInput, FaultOptions, Latency, RequestChange, Sandbox } from './types';

export interface ControlContext {
	sandbox: Sandbox;
	seed: number;
	rateLimit: boolean;
	minGapMs: number;
	faults(): FaultOptions;
	latency(): [number, number] | null;
	clockOffsetMs(): number;
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
					clock: { now: sb.clock.now(), offsetMs: ctx.clockOffsetMs() },
				}),
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
				const body = await readJsonBody(req);
				const contact = body.contact;
				if (contact !== undefined && (contact === null || typeof contact !== 'object')) throw new ControlError(400, 'invalid_request', 'contact must be an object');
				const source = body.source;
				if (source !== undefined && source !== null && typeof source !== 'string') throw new ControlError(400, 'invalid_request', 'source must be a string or null');
				const attribution = body.attribution;
				if (attribution !== undefined && attribution !== null && typeof attribution !== 'object') {
					throw new ControlError(400, 'invalid_request', 'attribution must be an object or null');
				}
				return ok(
					sb.startSession({
						formId: optString(body, 'formId'),
						contact: contact as Record<string, string> | undefined,
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
				const body = await readJsonBody(req);
				const contact = body.contact;
				if (contact !== undefined && (contact === null || typeof contact !== 'object' || Array.isArray(contact))) {
					throw new ControlError(400, 'invalid_request', 'contact must be an object');
				}
				const idleMinutes = body.idleMinutes === undefined ? undefined : finiteNumber(body.idleMinutes, 'idleMinutes');
				if (idleMinutes !== undefined && idleMinutes < 0) throw new ControlError(400, 'invalid_request', 'idleMinutes must not be negative');
				return ok(
					sb.abandonNow({
						formId: optString(body, 'formId'),
						key: optString(body, 'key'),
						contact: contact as Record<string, string> | undefined,
						idleMinutes,
					}),
				);
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
				return ok(sb.saveSession(decodeURIComponent(m[1]), { step: optString(body, 'step'), data: data as Record<string, unknown> | undefined }));
			},
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/sessions\/([^/]+)\/complete$/,
			run: (m) => ok(sb.completeSession(decodeURIComponent(m[1]))),
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/bookings$/,
			run: async () => {
				const body = await readJsonBody(req);
				const contact = body.contact && typeof body.contact === 'object' ? (body.contact as BookWithoutDraftInput['contact']) : undefined;
				return ok(sb.bookWithoutDraft({ formId: optString(body, 'formId'), key: optString(body, 'key'), contact }));
			},
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/requests$/,
			run: async () => ok(sb.addRequest(await readJsonBody(req))),
		},
		{
			method: 'POST',
			pattern: /^\/__sandbox\/requests\/([^/]+)\/update$/,
			run: async (m) => ok(sb.updateRequest(decodeURIComponent(m[1]), (await readJsonBody(req)) as RequestChange)),
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
