// Types of the sandbox: the API resources exactly as the contract's tables
// (shared/api, "Resources and their fields"), plus the sandbox's own options and interfaces.
// Field order in these interfaces is the order the contract lists them, and the order the
// sandbox serialises them in.

import type { ChoicesInput, ListName, SandboxChoices } from './choices';

/** Element of a request's `intake_responses`. */
export interface IntakeResponse {
	question_id: string;
	scope: string;
	scope_ref_id: string;
	scope_ref_name: string;
	type: string;
	question: string;
	options: string[];
	required: boolean;
	answer: string;
}

/** Element of a request's `preferred_times`. */
export interface PreferredTime {
	/** Calendar date `YYYY-MM-DD`. */
	date: string;
	/** Named time-of-day slot. */
	slot: string;
}

/** A request's `attribution`: may carry only some of these keys. */
export interface RequestAttribution {
	source?: string;
	page_url?: string;
	referrer?: string;
	utm_source?: string;
	utm_medium?: string;
}

/** Booking request, as returned by Get request and List requests. */
export interface BookingRequest {
	id: string;
	form_id: string;
	business_profile_id: string;
	first_name: string;
	last_name: string;
	email: string;
	phone: string;
	company: string | null;
	address: string;
	address_2: string | null;
	city: string;
	state: string;
	zip: string;
	country: string;
	source: string | null;
	status: string;
	lead_status: string;
	selected_services: string[];
	preferred_times: PreferredTime[];
	intake_responses: IntakeResponse[];
	attribution: RequestAttribution | null;
	entrance_info: string | null;
	internal_notes: string | null;
	created_at: string;
	updated_at: string | null;
	completed_at: string | null;
}

export interface SessionContact {
	firstname?: string;
	lastname?: string;
	email?: string;
	phone?: string;
}

/** A session's saved draft. Its shape follows the widget; the keys below are the ones seen. */
export interface SessionData {
	zip?: string;
	serviceIds?: string[];
	contact?: SessionContact;
	address?: string;
	scheduledDate?: string;
	[key: string]: unknown;
}

/** Booking session (abandoned or completed draft), as returned by List abandoned sessions. */
export interface Session {
	id: string;
	form_id: string;
	step: string;
	data: SessionData;
	attribution: Record<string, string> | null;
	source: string | null;
	request_id: string | null;
	created_at: string | null;
	updated_at: string | null;
}

/** Booking form, as returned by List forms. */
export interface Form {
	id: string;
	name: string;
	is_default: boolean;
	locations: string | null;
	service_template_id: string | null;
	service_area_id: string | null;
	service_schedule_id: string | null;
	settings_branding: Record<string, unknown> | null;
	settings_contact_form: Record<string, unknown> | null;
	settings_content: Record<string, unknown> | null;
	settings_general: Record<string, unknown> | null;
	created_at: string | null;
	updated_at: string | null;
}

/** Business profile (location), as returned by List business profiles. */
export interface BusinessProfile {
	id: string;
	title: string;
	form_id: string;
	service_area_id: string;
	service_template_id: string;
	service_schedule_id: string;
	primary_phone: string;
	website_url: string;
	address: string;
	address_city: string;
	address_state: string;
	is_default: boolean;
	source: string;
	reserve_with_partner: boolean;
	created_at: string;
	updated_at: string;
}

/** A service of a service template (not an API resource: its ids appear in `selected_services`). */
export interface Service {
	id: string;
	name: string;
	template_id: string;
}

/** An intake question of a form (not an API resource: it feeds `intake_responses`). */
export interface IntakeQuestion {
	id: string;
	form_id: string;
	scope: 'form' | 'service';
	scope_ref_id: string;
	scope_ref_name: string;
	type: string;
	question: string;
	options: string[];
	required: boolean;
}

/**
 * One workspace's live data. The arrays are the sandbox's own storage (not copies): the API reads
 * them on every call, and tests may read them to compute expected answers. Array order is insertion
 * order, not API order.
 */
export interface Workspace {
	id: string;
	name: string;
	forms: Form[];
	/** Live profiles (returned by the API). */
	profiles: BusinessProfile[];
	/** Deleted profiles: never returned by the API, but some older requests still point at them. */
	deletedProfiles: BusinessProfile[];
	requests: BookingRequest[];
	sessions: Session[];
	services: Service[];
	questions: IntakeQuestion[];
}

export interface SandboxSizes {
	requests?: number;
	sessions?: number;
	forms?: number;
	profiles?: number;
}

export interface SandboxOptions {
	/** 0 = a free port (default 0). */
	port?: number;
	/** Default 127.0.0.1. */
	host?: string;
	/** PRNG seed of the data set and keys (default 42). Same seed, same data, same ids, same keys. */
	seed?: number;
	/** Sizes of the demo workspace: requests 260, sessions 320, forms 4, profiles 6. */
	sizes?: SandboxSizes;
	/** Enforce the 1 request per second per key limit (default true). */
	rateLimit?: boolean;
	/** Minimum gap between accepted requests of one key, in ms (default 1000). */
	minGapMs?: number;
	/**
	 * Network latency before the rate check, in ms: a constant or a range [min, max] (uniform, drawn per
	 * request from the seeded generator). Each API request is held this long before it is logged,
	 * authenticated and rate checked, so a client's round trip includes it and the log's `at` is the
	 * moment the request "arrives". Default none. Unlike `faults.latencyMs` (an answer delay after the
	 * rate check).
	 */
	latencyMs?: Latency;
	/**
	 * The clock of arrival times (ms): what the rate limiter decides on and the log's `at` records.
	 * Default the performance clock (performance.timeOrigin + performance.now()). A test may give a
	 * simulated one, set before each request, so that the limiter's decisions do not depend on when the
	 * machine ran a line.
	 */
	arrivalClock?: () => number;
	/** No console output (the sandbox prints nothing by itself anyway; kept for the CLI). */
	quiet?: boolean;
	/**
	 * Demo data that looks like today (the demo, `npm run sandbox -- --recent`): the seeded data moved in
	 * time so that its range ends a few minutes before the sandbox starts (every timestamp by the same
	 * amount: seed.ts shiftWorkspace), and a few customers who left a booking unfinished in the last hours
	 * (RECENT_DRAFTS_MINUTES_AGO). Default off: the fixed range 2026-01-01 .. 2026-10-31 UTC the tests rely on.
	 */
	recent?: boolean;
	/**
	 * A file where the sandbox keeps its data and clock between runs (the demo keeps it beside its n8n,
	 * whose published triggers remember that data). When it exists the sandbox goes on from it instead
	 * of seeding (its seed wins over `seed`; `sizes` and `recent` are not used): the same rows, no id made
	 * twice, a clock that never goes back (state.ts). It is written at start, after each change made
	 * through a control route (before the answer), every 30 s and at close. Default none: fresh data.
	 */
	stateFile?: string;
	/**
	 * Where the contract leaves the server a choice (choices.ts): each setting's default is the unkind
	 * choice (DEFAULT_CHOICES); `'kind'` starts from KIND_CHOICES instead, and an object overrides some.
	 */
	choices?: ChoicesInput | 'kind';
}

/** The rows of each list. */
export interface ListRows {
	requests: BookingRequest[];
	sessions: Session[];
	forms: Form[];
	profiles: BusinessProfile[];
}

/** A network latency: constant ms, or a [min, max] range; null or 0 for none. */
export type Latency = number | [number, number] | null;

export interface RequestLogEntry {
	/**
	 * Arrival time in ms, high resolution (performance.timeOrigin + performance.now()): the moment the
	 * rate check saw the request, i.e. after the network latency (SandboxOptions.latencyMs).
	 */
	at: number;
	method: string;
	path: string;
	query: Record<string, string>;
	/** sha256 hex of the bearer token, first 12 chars; null when no bearer token was sent. */
	keyHash: string | null;
	/** Status answered; 0 while not answered yet, and for a dropped connection. */
	status: number;
	/** Injected fault, when one applied: always429, always500, every429, every500, drop, malformed:<kind>. */
	fault?: string;
	/**
	 * On a rate limiter 429: ms since the key's last accepted request arrived. The sandbox keeps that
	 * arrival across clearLog, so a test's first 429 can be told from the previous test's last call.
	 */
	sinceAcceptedMs?: number;
}

export type MalformedKind =
	| 'html'
	| 'truncated'
	| 'noItems'
	| 'wrongTotal'
	| 'missingTotal'
	| 'oversizedPage'
	| 'duplicateIds'
	| 'wrongTypes'
	| 'errorBody200';

export interface FaultOptions {
	/** Every Nth API request (counted among those that passed auth and the rate limiter) answered 429. */
	every429?: number;
	/** Every Nth such request answered 500 internal_server_error. */
	every500?: number;
	/** Every Nth such request: the socket is destroyed without an answer. */
	dropEvery?: number;
	/**
	 * Answer delay: random [min, max] ms after the rate check, before answering (a slow server). For
	 * network latency before the rate check, see SandboxOptions.latencyMs / Sandbox.setLatency.
	 */
	latencyMs?: [number, number];
	/** Before answering each List abandoned sessions page, N random sessions get a widget save. */
	churnSessionsPerPage?: number;
	/** Applied to list responses (see faults.ts for what each kind does). */
	malformed?: MalformedKind | null;
	/** Apply `malformed` only to every Nth list response (default: all). */
	malformedEvery?: number;
	/** Every request (that passed auth) answers this. */
	always?: 429 | 500;
}

export interface SandboxStats {
	/** Requests of that key that passed the rate limiter (whatever was answered after, faults included). */
	accepted: number;
	/** Requests of that key rejected by the rate limiter (429 rate_limited; injected 429s are not counted here). */
	rateLimited: number;
	/** Requests of that key answered with any other status >= 400 (401, 400, 404, 405, 500, injected 429) or dropped. */
	errors: number;
	/** Minimum gap in ms between consecutive accepted requests of that key; null with fewer than 2. */
	minGapMs: number | null;
}

export interface SandboxKeys {
	/** The demo workspace's key. */
	demo: string;
	/** A second key of the demo workspace, with its own rate budget. */
	second: string;
	/** A revoked key of the demo workspace: always 401. */
	revoked: string;
	/** The key of another workspace with its own small data set. */
	other: string;
}

export interface SandboxClock {
	/** Date.now() + offset. */
	now(): number;
	advance(ms: number): void;
	setOffsetMs(ms: number): void;
}

export interface StartSessionInput {
	formId?: string;
	contact?: SessionContact;
	source?: string | null;
	/** Attribution captured at start (default null). */
	attribution?: Record<string, string> | null;
	key?: string;
}

export interface SaveSessionChange {
	step?: string;
	data?: SessionData;
}

export interface Sandbox {
	/** API base URL, e.g. http://127.0.0.1:40123 (API paths are /api/v1/...). */
	url: string;
	keys: SandboxKeys;
	/** Every API request received (not control routes), in arrival order. */
	log: RequestLogEntry[];
	clearLog(): void;
	/** Stats of one key (default: the demo key). */
	stats(key?: string): SandboxStats;
	/** Replaces the current faults; setFaults({}) clears. */
	setFaults(f: FaultOptions): void;
	/**
	 * Sets the network latency before the rate check (see SandboxOptions.latencyMs); null or 0 removes it.
	 * The draws of a range start again from the seed: runs that each begin with the same setLatency see
	 * the same delays, request by request.
	 */
	setLatency(latency: Latency): void;
	/** The current network latency as [min, max], or null. */
	latency(): [number, number] | null;
	/** The live data of the key's workspace (default: the demo key's). */
	workspace(key?: string): Workspace;
	/** The contract's open choices now in force (choices.ts). */
	choices(): SandboxChoices;
	/** Changes some of them (`'kind'`: all to KIND_CHOICES but `values`); throws on an unknown setting or value. Returns them all. */
	setChoices(input: ChoicesInput | 'kind'): SandboxChoices;
	/** The rows of a list in the order its next read answers them (no filter; the choices and the workspace now). */
	ordered<L extends ListName>(list: L, key?: string): ListRows[L];
	startSession(input?: StartSessionInput): Session;
	saveSession(id: string, change?: SaveSessionChange): Session;
	completeSession(id: string): { session: Session; request: BookingRequest };
	bookWithoutDraft(input?: BookWithoutDraftInput): { session: Session; request: BookingRequest };
	addRequest(input?: Partial<BookingRequest> & { key?: string }): BookingRequest;
	/**
	 * A customer leaves a booking unfinished now (a draft with an e-mail, at the address step): it is
	 * idle from now on, so a published trigger reports it at its first poll once Abandoned After has
	 * passed (in real time: the demo's triggers wait 1 minute). `idleMinutes` (default 0) moves the
	 * sandbox clock on that far at once, for a trigger with a longer Abandoned After; the clock then
	 * stays ahead of real time.
	 */
	abandonNow(input?: StartSessionInput & { idleMinutes?: number }): { session: Session; now: number };
	/** The workspace changes a request (status, lead status, notes, completion, contact): see RequestChange. */
	updateRequest(id: string, change: RequestChange): BookingRequest;
	/**
	 * The request is deleted (the sandbox's own act: the contract has no delete, but a request a session
	 * names can be gone): Get request answers 404 and the list no longer holds it; sessions keep their
	 * `request_id`. Returns the deleted request.
	 */
	deleteRequest(id: string): BookingRequest;
	revokeKey(key: string): void;
	clock: SandboxClock;
	close(): Promise<void>;
}

/**
 * A change the workspace makes to a booking request (the contract names no transitions: any value goes).
 * `completed_at: 'now'` stamps the sandbox clock. `updatedAt`: 'now' (default) sets `updated_at` to the
 * time of the change, 'null' leaves it null (the contract allows null), 'keep' leaves it as it was.
 */
export interface RequestChange {
	status?: string;
	lead_status?: string;
	internal_notes?: string | null;
	completed_at?: string | null;
	first_name?: string;
	last_name?: string;
	email?: string;
	phone?: string;
	updatedAt?: 'now' | 'null' | 'keep';
}

/** A booking made without a saved draft; `contact` makes it the booking of a known customer (as the request holds it). */
export interface BookWithoutDraftInput {
	formId?: string;
	key?: string;
	contact?: { firstname?: string; lastname?: string; email?: string; phone?: string };
}
