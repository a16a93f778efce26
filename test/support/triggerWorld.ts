/**
 * An in-memory model of the API for the trigger's pure tests: sessions ordered by updated_at (nulls
 * last, ties by id descending, like the sandbox), requests by created_at, a clock, and customers who
 * start, save and complete bookings. It serves pages to the trigger's real poll loop (fetch.ts
 * `pollChanges` with the real planner and rules), with hooks that change the data between page reads
 * and a call budget that cuts a poll short. Timestamps are strictly increasing unless a test sets them
 * or a write is committed late (`stamp`).
 */
import { mulberry32 } from '../../sandbox/rng';
import type { PageRead } from '../../nodes/shared/transport/pageReader';
import type { TriggerEvent } from '../../nodes/BookingRequestsTrigger/events';
import type { ListItem, ListName } from '../../nodes/BookingRequestsTrigger/model/pages';
import type { TriggerSettings } from '../../nodes/BookingRequestsTrigger/events';
import type { Budget } from '../../nodes/BookingRequestsTrigger/poll/budget';
import type { PollOptions, PollResult } from '../../nodes/BookingRequestsTrigger/poll/engine';
import { pollChanges } from '../../nodes/BookingRequestsTrigger/poll/engine';
import { eventLetters, listsFor, windowOffsets } from '../../nodes/BookingRequestsTrigger/events';
import type { Forgotten, ReadInput } from '../../nodes/BookingRequestsTrigger/poll/memory';
import { applyChanges, finishPoll, takeMemory } from '../../nodes/BookingRequestsTrigger/poll/memory';
import type { PageSource } from '../../nodes/BookingRequestsTrigger/poll/source';
import { decodeMemory, writeMemory } from '../../nodes/BookingRequestsTrigger/state/codec';
import type { CustomerMemories, TriggerMemory } from '../../nodes/BookingRequestsTrigger/state/decoded';
import type { TriggerState } from '../../nodes/BookingRequestsTrigger/state/format';
import type { BookingRequest, BookingSession } from '../../nodes/shared/types';

export const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);
export const MIN = 60_000;
export const iso = (ms: number): string => new Date(ms).toISOString();

let counter = 0;
/** Ids start again (a program run meets the same ids whatever ran before it in the process). */
export function resetIds(): void {
	counter = 0;
}
/** A UUID-shaped id, unique per call, sortable by creation order. */
export function uuid(): string {
	counter++;
	const hex = counter.toString(16).padStart(12, '0');
	return `00000000-0000-4000-8000-${hex}`;
}

export const FORM_A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

export function makeSession(overrides: Partial<BookingSession> = {}): BookingSession {
	return {
		id: uuid(),
		form_id: FORM_A,
		step: 'address',
		data: { contact: { firstname: 'Ada', email: 'ada@example.com' } },
		attribution: null,
		source: null,
		request_id: null,
		created_at: iso(T0),
		updated_at: iso(T0),
		...overrides,
	};
}

export function makeRequest(overrides: Partial<BookingRequest> = {}): BookingRequest {
	return {
		id: uuid(),
		form_id: FORM_A,
		business_profile_id: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
		first_name: 'Ada',
		last_name: 'Lovelace',
		email: 'ada@example.com',
		phone: '+15550000000',
		company: null,
		address: '1 Main St',
		address_2: null,
		city: 'Springfield',
		state: 'IL',
		zip: '62701',
		country: 'US',
		source: null,
		status: 'complete',
		lead_status: 'new',
		selected_services: [],
		preferred_times: [],
		intake_responses: [],
		attribution: null,
		entrance_info: null,
		internal_notes: null,
		created_at: iso(T0),
		updated_at: null,
		completed_at: null,
		...overrides,
	};
}

export function makeSettings(overrides: Partial<Omit<TriggerSettings, 'events'>> & { events?: Partial<TriggerSettings['events']> } = {}): TriggerSettings {
	const { events, ...rest } = overrides;
	return {
		abandonedAfterMs: 30 * MIN,
		fireAgainIfReabandoned: false,
		onlyRecovered: false,
		fingerprint: 'fp-1',
		...rest,
		events: { sessionAbandoned: true, sessionCompleted: true, requestCreated: true, ...(events ?? {}) },
	};
}

/** A write's stamp (ms), for what follows it: -∞ when it has none. */
function stampOf(at: string | null): number {
	const ms = at === null ? NaN : Date.parse(at);
	return Number.isNaN(ms) ? -Infinity : ms;
}

function desc(a: string | null, b: string | null): number {
	if (a === b) return 0;
	if (a === null) return 1;
	if (b === null) return -1;
	return a < b ? 1 : -1;
}

export interface ReadHooks {
	/** Called before each list page is read (list, page number, index of the call in this poll). */
	beforePage?: (list: ListName, page: number, call: number) => void;
}

export interface WorldPollOptions extends ReadHooks {
	/** Calls the poll may make (pages and Get requests); default unlimited. */
	budget?: number;
	needsRequest?: (session: BookingSession) => boolean;
	/** Page size of the model (default 100, the contract's maximum). */
	perPage?: number;
	/** Send the `Date` header with 1 s resolution, like HTTP (default: exact milliseconds). */
	secondsDate?: boolean;
	/**
	 * Keep the memory between polls under this key, as the published node does (poll/memory.ts:
	 * reused while the state is the one it wrote); default: the state decoded at every poll.
	 */
	keptAs?: string;
}

export interface WorldPoll extends PollResult {
	/** The next state as the node stores it (state/codec.ts writes it); undefined when nothing could be read. */
	state: TriggerState | undefined;
	/** What the memories' bounds made them forget when the poll's changes were applied. */
	forgotten?: Forgotten;
	ids: string[];
	/** Calls made per kind in this poll. */
	pages: { sessions: number; requests: number };
	totalCalls: number;
}

/**
 * The state a poll writes, as the node does it: the poll's changes applied to the memory it started from
 * (`carried`: the customers' memories a state about another Form carried), written; undefined when the
 * poll changed nothing. `events`: the selected events as the node labels them.
 */
export function stateAfter(memory: TriggerMemory | undefined, result: Pick<PollResult, 'changes'>, input: { carried?: CustomerMemories; events?: string } = {}): TriggerState | undefined {
	return applied(memory, result, input).state;
}

/** The poll's changes applied (as stateAfter), with what the memories' bounds made them forget. */
function applied(memory: TriggerMemory | undefined, result: Pick<PollResult, 'changes'>, input: { carried?: CustomerMemories; events?: string } = {}): { state?: TriggerState; forgotten?: Forgotten } {
	if (!result.changes) return {};
	const { memory: next, forgotten } = applyChanges(memory, result.changes, input.carried);
	if (input.events !== undefined) next.label.events = input.events;
	return { state: writeMemory(next), forgotten };
}

/**
 * One poll on a stored state, as the node does it: the state decoded once before the poll (state/codec.ts)
 * and the next one written once after it (`state`: undefined when nothing could be read).
 */
export async function pollState(
	source: PageSource,
	previous: TriggerState | undefined,
	settings: TriggerSettings,
	options: PollOptions,
): Promise<PollResult & { state: TriggerState | undefined; forgotten?: Forgotten }> {
	const memory = previous && decodeMemory(previous, settings);
	const result = await pollChanges(source, memory, settings, options);
	const { state, forgotten } = applied(memory, result);
	return { ...result, state, forgotten };
}

/** How the node reads the stored state with these settings (poll/activePoll.ts), without a credential. */
export function readInputOf(settings: TriggerSettings): ReadInput {
	return { expect: { fingerprint: settings.fingerprint, lists: listsFor(settings), selection: { events: eventLetters(settings), offsets: windowOffsets(settings) } }, settings };
}

/** One poll as the published node runs it: the memory kept under `key` when the state is the one it wrote, else decoded. */
export async function pollKept(
	key: string,
	source: PageSource,
	previous: TriggerState | undefined,
	settings: TriggerSettings,
	options: PollOptions,
): Promise<PollResult & { state: TriggerState | undefined; kept: boolean; forgotten?: Forgotten }> {
	const read = readInputOf(settings);
	const stored = takeMemory(key, previous, read);
	const result = await pollChanges(source, stored.memory, settings, options);
	const label = { events: eventLetters(settings) };
	const { state, forgotten } = finishPoll({ key, raw: previous, stored, memory: stored.memory, changes: result.changes, read, label });
	return { ...result, state, kept: stored.kept === true, forgotten: state ? forgotten : undefined };
}

/**
 * Late commits as the sandbox's default draws them (`commitLagMs` [0, 2000]): a lag per write from a
 * seeded generator (the same seed, the same lags), for `World.lag`.
 */
export function commitLag(seed = 1, maxMs = 2_000): () => number {
	const next = mulberry32(seed);
	return () => Math.floor(next() * (maxMs + 1));
}

/** A customer's contact as the widget's draft holds it (`data.contact`) and as a request holds it. */
export interface Customer {
	email?: string | null;
	/** As the customer typed it into the draft, e.g. "(512) 555-0199". */
	phone?: string | null;
	/** As the request holds it (international), e.g. "+15125550199"; defaults to `phone`. */
	requestPhone?: string | null;
}

let customerCounter = 0;
/** Customers are numbered from 1 again (a world that must meet the same customers on every run). */
export function resetCustomers(): void {
	customerCounter = 0;
}

/** A customer nobody else shares (a unique e-mail and phone). */
export function newCustomer(): Customer {
	customerCounter++;
	const digits = String(customerCounter).padStart(7, '0');
	return { email: `customer${customerCounter}@example.com`, phone: `(512) ${digits.slice(0, 3)}-${digits.slice(3)}`, requestPhone: `+1512${digits}` };
}

const draftOf = (customer: Customer) => ({ contact: { firstname: 'Ada', email: customer.email ?? null, phone: customer.phone ?? null } });
const requestContactOf = (customer: Customer) => ({ email: customer.email ?? '', phone: customer.requestPhone ?? customer.phone ?? '' });

export class World {
	now = T0;
	sessions: BookingSession[] = [];
	requests: BookingRequest[] = [];
	calls = 0;
	/** Late commits (the sandbox's `commitLagMs`): how late each write of the world's methods is committed, drawn per write; none when unset. */
	lag?: () => number;
	private last = 0;

	/**
	 * Activity stamps on the world clock, strictly increasing; or, for a write committed `late` ms after
	 * it was stamped (a late commit, at most EDGE_WINDOW_MS: what the trigger assumes), `late` ms before
	 * it becomes visible, but never at or before `after` (the row's earlier write, or the draft a booking
	 * comes from). It becomes visible when the server's clock is at least every stamp given so far (writes
	 * in one millisecond of `now` are stamped past it): measured from `now` alone, a write `late` ms late
	 * could be stamped more than EDGE_WINDOW_MS before a poll that had read a row stamped past `now`.
	 */
	stamp(late = this.lag?.() ?? 0, after = -Infinity): number {
		const t = late > 0 ? Math.max(Math.max(this.now, this.last) - late, after + 1) : Math.max(this.now, this.last + 1, after + 1);
		this.last = Math.max(this.last, t);
		return t;
	}

	advance(ms: number): void {
		this.now += ms;
	}

	/** A customer starts a draft (a new customer unless `customer` is given; `overrides` win). */
	start(overrides: Partial<BookingSession> = {}, customer: Customer = newCustomer()): BookingSession {
		const t = iso(this.stamp());
		const session = makeSession({ created_at: t, updated_at: t, data: draftOf(customer), ...overrides });
		this.sessions.push(session);
		return session;
	}

	save(session: BookingSession, step = 'schedule'): BookingSession {
		session.step = step;
		session.updated_at = iso(this.stamp(undefined, stampOf(session.updated_at)));
		return session;
	}

	/** The customer submits: a request, and the session gets request_id (and a new updated_at unless `bump` is false). */
	complete(session: BookingSession, bump = true): BookingRequest {
		// One commit in the contract's words, two rows: with late commits each has its own stamp, after the draft's.
		const draftAt = stampOf(session.updated_at);
		const t = this.stamp(undefined, draftAt);
		const requestAt = this.lag ? this.stamp(undefined, draftAt) : t;
		const contact = ((session.data as { contact?: { email?: string | null; phone?: string | null } } | null)?.contact ?? {}) as Customer;
		const request = makeRequest({ created_at: iso(requestAt), form_id: session.form_id, email: contact.email ?? '', phone: contact.phone ?? '' });
		this.requests.push(request);
		session.request_id = request.id;
		if (bump) session.updated_at = iso(t);
		return request;
	}

	/** A booking without a saved draft: a request and a placeholder session. */
	bookWithoutDraft(customer: Customer = newCustomer()): { session: BookingSession; request: BookingRequest } {
		const t = this.stamp();
		const request = makeRequest({ created_at: iso(this.lag ? this.stamp() : t), ...requestContactOf(customer) });
		this.requests.push(request);
		const session = makeSession({ step: 'confirm', data: {}, request_id: request.id, created_at: iso(t), updated_at: iso(t) });
		this.sessions.push(session);
		return { session, request };
	}

	addRequest(overrides: Partial<BookingRequest> = {}, customer: Customer = newCustomer()): BookingRequest {
		const request = makeRequest({ created_at: iso(this.stamp()), ...requestContactOf(customer), ...overrides });
		this.requests.push(request);
		return request;
	}

	/**
	 * The workspace changes a request (status, lead status, notes, completion, contact): its place in the
	 * list (by `created_at`) stays. `updatedAt`: 'now' (default) stamps `updated_at`, 'null' leaves it
	 * null (the contract allows it), 'keep' leaves it as it was.
	 */
	changeRequest(request: BookingRequest, change: Partial<BookingRequest>, updatedAt: 'now' | 'null' | 'keep' = 'now'): BookingRequest {
		const t = this.stamp();
		Object.assign(request, change);
		if (updatedAt === 'now') request.updated_at = iso(t);
		else if (updatedAt === 'null') request.updated_at = null;
		return request;
	}

	sortedSessions(): BookingSession[] {
		return [...this.sessions].sort((a, b) => desc(a.updated_at, b.updated_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
	}

	sortedRequests(): BookingRequest[] {
		return [...this.requests].sort((a, b) => desc(a.created_at, b.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
	}

	/** The model as the trigger's page source, for one poll. */
	source(options: WorldPollOptions, count: { pages: { sessions: number; requests: number }; calls: number }, limit: number): PageSource {
		const perPage = options.perPage ?? 100;
		return {
			readPage: async (list, page): Promise<PageRead<ListItem> | undefined> => {
				if (count.calls >= limit) return undefined; // the budget is spent: nothing sent
				options.beforePage?.(list, page, count.calls);
				count.calls++;
				count.pages[list]++;
				this.calls++;
				const all: ListItem[] = list === 'sessions' ? this.sortedSessions() : this.sortedRequests();
				const items = all.slice((page - 1) * perPage, page * perPage).map((item) => structuredClone(item));
				const date = options.secondsDate ? Math.floor(this.now / 1000) * 1000 : this.now;
				return { page, items, perPage, total: all.length, serverDate: date };
			},
			fetchRequest: async (id) => {
				if (count.calls >= limit) return undefined;
				count.calls++;
				this.calls++;
				const request = this.requests.find((candidate) => candidate.id === id);
				return request ? structuredClone(request) : null;
			},
		};
	}

	/** One poll through the trigger's real loop, planner and rules. */
	async poll(previous: TriggerState | undefined, settings: TriggerSettings, options: WorldPollOptions = {}): Promise<WorldPoll> {
		const count = { pages: { sessions: 0, requests: 0 }, calls: 0 };
		const limit = options.budget ?? Infinity;
		const budget: Budget = { left: () => Math.max(0, limit - count.calls), answered: () => undefined };
		const poll = options.keptAs !== undefined ? pollKept.bind(undefined, options.keptAs) : pollState;
		const result = await poll(this.source(options, count, limit), previous, settings, {
			budget,
			needsRequest: options.needsRequest,
			localNow: () => this.now,
		});
		return { ...result, ids: result.events.map((event) => event.eventId), pages: count.pages, totalCalls: count.calls };
	}
}

export interface LogEntry {
	event: string;
	eventId: string;
	id: string;
	at: number;
	poll: number;
	recovered?: boolean;
	recoveredFrom?: string | null;
}

/** Runs polls while keeping the state, like an active trigger whose every poll is saved. */
export class Runner {
	state: TriggerState | undefined;
	log: LogEntry[] = [];
	polls = 0;

	constructor(
		readonly world: World,
		public settings: TriggerSettings,
	) {}

	async poll(options: WorldPollOptions = {}): Promise<WorldPoll> {
		const result = await this.world.poll(this.state, this.settings, options);
		if (result.state) this.state = result.state;
		this.polls++;
		for (const event of result.events) this.log.push(entryOf(event, this.polls));
		return result;
	}

	count(event: string, id?: string): number {
		return this.log.filter((entry) => entry.event === event && (id === undefined || entry.id === id)).length;
	}
}

export function entryOf(event: TriggerEvent, poll: number): LogEntry {
	return {
		event: event.event,
		eventId: event.eventId,
		id: (event.session ?? (event.request as BookingRequest)).id,
		at: event.at,
		poll,
		...(event.event === 'session.completed' ? { recovered: event.recovered === true, recoveredFrom: event.recoveredFromSessionId ?? null } : {}),
	};
}
