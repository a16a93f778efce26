/**
 * A tiny in-memory model of the API for the pure tests: sessions ordered by updated_at (nulls last,
 * ties by id descending, like the sandbox), requests by created_at, a clock, and customers who start,
 * save and complete bookings. `read` pages it the way fetch.ts does (newest first, 100 per page, down
 * to the floor the diff asks for), with an optional hook that changes the data between pages.
 * Timestamps are strictly increasing unless a test sets them by hand (ties).
 */
import type { Fetched, FetchedList, TriggerSettings } from '../../nodes/BookingRequestsTrigger/diff';
import {
	activityOf,
	diff,
	listsFor,
	requestSortTime,
	requestsFloor,
	sessionSortTime,
	sessionsFloor,
} from '../../nodes/BookingRequestsTrigger/diff';
import type { TriggerState } from '../../nodes/BookingRequestsTrigger/state';
import type { BookingRequest, BookingSession } from '../../nodes/shared/types';

export const T0 = Date.UTC(2026, 10, 1, 12, 0, 0);
export const MIN = 60_000;
export const iso = (ms: number): string => new Date(ms).toISOString();

let counter = 0;
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

function desc(a: string | null, b: string | null): number {
	if (a === b) return 0;
	if (a === null) return 1;
	if (b === null) return -1;
	return a < b ? 1 : -1;
}

export interface ReadHooks {
	/** Called before each page is read (page number from 1, list name). */
	beforePage?: (list: 'sessions' | 'requests', page: number) => void;
}

export class World {
	now = T0;
	sessions: BookingSession[] = [];
	requests: BookingRequest[] = [];
	calls = 0;
	private last = 0;

	/** Strictly increasing activity stamps on the world clock. */
	stamp(): number {
		const t = Math.max(this.now, this.last + 1);
		this.last = t;
		return t;
	}

	advance(ms: number): void {
		this.now += ms;
	}

	start(overrides: Partial<BookingSession> = {}): BookingSession {
		const t = iso(this.stamp());
		const session = makeSession({ created_at: t, updated_at: t, ...overrides });
		this.sessions.push(session);
		return session;
	}

	save(session: BookingSession, step = 'schedule'): BookingSession {
		session.step = step;
		session.updated_at = iso(this.stamp());
		return session;
	}

	/** The customer submits: a request, and the session gets request_id (and a new updated_at unless `bump` is false). */
	complete(session: BookingSession, bump = true): BookingRequest {
		const t = this.stamp();
		const request = makeRequest({ created_at: iso(t), form_id: session.form_id });
		this.requests.push(request);
		session.request_id = request.id;
		if (bump) session.updated_at = iso(t);
		return request;
	}

	/** A booking without a saved draft: a request and a placeholder session. */
	bookWithoutDraft(): { session: BookingSession; request: BookingRequest } {
		const t = this.stamp();
		const request = makeRequest({ created_at: iso(t) });
		this.requests.push(request);
		const session = makeSession({ step: 'confirm', data: {}, request_id: request.id, created_at: iso(t), updated_at: iso(t) });
		this.sessions.push(session);
		return { session, request };
	}

	addRequest(overrides: Partial<BookingRequest> = {}): BookingRequest {
		const request = makeRequest({ created_at: iso(this.stamp()), ...overrides });
		this.requests.push(request);
		return request;
	}

	sortedSessions(): BookingSession[] {
		return [...this.sessions].sort((a, b) => desc(a.updated_at, b.updated_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
	}

	sortedRequests(): BookingRequest[] {
		return [...this.requests].sort((a, b) => desc(a.created_at, b.created_at) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
	}

	/** Pages a list like fetch.ts: newest first, `perPage` per page, down to the floor. Copies items (a snapshot per page). */
	private readList<T extends { id: string }>(
		name: 'sessions' | 'requests',
		sorted: () => T[],
		sortTime: (item: T) => number | null,
		topTime: (item: T) => number | null,
		floorFor: (top: number | null) => number,
		hooks: ReadHooks,
		perPage = 100,
	): FetchedList<T> & { calls: number } {
		const items: T[] = [];
		let lowest: number | null = null;
		let floor = -Infinity;
		for (let page = 1; ; page++) {
			hooks.beforePage?.(name, page);
			this.calls++;
			const all = sorted();
			const pageItems = all.slice((page - 1) * perPage, page * perPage).map((item) => structuredClone(item));
			if (page === 1) {
				let top: number | null = null;
				for (const item of pageItems) {
					const at = topTime(item);
					if (at !== null && (top === null || at > top)) top = at;
				}
				floor = floorFor(top);
			}
			items.push(...pageItems);
			let reached = false;
			for (const item of pageItems) {
				const at = sortTime(item);
				if (at === null) continue;
				if (lowest === null || at < lowest) lowest = at;
				if (at < floor) reached = true;
			}
			const exhausted = pageItems.length < perPage || page * perPage >= all.length;
			if (exhausted || reached) return { items, exhausted, lowest, calls: page };
		}
	}

	read(previous: TriggerState | undefined, settings: TriggerSettings, hooks: ReadHooks = {}): Fetched & { calls: { sessions: number; requests: number } } {
		const lists = listsFor(settings);
		const now = this.now;
		const fetched: Fetched & { calls: { sessions: number; requests: number } } = { now, calls: { sessions: 0, requests: 0 } };
		if (lists.sessions) {
			const read = this.readList('sessions', () => this.sortedSessions(), sessionSortTime, activityOf, (top) => sessionsFloor(previous, settings, now, top), hooks);
			fetched.calls.sessions = read.calls;
			fetched.sessions = { items: read.items, exhausted: read.exhausted, lowest: read.lowest };
		}
		if (lists.requests) {
			const read = this.readList('requests', () => this.sortedRequests(), requestSortTime, requestSortTime, (top) => requestsFloor(previous, top), hooks);
			fetched.calls.requests = read.calls;
			fetched.requests = { items: read.items, exhausted: read.exhausted, lowest: read.lowest };
		}
		return fetched;
	}

	/** One poll through the pure diff. */
	poll(previous: TriggerState | undefined, settings: TriggerSettings, hooks: ReadHooks = {}) {
		const fetched = this.read(previous, settings, hooks);
		const result = diff(previous, fetched, settings);
		return { ...result, calls: fetched.calls, ids: result.events.map((event) => event.eventId) };
	}
}

/** Runs polls while keeping the state, like an active trigger whose every poll is saved. */
export class Runner {
	state: TriggerState | undefined;
	log: Array<{ event: string; eventId: string; id: string }> = [];

	constructor(
		readonly world: World,
		public settings: TriggerSettings,
	) {}

	poll(hooks: ReadHooks = {}) {
		const result = this.world.poll(this.state, this.settings, hooks);
		this.state = result.state;
		for (const event of result.events) {
			this.log.push({ event: event.event, eventId: event.eventId, id: (event.session ?? event.request)!.id });
		}
		return result;
	}

	count(event: string, id?: string): number {
		return this.log.filter((entry) => entry.event === event && (id === undefined || entry.id === id)).length;
	}
}
