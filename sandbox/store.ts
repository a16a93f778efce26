// The sandbox's data store: workspaces and keys, list ordering and pagination, and the customer
// activity (start/save/complete sessions, bookings, new requests) that changes the data while
// clients read it.

import { createHash } from 'node:crypto';
import { CommitLag, DEFAULT_CHOICES, descending, tieOrder, type ListOrder, type SandboxChoices } from './choices';
import {
	DEFAULT_SIZES,
	OTHER_SIZES,
	Rng,
	SEED_RANGE_END,
	STEPS,
	contactOf,
	dateOnly,
	draftFor,
	formServiceIds,
	iso,
	makeAddress,
	makeKeys,
	makePerson,
	makeRequest,
	recentAttribution,
	requestAttributionFrom,
	routeProfile,
	seedWorkspace,
	shiftWorkspace,
	sourceRecentSessions,
} from './seed';
import { openValues } from './openValues';
import type { StoreState } from './state';
import type {
	BookingRequest,
	BookWithoutDraftInput,
	BusinessProfile,
	Form,
	RequestChange,
	SandboxClock,
	SandboxKeys,
	SandboxSizes,
	SaveSessionChange,
	Session,
	SessionData,
	StartSessionInput,
	Workspace,
} from './types';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** sha256 hex of a bearer token, first 12 chars (what the log and stats keep; never the raw key). */
export function hashKey(token: string): string {
	return createHash('sha256').update(token).digest('hex').slice(0, 12);
}

export class Clock implements SandboxClock {
	private offset = 0;
	private fixedAt: number | undefined;
	now(): number {
		return this.fixedAt ?? Date.now() + this.offset;
	}
	/** Runs `fn` with the clock standing at `at` (epoch ms): what it stamps does not depend on when it ran. */
	standingAt<T>(at: number, fn: () => T): T {
		const before = this.fixedAt;
		this.fixedAt = at;
		try {
			return fn();
		} finally {
			this.fixedAt = before;
		}
	}
	advance(ms: number): void {
		this.offset += ms;
	}
	setOffsetMs(ms: number): void {
		this.offset = ms;
	}
	offsetMs(): number {
		return this.offset;
	}
}

/** An API error answer: `{ error: code, message }` with that status. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}
}

// ---------------------------------------------------------------------------------------------
// Query parameters

/** An integer query value, or null when missing or not an integer ("2", "+3", "-1"; not "1.5", "abc", ""). */
export function intParam(raw: string | undefined): number | null {
	if (raw === undefined) return null;
	const t = raw.trim();
	if (!/^[+-]?\d+$/.test(t)) return null;
	const n = Number(t);
	if (!Number.isSafeInteger(n)) return n > 0 ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
	return n;
}

/** page: default 1; below 1, non-numeric or empty -> 1. */
export function parsePage(raw: string | undefined): number {
	const n = intParam(raw);
	return n === null || n < 1 ? 1 : n;
}

/** per_page: default 25; missing, zero, negative or non-numeric -> 25; above max -> max. */
export function parsePerPage(raw: string | undefined, max: number): number {
	const n = intParam(raw);
	if (n === null || n < 1) return Math.min(25, max);
	return Math.min(n, max);
}

/**
 * Max per_page of each list with the default choices (choices.maxPerPage): 100 where the contract says
 * so; profiles, where it does not say, 50, so clients must trust pagination.per_page.
 */
export const MAX_PER_PAGE = DEFAULT_CHOICES.maxPerPage;

/** The error of an invalid UUID, with the status choices.invalidUuid picks (the contract does not show it). */
export function invalidUuidError(status: SandboxChoices['invalidUuid'], what: string): ApiError {
	if (status === 404) return new ApiError(404, 'not_found', `${what} not found`);
	if (status === 422) return new ApiError(422, 'validation_error', `${what} must be a valid UUID`);
	return new ApiError(400, 'invalid_request', `${what} must be a valid UUID`);
}

/** A uuid filter: absent -> undefined; present but not a UUID (empty included) -> the invalid-UUID answer. */
export function uuidParam(query: Record<string, string>, name: string, invalid: SandboxChoices['invalidUuid'] = 400): string | undefined {
	const v = query[name];
	if (v === undefined) return undefined;
	if (!UUID_RE.test(v)) throw invalidUuidError(invalid, name);
	return v.toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// Ordering

/** The order of the default choices (nulls first, ties in a fixed order unrelated to the ids). */
const DEFAULT_ORDER: ListOrder = { nulls: DEFAULT_CHOICES.nulls, ties: DEFAULT_CHOICES.ties };

/** Requests: newest first by created_at (never null in the contract), ties as `order.ties` says. */
export function sortRequests(list: BookingRequest[], order: ListOrder = DEFAULT_ORDER): BookingRequest[] {
	const time = descending(order);
	const tie = tieOrder(order);
	return [...list].sort((a, b) => time(a.created_at, b.created_at) || tie(a, b));
}
/** Sessions: most recently active first by updated_at, null updated_at where `order.nulls` says, ties as `order.ties` says. */
export function sortSessions(list: Session[], order: ListOrder = DEFAULT_ORDER): Session[] {
	const time = descending(order);
	const tie = tieOrder(order);
	return [...list].sort((a, b) => time(a.updated_at, b.updated_at) || tie(a, b));
}
/** Forms and profiles: the default first, then newest created_at first (nulls and ties as `order` says). */
export function sortDefaultFirst<T extends { id: string; is_default: boolean; created_at: string | null }>(list: T[], order: ListOrder = DEFAULT_ORDER): T[] {
	const time = descending(order);
	const tie = tieOrder(order);
	return [...list].sort((a, b) => Number(b.is_default) - Number(a.is_default) || time(a.created_at, b.created_at) || tie(a, b));
}

export interface ListResult<T> {
	/** All matching records in API order. */
	sorted: T[];
	page: number;
	perPage: number;
	total: number;
	items: T[];
}

export function paginate<T>(sorted: T[], query: Record<string, string>, max: number, perPageOf = parsePerPage): ListResult<T> {
	const page = parsePage(query.page);
	const perPage = perPageOf(query.per_page, max);
	const start = (page - 1) * perPage;
	const items = start < sorted.length ? sorted.slice(start, start + perPage) : [];
	return { sorted, page, perPage, total: sorted.length, items };
}

// ---------------------------------------------------------------------------------------------
// Store

export interface StoreOptions {
	seed: number;
	sizes?: SandboxSizes;
	clock: Clock;
	/** The seeded data moved in time so that its range ends at this moment (ms): see SandboxOptions.recent. */
	seedEndsAt?: number;
	/** The contract's open choices (choices.ts; default DEFAULT_CHOICES). */
	choices?: SandboxChoices;
	/** Go on from a saved state (state.ts) instead of seeding: its data, seed and generator; `sizes` and `seedEndsAt` are not used. */
	restore?: StoreState;
}

export class Store {
	readonly keys: SandboxKeys;
	readonly demo: Workspace;
	readonly other: Workspace;
	private readonly seed: number;
	private readonly keyToWs = new Map<string, Workspace>();
	private readonly revoked = new Set<string>();
	private readonly rng: Rng;
	private readonly clock: Clock;
	private lastStamp = 0;
	private choiceSet: SandboxChoices;
	private readonly lag: CommitLag;
	/** Counts the writes: `reshuffled` ties are drawn again when it moves. */
	private version = 0;
	/** The write that made each new request, or last made each session active (control routes' "newest"). */
	private readonly written = new Map<string, number>();

	constructor(opts: StoreOptions) {
		const { restore } = opts;
		const seed = (restore?.seed ?? opts.seed) >>> 0;
		this.seed = seed;
		this.clock = opts.clock;
		this.choiceSet = opts.choices ?? DEFAULT_CHOICES;
		this.lag = new CommitLag(seed, this.choiceSet.commitLagMs);
		this.keys = makeKeys(seed);
		if (restore) {
			this.demo = restore.demo;
			this.other = restore.other;
			for (const key of restore.revoked) this.revoked.add(key);
			this.version = restore.version;
			for (const [id, version] of restore.written) this.written.set(id, version);
		} else {
			this.demo = seedWorkspace(seed, { ...DEFAULT_SIZES, ...(opts.sizes ?? {}) }, 'Demo Workspace');
			this.other = seedWorkspace((seed ^ 0x9e3779b9) >>> 0, OTHER_SIZES, 'Other Workspace');
			if (this.choiceSet.values === 'open') for (const ws of [this.demo, this.other]) openValues(ws);
			if (opts.seedEndsAt !== undefined) {
				shiftWorkspace(this.demo, opts.seedEndsAt - SEED_RANGE_END);
				shiftWorkspace(this.other, opts.seedEndsAt - SEED_RANGE_END);
				sourceRecentSessions(this.demo, opts.seedEndsAt);
			}
			this.revoked.add(this.keys.revoked);
		}
		this.rng = new Rng(restore?.rng ?? (seed ^ 0xa5a5a5a5) >>> 0);
		this.keyToWs.set(this.keys.demo, this.demo);
		this.keyToWs.set(this.keys.second, this.demo);
		this.keyToWs.set(this.keys.revoked, this.demo);
		this.keyToWs.set(this.keys.other, this.other);
	}

	/** What a later sandbox needs to go on from here (state.ts): nothing it makes then was made before. */
	snapshot(): StoreState {
		return {
			seed: this.seed,
			demo: this.demo,
			other: this.other,
			revoked: [...this.revoked],
			rng: this.rng.state,
			version: this.version,
			written: [...this.written],
		};
	}

	get choices(): SandboxChoices {
		return this.choiceSet;
	}

	/** New choices (choices.ts applyChoices); `values` shapes the seeded data, so it is chosen at start only. */
	setChoices(next: SandboxChoices): void {
		if (next.values !== this.choiceSet.values) throw new Error('choices.values shapes the seeded data: choose it when the sandbox starts');
		if (JSON.stringify(next.commitLagMs) !== JSON.stringify(this.choiceSet.commitLagMs)) this.lag.set(next.commitLagMs);
		this.choiceSet = next;
	}

	/**
	 * When the customer activity last wrote this row (a request made, a session started, saved or
	 * completed): higher is later; 0 for a seeded row. With a commit lag the timestamps do not tell.
	 */
	writtenAt(id: string): number {
		return this.written.get(id) ?? 0;
	}

	private wrote(...rows: Array<{ id: string }>): void {
		for (const row of rows) this.written.set(row.id, this.version);
	}

	/** How the lists order their rows now (the choices, and the version reshuffled ties follow). */
	get order(): ListOrder {
		return { nulls: this.choiceSet.nulls, ties: this.choiceSet.ties, version: this.version };
	}

	/** Workspace of a key (for auth): undefined when unknown. Revocation is checked separately. */
	lookupKey(key: string): Workspace | undefined {
		return this.keyToWs.get(key);
	}
	isRevoked(key: string): boolean {
		return this.revoked.has(key);
	}
	revokeKey(key: string): void {
		if (!this.keyToWs.has(key)) throw new Error('revokeKey: unknown key');
		this.revoked.add(key);
	}

	/** The workspace of `key` (default: the demo workspace). Revoked keys still name their workspace here. */
	workspace(key?: string): Workspace {
		if (key === undefined) return this.demo;
		const ws = this.keyToWs.get(key);
		if (!ws) throw new Error('unknown key');
		return ws;
	}

	/**
	 * Timestamp of a write, which becomes visible now. With a commit lag (choices.commitLagMs) it was
	 * stamped that long ago: it may land below rows already visible, or share their millisecond; but
	 * never before the stamps `after` of what it follows (the row's earlier writes, the draft a booking
	 * comes from), which it could only start once they were visible. Without a lag, the sandbox clock,
	 * made strictly increasing over consecutive activity (+1 ms on a same-millisecond collision) so the
	 * latest save is always on top; a clock moved back by a second or more is followed as is.
	 */
	stamp(...after: Array<string | null>): number {
		this.version++;
		if (!this.lag.none) {
			const earliest = Math.max(...after.map((at) => (at === null ? -Infinity : Date.parse(at))));
			return Math.max(this.clock.now() - this.lag.next(), earliest);
		}
		let t = this.clock.now();
		if (t <= this.lastStamp && this.lastStamp - t < 1000) t = this.lastStamp + 1;
		this.lastStamp = t;
		return t;
	}

	// --- lists ------------------------------------------------------------------------------

	private uuid(query: Record<string, string>, name: string): string | undefined {
		return uuidParam(query, name, this.choiceSet.invalidUuid);
	}

	listRequests(ws: Workspace, query: Record<string, string>): ListResult<BookingRequest> {
		const formId = this.uuid(query, 'form_id');
		const profileId = this.uuid(query, 'business_profile_id');
		const matching = ws.requests.filter(
			(r) => (formId === undefined || r.form_id === formId) && (profileId === undefined || r.business_profile_id === profileId),
		);
		return paginate(sortRequests(matching, this.order), query, this.choiceSet.maxPerPage.requests);
	}

	getRequest(ws: Workspace, id: string): BookingRequest {
		if (!UUID_RE.test(id)) throw invalidUuidError(this.choiceSet.invalidUuid, 'id');
		const lower = id.toLowerCase();
		const r = ws.requests.find((x) => x.id === lower);
		if (!r) throw new ApiError(404, 'not_found', 'Request not found');
		return r;
	}

	/**
	 * business_profile_id is not supported on this endpoint (contract), not said how: 400
	 * invalid_request, or ignored (choices.unsupportedFilter: every session is listed).
	 */
	listSessions(ws: Workspace, query: Record<string, string>): ListResult<Session> {
		if (query.business_profile_id !== undefined && this.choiceSet.unsupportedFilter === 'error') {
			throw new ApiError(400, 'invalid_request', 'business_profile_id is not supported on this endpoint');
		}
		const formId = this.uuid(query, 'form_id');
		const matching = ws.sessions.filter((s) => formId === undefined || s.form_id === formId);
		return paginate(sortSessions(matching, this.order), query, this.choiceSet.maxPerPage.sessions);
	}

	listForms(ws: Workspace, query: Record<string, string>): ListResult<Form> {
		return paginate(sortDefaultFirst(ws.forms, this.order), query, this.choiceSet.maxPerPage.forms);
	}

	/** Profiles: a non-numeric per_page (not shown) uses the default or is refused (choices.profilesBadPerPage). */
	listProfiles(ws: Workspace, query: Record<string, string>): ListResult<BusinessProfile> {
		const formId = this.uuid(query, 'form_id');
		const matching = ws.profiles.filter((p) => formId === undefined || p.form_id === formId);
		const raw = query.per_page;
		if (this.choiceSet.profilesBadPerPage === 'error' && raw !== undefined && intParam(raw) === null) {
			throw new ApiError(400, 'invalid_request', 'per_page must be a whole number');
		}
		return paginate(sortDefaultFirst(matching, this.order), query, this.choiceSet.maxPerPage.profiles);
	}

	// --- activity ---------------------------------------------------------------------------

	private formOf(ws: Workspace, formId?: string): Form {
		if (formId === undefined) return ws.forms.find((f) => f.is_default) ?? ws.forms[0];
		const f = ws.forms.find((x) => x.id === formId.toLowerCase());
		if (!f) throw new Error(`unknown form ${formId} in workspace ${ws.name}`);
		return f;
	}

	findSession(id: string): { ws: Workspace; session: Session } {
		for (const ws of [this.demo, this.other]) {
			const session = ws.sessions.find((s) => s.id === id.toLowerCase());
			if (session) return { ws, session };
		}
		throw new Error(`unknown session ${id}`);
	}

	/** A customer finishes the contact step: a new session at step `address` with contact and zip. */
	startSession(input: StartSessionInput = {}): Session {
		const ws = this.workspace(input.key);
		const form = this.formOf(ws, input.formId);
		const person = makePerson(this.rng);
		const contact = { ...contactOf(person), ...(input.contact ?? {}) };
		const t = iso(this.stamp());
		const session: Session = {
			id: this.rng.uuid(),
			form_id: form.id,
			step: 'address',
			data: draftFor('address', { zip: makeAddress(this.rng).zip, contact }),
			attribution: input.attribution === undefined ? null : input.attribution,
			source: input.source === undefined ? null : input.source,
			request_id: null,
			created_at: t,
			updated_at: t,
		};
		ws.sessions.push(session);
		this.wrote(session);
		return session;
	}

	/**
	 * Widget save: step, data and updated_at change; the session moves to the top of the list.
	 * Without `step` the customer advances one step (address -> services -> schedule -> confirm);
	 * without `data` the draft gains the keys of the step reached.
	 */
	saveSession(id: string, change: SaveSessionChange = {}): Session {
		const { ws, session } = this.findSession(id);
		const cur = STEPS.indexOf(session.step);
		const step = change.step ?? STEPS[Math.min(cur + 1, STEPS.length - 1)];
		let data: SessionData;
		if (change.data !== undefined) data = { ...change.data };
		else {
			data = { ...session.data };
			const i = STEPS.indexOf(step);
			if (i >= 1 && data.address === undefined) data.address = makeAddress(this.rng).address;
			if (i >= 2 && data.serviceIds === undefined) {
				const services = formServiceIds(ws, this.formOf(ws, session.form_id));
				data.serviceIds = services.length ? this.rng.some(services, 1, 2) : [];
			}
			if (i >= 3 && data.scheduledDate === undefined) data.scheduledDate = dateOnly(this.clock.now() + this.rng.int(1, 10) * 86_400_000);
		}
		session.step = step;
		session.data = data;
		session.updated_at = iso(this.stamp(session.created_at, session.updated_at));
		this.wrote(session);
		return session;
	}

	/** The customer submits: a new request from the draft; the session gets request_id and a new updated_at. */
	completeSession(id: string): { session: Session; request: BookingRequest } {
		const { ws, session } = this.findSession(id);
		if (session.request_id !== null) throw new Error(`session ${id} is already completed`);
		const form = this.formOf(ws, session.form_id);
		const d = session.data;
		const gen = makePerson(this.rng);
		const c = d.contact ?? {};
		const addr = makeAddress(this.rng);
		const t = this.stamp(session.created_at, session.updated_at);
		const request = makeRequest(
			this.rng,
			{ ws, form, profileId: routeProfile(this.rng, ws, form) },
			{
				createdAt: t,
				fresh: true,
				person: { first: c.firstname ?? gen.first, last: c.lastname ?? gen.last, email: c.email ?? gen.email, phone: c.phone ?? gen.phone },
				address: { ...addr, address: typeof d.address === 'string' ? d.address : addr.address, zip: typeof d.zip === 'string' ? d.zip : addr.zip },
				serviceIds: Array.isArray(d.serviceIds) ? d.serviceIds.filter((x): x is string => typeof x === 'string') : undefined,
				scheduledDate: typeof d.scheduledDate === 'string' ? d.scheduledDate : undefined,
				source: session.source,
				attribution: requestAttributionFrom(session.attribution, session.source),
			},
		);
		ws.requests.push(request);
		session.request_id = request.id;
		// one commit in the contract's words, two rows here: with a commit lag each has its own stamp
		if (this.choiceSet.completionTouchesSession) session.updated_at = iso(this.lag.none ? t : this.stamp(session.created_at, session.updated_at));
		this.wrote(request, session);
		return { session, request };
	}

	/** A booking completed without any saved draft: a new request and a placeholder session (step confirm, data {}). */
	bookWithoutDraft(input: BookWithoutDraftInput = {}): { session: Session; request: BookingRequest } {
		const ws = this.workspace(input.key);
		const form = this.formOf(ws, input.formId);
		const t = this.stamp();
		// `contact`: the same customer as a draft of theirs (bookings made without a draft count).
		const gen = makePerson(this.rng);
		const c = input.contact;
		const person = c ? { first: c.firstname ?? gen.first, last: c.lastname ?? gen.last, email: c.email ?? gen.email, phone: c.phone ?? gen.phone } : undefined;
		const request = makeRequest(this.rng, { ws, form, profileId: routeProfile(this.rng, ws, form) }, { createdAt: t, fresh: true, ...(person ? { person } : {}) });
		ws.requests.push(request);
		const placed = this.lag.none ? t : this.stamp();
		const session: Session = {
			id: this.rng.uuid(),
			form_id: form.id,
			step: 'confirm',
			data: {},
			attribution: null,
			source: request.source,
			request_id: request.id,
			created_at: iso(placed),
			updated_at: iso(placed),
		};
		ws.sessions.push(session);
		this.wrote(request, session);
		return { session, request };
	}

	/**
	 * Customers who left a booking unfinished `minutesAgo` minutes ago (one draft each, with an e-mail,
	 * at a step past the contact step, three in four with a utm_source): demo data (SandboxOptions.recent). The drafts are stamped as if
	 * the clock had been that far back; the clock is as it was afterwards.
	 */
	leftRecently(minutesAgo: number[], at: number, key?: string): Session[] {
		const drafts: Session[] = [];
		for (const [i, minutes] of [...minutesAgo].sort((a, b) => b - a).entries()) {
			this.clock.standingAt(at - minutes * 60_000, () => {
				const session = this.startSession({ key, attribution: recentAttribution(i) });
				drafts.push(this.saveSession(session.id, { step: this.rng.pick(STEPS.slice(1)) }));
			});
		}
		return drafts;
	}

	/** A new request (fresh submission at the clock's time) with any fields overridden by `input`. */
	addRequest(input: Partial<BookingRequest> & { key?: string } = {}): BookingRequest {
		const { key, ...fields } = input;
		const ws = this.workspace(key);
		const form = ws.forms.find((f) => f.id === fields.form_id) ?? this.formOf(ws);
		if (fields.created_at !== undefined) this.version++;
		const created = fields.created_at !== undefined ? Date.parse(fields.created_at) : this.stamp();
		const request = makeRequest(
			this.rng,
			{ ws, form, profileId: fields.business_profile_id ?? routeProfile(this.rng, ws, form) },
			{ createdAt: Number.isFinite(created) ? created : this.stamp(), fresh: true },
		);
		const target = request as unknown as Record<string, unknown>;
		for (const [k, v] of Object.entries(fields)) {
			// a misspelt field is refused, not dropped: the caller would believe it was set
			if (!(k in target)) throw new Error(`addRequest: ${k} is not a field of a request`);
			if (v !== undefined) target[k] = v;
		}
		// a fresh submission is complete; a request given another status has no completion (as seeded)
		// unless the caller gives one
		if (request.status !== 'complete' && fields.completed_at === undefined) request.completed_at = null;
		ws.requests.push(request);
		this.wrote(request);
		return request;
	}

	/**
	 * The workspace changes a request (types.ts RequestChange). Its place in the list (by `created_at`)
	 * does not move. Unknown fields in `change` are refused, so a test cannot think it changed one.
	 */
	updateRequest(id: string, change: RequestChange): BookingRequest {
		const request = this.findRequest(id);
		const allowed = new Set(['status', 'lead_status', 'internal_notes', 'completed_at', 'first_name', 'last_name', 'email', 'phone', 'updatedAt']);
		for (const key of Object.keys(change)) if (!allowed.has(key)) throw new Error(`updateRequest: ${key} cannot be changed`);
		const t = this.stamp(request.created_at, request.updated_at);
		for (const key of ['status', 'lead_status', 'first_name', 'last_name', 'email', 'phone'] as const) {
			const value = change[key];
			if (value === undefined) continue;
			if (typeof value !== 'string') throw new Error(`updateRequest: ${key} must be a string`);
			request[key] = value;
		}
		if (change.internal_notes !== undefined) {
			if (change.internal_notes !== null && typeof change.internal_notes !== 'string') throw new Error('updateRequest: internal_notes must be a string or null');
			request.internal_notes = change.internal_notes;
		}
		if (change.completed_at !== undefined) {
			if (change.completed_at === 'now') request.completed_at = iso(t);
			else if (change.completed_at === null || !Number.isNaN(Date.parse(change.completed_at))) request.completed_at = change.completed_at;
			else throw new Error('updateRequest: completed_at must be a timestamp, "now" or null');
		}
		const mode = change.updatedAt ?? 'now';
		if (mode === 'now') request.updated_at = iso(t);
		else if (mode === 'null') request.updated_at = null;
		else if (mode !== 'keep') throw new Error('updateRequest: updatedAt must be "now", "null" or "keep"');
		return request;
	}

	/** Sandbox.deleteRequest: the request leaves its workspace's list; Get request then answers 404. */
	deleteRequest(id: string): BookingRequest {
		for (const ws of [this.demo, this.other]) {
			const index = ws.requests.findIndex((r) => r.id === id.toLowerCase());
			if (index >= 0) {
				this.version++;
				return ws.requests.splice(index, 1)[0];
			}
		}
		throw new Error(`unknown request ${id}`);
	}

	findRequest(id: string): BookingRequest {
		for (const ws of [this.demo, this.other]) {
			const request = ws.requests.find((r) => r.id === id.toLowerCase());
			if (request) return request;
		}
		throw new Error(`unknown request ${id}`);
	}

	/** Active customers: `n` random sessions (abandoned ones when there are any) get a widget save. */
	churn(ws: Workspace, n: number): Session[] {
		const open = ws.sessions.filter((s) => s.request_id === null);
		const pool = open.length ? open : ws.sessions;
		const out: Session[] = [];
		for (let i = 0; i < n && pool.length; i++) out.push(this.saveSession(this.rng.pick(pool).id));
		return out;
	}
}
