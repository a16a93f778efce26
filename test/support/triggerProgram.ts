/**
 * Programs of steps over the trigger's test world (triggerWorld.ts), run through the trigger's real
 * poll loop (poll/engine.ts `pollChanges`), with a history that the oracle (triggerOracle.ts) reads.
 *
 * A program is data (JSON-safe), so fast-check can generate and shrink it and a failure can be kept as
 * a literal regression test. Steps: customers start drafts (several in one millisecond, with or
 * without e-mail/phone, on two forms), save them again (adding an e-mail), complete older or newer
 * drafts, book without a draft, create requests (several in one millisecond), change requests (status,
 * lead status, notes, completion, contact; `updated_at` set, null or kept), the clock ticks and jumps,
 * and any write may be committed late (`late`: stamped up to EDGE_WINDOW_MS before it becomes visible,
 * never at or before what it follows, as the sandbox's `commitLagMs` does; a booking's request and its
 * session each with their own lag),
 * n8n's clock jumps against the API's, and polls: cut by a call budget, with activity between their
 * page reads, their save dropped by n8n, or the saved state rolled back to an older one.
 *
 * The driver only drives: it passes the saved state from poll to poll (through JSON, as n8n keeps
 * workflow static data; the trigger under test reads it as the node does) and records what the world did and what each poll
 * emitted. It never looks inside the state.
 */
import { listsFor } from '../../nodes/BookingRequestsTrigger/events';
import type { TriggerEvent } from '../../nodes/BookingRequestsTrigger/events';
import type { ListItem } from '../../nodes/BookingRequestsTrigger/model/pages';
import type { TriggerSettings } from '../../nodes/BookingRequestsTrigger/events';
import type { Budget } from '../../nodes/BookingRequestsTrigger/poll/budget';
import type { PollOptions } from '../../nodes/BookingRequestsTrigger/poll/engine';
import type { PageSource } from '../../nodes/BookingRequestsTrigger/poll/source';
import { readState } from '../../nodes/BookingRequestsTrigger/state/codec';
import type { PageRead } from '../../nodes/shared/transport/pageReader';
import type { BookingRequest, BookingSession } from '../../nodes/shared/types';
import { FORM_A, MIN, World, iso, makeRequest, makeSession, pollState, resetIds } from './triggerWorld';

/** The trigger a program drives: one poll from the saved state (as JSON, like workflow static data) to its events and the state it writes. */
export interface TriggerUnderTest {
	poll(source: PageSource, saved: unknown, settings: TriggerSettings, options: PollOptions): Promise<{ events: TriggerEvent[]; cut: boolean; state: unknown }>;
}

/** The trigger as it polls: the state read and decoded once (an unreadable one is a new baseline), written once. */
export const DECODING_TRIGGER: TriggerUnderTest = {
	async poll(source, saved, settings, options) {
		const previous = saved === undefined ? undefined : readState(saved, { fingerprint: settings.fingerprint, lists: listsFor(settings) });
		const { events, cut, state } = await pollState(source, previous, settings, options);
		return { events, cut, state };
	},
};

export const FORM_B = 'bbbbbbbb-0000-4bbb-8bbb-bbbbbbbbbbbb';
export const FORMS = [FORM_A, FORM_B] as const;
export const DAY = 86_400_000;

/** What a draft's contact step holds. */
export type ContactKind = 'both' | 'email' | 'phone' | 'none';

export interface RequestChangeSpec {
	status?: string;
	lead_status?: string;
	/** New notes text (null: cleared). */
	notes?: string | null;
	/** true: completed now; false: completion cleared. */
	completed?: boolean;
	first_name?: string;
	/** Writes the customer's e-mail in its other spelling (case and spaces), the same customer. */
	emailSpelling?: boolean;
}

/**
 * A write committed late: stamped `late` ms before it becomes visible (0 to EDGE_WINDOW_MS; absent: 0,
 * stamped when visible, after every stamp before it); `lateRequest` the same for a booking's request.
 */
export interface Late {
	late?: number;
}

/** Something the world does (between polls, or between two page reads of a poll). */
export type Activity =
	/** `n` drafts (in one millisecond when n > 1) of customer `c` (0..) on form `form`. */
	| ({ k: 'start'; c: number; form: 0 | 1; contact: ContactKind; n?: number; spelling?: boolean } & Late)
	/** The open draft `s` (an index into the open drafts, oldest first, modulo) saved again; `addEmail`: with an e-mail now. */
	| ({ k: 'save'; s: number; addEmail?: boolean } & Late)
	/** An open draft completed: `s` counted from the oldest (`from: 'old'`) or the newest open draft. */
	| ({ k: 'complete'; s: number; from: 'old' | 'new'; lateRequest?: number } & Late)
	/** A booking without a saved draft (placeholder session) by customer `c`. */
	| ({ k: 'book'; c: number; form: 0 | 1; lateRequest?: number } & Late)
	/** `n` requests by customer `c` (in one millisecond when `sameMs`). */
	| ({ k: 'request'; c: number; form: 0 | 1; n?: number; sameMs?: boolean } & Late)
	/** The request `r` (counted from the newest, modulo) changed. */
	| { k: 'change'; r: number; change: RequestChangeSpec; updatedAt: 'now' | 'null' | 'keep' }
	| { k: 'tick'; ms: number };

export type Step =
	| Activity
	/** A clock jump of the world (the API's clock and everyone's activity), forward. */
	| { k: 'jump'; ms: number }
	/** n8n's clock jumps: from now on it differs from the API's by `ms`. */
	| { k: 'skew'; ms: number }
	/**
	 * A poll. `budget`: calls it may make (null: unlimited). `save`: 'drop' = n8n does not save the
	 * state it returns (the next poll starts from the older one). `churn`: activity before page read
	 * number `at` (0-based) of this poll.
	 */
	| { k: 'poll'; budget: number | null; save?: 'keep' | 'drop'; churn?: Array<{ at: number; act: Activity }> }
	/** The saved state is rolled back by `back` saves (a restored backup); never past the baseline. */
	| { k: 'rollback'; back: number };

export interface FuzzSettings {
	trigger: TriggerSettings;
	/** The model's page size (small sizes make few items span many pages). */
	perPage: number;
	/** Include Booking Request (every completion gets its booking request). */
	includeRequest: boolean;
	/** The node's Form filter (the session list, and the request list unless Skip Customers Who Booked reads every form). */
	form?: string;
	/** Call budget of the polls after the program, while the world is quiet (null: unlimited). */
	drainBudget: number | null;
}

export interface Program {
	settings: FuzzSettings;
	/** Activity before activation (history the first poll must not report). */
	before: Activity[];
	steps: Step[];
}

// ---------------------------------------------------------------- the history the oracle reads

/** An idle period of an open draft: from its activity `a` until the change at `endSeq` (Infinity: still idle). */
export interface Period {
	a: number;
	startSeq: number;
	endSeq: number;
	/** The draft holds an e-mail (with "@") during this period. */
	hasEmail: boolean;
	/** The customer (generator's index) the draft identifies by e-mail or phone; null: none (judged alone). */
	customer: number | null;
	/** Its e-mail and phone as keys (README "The same customer"): two customers are the same when a key is shared. */
	keys: string[];
}

export interface SessionHistory {
	id: string;
	form: string;
	createdAt: number;
	createdSeq: number;
	placeholder: boolean;
	periods: Period[];
	completed?: { seq: number; at: number; requestId: string };
}

/** The watched fields of a request, plus `updated_at`, as one version in its history. */
export interface RequestVersion {
	seq: number;
	status: string | null;
	lead_status: string | null;
	internal_notes: string | null;
	completed_at: string | null;
	first_name: string | null;
	last_name: string | null;
	email: string | null;
	phone: string | null;
	updated_at: string | null;
}

export interface RequestHistory {
	id: string;
	form: string;
	createdAt: number;
	seq: number;
	/** The customer it identifies (null: a request without e-mail and phone). */
	customer: number | null;
	/** Its e-mail and phone as keys (see Period). */
	keys: string[];
	/** From a draft's completion (`session`) or a booking without a draft (placeholder `session`). */
	session?: string;
	versions: RequestVersion[];
}

export interface PollRecord {
	index: number;
	baseline: boolean;
	budget: number | null;
	/** History sequence numbers: activity with seq <= startSeq happened before the poll, > endSeq after it. */
	startSeq: number;
	endSeq: number;
	/** The API's clock at the poll's first page read, and at its end. */
	startNow: number;
	endNow: number;
	/** The poll's save was dropped, or its state rolled back later: not on the kept timeline. */
	kept: boolean;
	drain: boolean;
	events: TriggerEvent[];
	/** The poll said it could not read or emit everything (PollResult.cut); used only to stop draining. */
	cut: boolean;
	calls: number;
}

export interface Run {
	sessions: Map<string, SessionHistory>;
	requests: Map<string, RequestHistory>;
	polls: PollRecord[];
	/** The drain reached quiet polls (no events, nothing left) within its limit. */
	drained: boolean;
	/** Drain polls after the program. */
	drainPolls: number;
}

export const VERSION_FIELDS = ['status', 'lead_status', 'internal_notes', 'completed_at', 'first_name', 'last_name', 'email', 'phone', 'updated_at'] as const;

export function versionOf(request: BookingRequest, seq: number): RequestVersion {
	const version = { seq } as RequestVersion;
	const record = request as unknown as Record<string, unknown>;
	for (const field of VERSION_FIELDS) (version as unknown as Record<string, unknown>)[field] = (record[field] as string | null | undefined) ?? null;
	return version;
}

// ---------------------------------------------------------------- customers

export function emailOf(c: number, spelling = false): string {
	return spelling ? `  Customer${c}@Example.COM ` : `customer${c}@example.com`;
}
export function draftPhoneOf(c: number): string {
	return `(512) 555-${String(1000 + c).slice(-4)}`;
}
export function requestPhoneOf(c: number): string {
	return `+1512555${String(1000 + c).slice(-4)}`;
}

/**
 * README "The same customer": the e-mail with spaces trimmed and case ignored; the phone as the digits
 * of its international form (10 digits without a country code are North American). Enough for the
 * values this generator writes.
 */
export function customerKeys(email: string | null | undefined, phone: string | null | undefined): string[] {
	const keys: string[] = [];
	if (email && email.includes('@')) keys.push(`e:${email.trim().toLowerCase()}`);
	const digits = (phone ?? '').replace(/\D/g, '');
	if (digits.length >= 7) keys.push(`p:${digits.length === 10 ? `1${digits}` : digits}`);
	return keys;
}

function draftData(c: number, contact: ContactKind, spelling: boolean): BookingSession['data'] {
	const email = contact === 'both' || contact === 'email' ? emailOf(c, spelling) : null;
	const phone = contact === 'both' || contact === 'phone' ? draftPhoneOf(c) : null;
	return { contact: { firstname: 'Ada', email, phone } };
}

function draftContactOf(session: BookingSession): { email: string | null; phone: string | null } {
	const contact = ((session.data as { contact?: { email?: string | null; phone?: string | null } } | null)?.contact ?? {}) as {
		email?: string | null;
		phone?: string | null;
	};
	return { email: contact.email ?? null, phone: contact.phone ?? null };
}

// ---------------------------------------------------------------- the driver

export class ProgramRunner {
	readonly world = new World();
	readonly sessions = new Map<string, SessionHistory>();
	readonly requests = new Map<string, RequestHistory>();
	/** Customer (generator's index) of each draft, while it has e-mail or phone. */
	private readonly customerOf = new Map<string, number>();
	readonly polls: PollRecord[] = [];
	seq = 0;
	skew = 0;
	/** The kept states, newest last, with the poll that saved each. */
	private readonly saved: Array<{ state: unknown; poll: number }> = [];

	/** The settings polls run with (a differential program may change them between polls). */
	settings: FuzzSettings;

	constructor(
		readonly program: Program,
		protected readonly trigger: TriggerUnderTest = DECODING_TRIGGER,
	) {
		this.world.now = Date.UTC(2026, 10, 1, 12, 0, 0);
		this.settings = program.settings;
	}

	private open(): BookingSession[] {
		return this.world.sessions.filter((session) => session.request_id === null).sort((a, b) => (a.created_at! < b.created_at! ? -1 : a.created_at! > b.created_at! ? 1 : a.id < b.id ? -1 : 1));
	}

	private openPeriod(session: BookingSession): void {
		const history = this.sessions.get(session.id)!;
		const contact = draftContactOf(session);
		const customer = contact.email || contact.phone ? (this.customerOf.get(session.id) ?? null) : null;
		history.periods.push({
			a: Date.parse(session.updated_at!),
			startSeq: this.seq,
			endSeq: Infinity,
			hasEmail: contact.email !== null && contact.email.includes('@'),
			customer,
			keys: customerKeys(contact.email, contact.phone),
		});
	}

	private closePeriod(id: string): void {
		const periods = this.sessions.get(id)!.periods;
		if (periods.length > 0) periods[periods.length - 1].endSeq = this.seq;
	}

	private addRequest(request: BookingRequest, customer: number | null, session?: string): void {
		this.world.requests.push(request);
		this.requests.set(request.id, {
			id: request.id,
			form: request.form_id as string,
			createdAt: Date.parse(request.created_at!),
			seq: this.seq,
			customer,
			keys: customerKeys(request.email, request.phone),
			session,
			versions: [versionOf(request, this.seq)],
		});
	}

	act(step: Activity): void {
		const world = this.world;
		switch (step.k) {
			case 'tick':
				world.advance(step.ms);
				return;
			case 'start': {
				this.seq++;
				const t = iso(world.stamp(step.late));
				for (let i = 0; i < (step.n ?? 1); i++) {
					const session = makeSession({ form_id: FORMS[step.form], created_at: t, updated_at: t, data: draftData(step.c, step.contact, step.spelling ?? false) });
					world.sessions.push(session);
					this.sessions.set(session.id, { id: session.id, form: FORMS[step.form], createdAt: Date.parse(t), createdSeq: this.seq, placeholder: false, periods: [] });
					if (step.contact !== 'none') this.customerOf.set(session.id, step.c);
					this.openPeriod(session);
				}
				return;
			}
			case 'save': {
				const open = this.open();
				if (open.length === 0) return;
				const session = open[step.s % open.length];
				this.seq++;
				this.closePeriod(session.id);
				const contact = draftContactOf(session);
				if (step.addEmail && !contact.email) {
					const c = this.customerOf.get(session.id) ?? 900 + (this.seq % 50);
					this.customerOf.set(session.id, c);
					session.data = { contact: { firstname: 'Ada', email: emailOf(c), phone: contact.phone } };
				}
				session.step = 'schedule';
				session.updated_at = iso(world.stamp(step.late, Date.parse(session.updated_at!)));
				this.openPeriod(session);
				return;
			}
			case 'complete': {
				const open = this.open();
				if (open.length === 0) return;
				const session = step.from === 'old' ? open[step.s % open.length] : open[open.length - 1 - (step.s % open.length)];
				this.seq++;
				this.closePeriod(session.id);
				// One commit in the contract's words, two rows: each stamped with its own lag, both after the draft.
				const draftAt = Date.parse(session.updated_at!);
				const t = world.stamp(step.late, draftAt);
				const requestAt = step.late || step.lateRequest ? world.stamp(step.lateRequest, draftAt) : t;
				const contact = draftContactOf(session);
				const request = makeRequest({ created_at: iso(requestAt), form_id: session.form_id, email: contact.email ?? '', phone: contact.phone ?? '' });
				const customer = contact.email || contact.phone ? (this.customerOf.get(session.id) ?? null) : null;
				this.addRequest(request, customer, session.id);
				session.request_id = request.id;
				session.updated_at = iso(t);
				this.sessions.get(session.id)!.completed = { seq: this.seq, at: t, requestId: request.id };
				return;
			}
			case 'book': {
				this.seq++;
				const t = world.stamp(step.late);
				const requestAt = step.late || step.lateRequest ? world.stamp(step.lateRequest) : t;
				const request = makeRequest({ created_at: iso(requestAt), form_id: FORMS[step.form], email: emailOf(step.c), phone: requestPhoneOf(step.c) });
				const session = makeSession({ form_id: FORMS[step.form], step: 'confirm', data: {}, request_id: request.id, created_at: iso(t), updated_at: iso(t) });
				world.sessions.push(session);
				this.sessions.set(session.id, { id: session.id, form: FORMS[step.form], createdAt: t, createdSeq: this.seq, placeholder: true, periods: [], completed: { seq: this.seq, at: t, requestId: request.id } });
				this.addRequest(request, step.c, session.id);
				return;
			}
			case 'request': {
				this.seq++;
				const same = step.sameMs ? world.stamp(step.late) : undefined;
				for (let i = 0; i < (step.n ?? 1); i++) {
					const t = same ?? world.stamp(step.late);
					this.addRequest(makeRequest({ created_at: iso(t), form_id: FORMS[step.form], email: emailOf(step.c), phone: requestPhoneOf(step.c) }), step.c);
				}
				return;
			}
			case 'change': {
				const all = world.sortedRequests();
				if (all.length === 0) return;
				const request = all[step.r % all.length];
				const history = this.requests.get(request.id)!;
				this.seq++;
				const spec = step.change;
				const change: Partial<BookingRequest> = {};
				if (spec.status !== undefined) change.status = spec.status;
				if (spec.lead_status !== undefined) change.lead_status = spec.lead_status;
				if (spec.notes !== undefined) change.internal_notes = spec.notes;
				if (spec.completed !== undefined) change.completed_at = spec.completed ? iso(world.now) : null;
				if (spec.first_name !== undefined) change.first_name = spec.first_name;
				if (spec.emailSpelling && history.customer !== null && request.email) {
					change.email = request.email === emailOf(history.customer) ? emailOf(history.customer, true) : emailOf(history.customer);
				}
				world.changeRequest(request, change, step.updatedAt);
				history.versions.push(versionOf(request, this.seq));
				return;
			}
		}
	}

	/** The model as the node's API source: the Form filter on the session list, and on the request list unless it is read for every form. */
	protected source(count: { calls: number; startNow?: number }, limit: number, churn: Array<{ at: number; act: Activity }>): PageSource {
		const { settings } = this;
		const perPage = settings.perPage;
		const form = settings.form;
		const requestsForm = settings.trigger.requestsForm !== undefined ? undefined : form;
		const beforeCall = () => {
			for (const entry of churn) if (entry.at === count.calls) this.act(entry.act);
			if (count.startNow === undefined) count.startNow = this.world.now;
			count.calls++;
		};
		return {
			readPage: async (list, page): Promise<PageRead<ListItem> | undefined> => {
				if (count.calls >= limit) return undefined;
				beforeCall();
				const all: ListItem[] =
					list === 'sessions'
						? this.world.sortedSessions().filter((session) => form === undefined || session.form_id === form)
						: this.world.sortedRequests().filter((request) => requestsForm === undefined || request.form_id === requestsForm);
				const items = all.slice((page - 1) * perPage, page * perPage).map((item) => structuredClone(item));
				return { page, items, perPage, total: all.length, serverDate: this.world.now };
			},
			fetchRequest: async (id) => {
				if (count.calls >= limit) return undefined;
				beforeCall();
				const request = this.world.requests.find((candidate) => candidate.id === id);
				return request ? structuredClone(request) : null;
			},
		};
	}

	async poll(options: { budget: number | null; save?: 'keep' | 'drop'; churn?: Array<{ at: number; act: Activity }>; baseline?: boolean; drain?: boolean }): Promise<PollRecord> {
		const { settings } = this;
		const startSeq = this.seq;
		const count: { calls: number; startNow?: number } = { calls: 0 };
		const limit = options.budget ?? Infinity;
		const budget: Budget = { left: () => Math.max(0, limit - count.calls), answered: () => undefined };
		const top = this.saved[this.saved.length - 1];
		const result = await this.trigger.poll(this.source(count, limit, options.churn ?? []), top ? JSON.parse(JSON.stringify(top.state)) : undefined, settings.trigger, {
			budget,
			needsRequest: settings.includeRequest ? () => true : undefined,
			localNow: () => this.world.now + this.skew,
		});
		const record: PollRecord = {
			index: this.polls.length,
			baseline: options.baseline === true,
			budget: options.budget,
			startSeq,
			endSeq: this.seq,
			startNow: count.startNow ?? this.world.now,
			endNow: this.world.now,
			kept: false,
			drain: options.drain === true,
			events: structuredClone(result.events),
			cut: result.cut,
			calls: count.calls,
		};
		this.polls.push(record);
		if (result.state && options.save !== 'drop') {
			this.saved.push({ state: JSON.parse(JSON.stringify(result.state)), poll: record.index });
		}
		return record;
	}

	rollback(back: number): void {
		const keep = Math.max(1, this.saved.length - back);
		this.saved.length = Math.min(this.saved.length, keep);
	}

	/** One step of the program. */
	protected async step(step: Step): Promise<void> {
		if (step.k === 'poll') await this.poll(step);
		else if (step.k === 'rollback') this.rollback(step.back);
		else if (step.k === 'jump') this.world.advance(step.ms);
		else if (step.k === 'skew') this.skew = step.ms;
		else this.act(step);
	}

	async run(): Promise<Run> {
		for (const step of this.program.before) this.act(step);
		// Activation: the baseline poll, unlimited and quiet while it reads.
		await this.poll({ budget: null, baseline: true });
		for (const step of this.program.steps) await this.step(step);
		const { settings } = this;
		// The world goes quiet: the clock passes every delay, and polls run until enough of them are quiet
		// (Request Updated re-reads older pages of its range in rotation: up to 10 extra pages a poll).
		this.world.advance(settings.trigger.abandonedAfterMs + 10 * MIN);
		const watchedPages = settings.trigger.updates ? Math.ceil(Math.min(settings.trigger.updates.watchNewest, Math.max(1, this.world.requests.length)) / settings.perPage) : 1;
		const quietNeeded = Math.ceil(watchedPages / 10) + 2;
		let drained = false;
		let drainPolls = 0;
		for (const budget of [settings.drainBudget, null]) {
			let quiet = 0;
			for (let i = 0; i < 150 && quiet < quietNeeded; i++) {
				const poll = await this.poll({ budget, drain: true });
				drainPolls++;
				quiet = poll.events.length === 0 && !poll.cut ? quiet + 1 : 0;
				this.world.advance(MIN);
			}
			drained = quiet >= quietNeeded;
		}
		const keptPolls = new Set(this.saved.map((entry) => entry.poll));
		for (const poll of this.polls) poll.kept = keptPolls.has(poll.index);
		return { sessions: this.sessions, requests: this.requests, polls: this.polls, drained, drainPolls };
	}
}

/** Runs a program (ids are drawn afresh for each run, so a program always meets the same ids). */
export async function runProgram(program: Program): Promise<Run> {
	resetIds();
	return await new ProgramRunner(program).run();
}
