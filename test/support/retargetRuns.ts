/**
 * Retargeting by customer at volume, shared by the retarget*.unit.test.ts files: oracle runs of the trigger's real poll loop
 * (fetch.ts `pollChanges`, planner, rules) against the in-memory list model, with thousands of
 * customers, several drafts each, bookings through another session, by completing a draft and
 * without a draft, bookings from before a draft, polls cut short by the call budget and restarts from
 * older saved states (lost saves).
 *
 * The oracle knows every customer's history. On the kept timeline it says, for Session Abandoned with
 * Skip Customers Who Booked and the cooldown:
 * - an open draft whose last activity `a` is judged between the first kept poll E whose now reached
 *   a + delay (the README's rule) and the first kept poll L not cut short (PollResult.cut: it read and
 *   emitted everything) whose now is past a + delay + 5 s (rows may show up late) — found from the poll
 *   times alone, never from the trigger's state: completed by E's now, it MUST NOT be reported, by L's
 *   it MAY; else it MUST be reported unless the same customer (a shared e-mail or phone key) booked at or
 *   after the draft's `created_at` and at or before a + delay (then it MUST NOT), or booked after that but
 *   before L's now (MAY: the request list was read that far or not), or the cooldown holds (checked on
 *   what was emitted: no two reminders of a customer within the cooldown, and a reminder left out
 *   only when one was sent within it);
 * - no reminder goes to a customer who had booked (the count is reported, with the option off too);
 * - every booking after activation is one New Request, every completion one Session Completed, with
 *   `recovered` / `recovered_from_session_id` exactly as the emitted abandonments say (same customer,
 *   at most 30 days before, the latest one).
 */
import { customerKeys } from '../../nodes/shared/customer';
import type { TriggerSettings } from '../../nodes/BookingRequestsTrigger/events';
import type { TriggerState } from '../../nodes/BookingRequestsTrigger/state/format';
import type { BookingRequest, BookingSession } from '../../nodes/shared/types';
import { DAY_MS } from '../../nodes/BookingRequestsTrigger/state/seen';
import type { Customer, LogEntry } from './triggerWorld';
import { entryOf, makeSettings, MIN, newCustomer, World } from './triggerWorld';
import { mulberry32 } from '../../sandbox/seed';
import { printFigures } from './figures';

type Action = { at: number; run: () => void };

interface Draft {
	session?: BookingSession;
	keys: string[];
	createdAt: number;
	lastActivity: number;
	completedAt: number;
}

interface KeptPoll {
	now: number;
	/** The poll could not read or emit everything (the next one goes on). */
	cut: boolean;
	events: LogEntry[];
}

/** Rows may show up to 5 s after their timestamp; the `Date` header has a 1 s resolution (README). */
const EDGE_MS = 6_000;

export interface Options {
	seed: number;
	customers: number;
	/** Customers start within this span (ms) after activation. */
	span: number;
	settings: TriggerSettings;
	budget: [number, number];
	lostSave: number;
	/** Share of customers who book (through another session, a draft of theirs, or without a draft). */
	bookShare: number;
	/** Every booking within a few minutes of the drafts (the "1,500 start, 750 book"). */
	quickBookings?: boolean;
	/** One draft per customer, always with e-mail and phone, no booking before it (the day). */
	simple?: boolean;
}

export interface Outcome {
	expected: number;
	emitted: number;
	may: number;
	byEvent: Record<string, number>;
	abandonedExpected: number;
	abandonedEmitted: number;
	remindersToBooked: number;
	skippedBooked: number;
	recovered: number;
	polls: number;
	cut: number;
	calls: number;
	maxStateBytes: number;
}

const keysOf = (contact: { email?: unknown; phone?: unknown }) => customerKeys(contact);
const overlap = (a: string[], b: string[]) => a.some((key) => b.includes(key));

export async function run(options: Options): Promise<Outcome> {
	const random = mulberry32(options.seed);
	const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
	const delay = options.settings.abandonedAfterMs;
	const world = new World();
	const baseline = await world.poll(undefined, options.settings);
	const start = world.now;

	// ---- the customers' histories, as timed actions
	const actions: Action[] = [];
	const drafts: Draft[] = [];
	const bookings: Array<{ keys: string[]; at: number }> = [];
	const requestIds = new Set<string>();
	const completions = new Map<string, { keys: string[] }>(); // session id → customer keys of the completion
	for (let i = 0; i < options.customers; i++) {
		const customer = newCustomer();
		const t0 = start + MIN + Math.floor(random() * options.span);
		const count = options.simple ? 1 : 1 + Number(random() < 0.4) + Number(random() < 0.15);
		const mine: Draft[] = [];
		let t = t0;
		for (let d = 0; d < count; d++) {
			const roll = options.simple ? 0 : random();
			const typed: Customer =
				roll < 0.7 ? customer : roll < 0.85 ? { email: customer.email, phone: null } : roll < 0.95 ? { email: null, phone: customer.phone } : { email: null, phone: null };
			const draft: Draft = { keys: keysOf(typed), createdAt: t, lastActivity: t, completedAt: Infinity };
			mine.push(draft);
			drafts.push(draft);
			actions.push({
				at: t,
				run: () => {
					draft.session = world.start({}, typed);
					draft.createdAt = draft.lastActivity = Date.parse(draft.session.created_at as string);
				},
			});
			// saves, each within the delay of the one before (one idle period per draft)
			let at = t;
			for (let s = between(0, 2); s > 0; s--) {
				at += between(1, Math.floor(delay / MIN) - 5) * MIN;
				draft.lastActivity = at;
				actions.push({ at, run: () => (draft.lastActivity = Date.parse(world.save(draft.session as BookingSession).updated_at as string)) });
			}
			t += between(0, 20) * MIN + 1000;
		}
		if (!options.simple && random() < 0.1) {
			// booked once before the drafts: does not count for them
			const at = t0 - between(2, 30) * MIN;
			if (at > start) actions.push({ at, run: () => noteRequest(world.bookWithoutDraft(customer)) });
		}
		if (random() < options.bookShare) {
			const last = mine[mine.length - 1];
			const at = options.quickBookings ? last.lastActivity + between(1, 10) * MIN : t0 + between(2, 120) * MIN;
			const way = options.simple ? 0.35 + random() * 0.65 : random();
			if (way < 0.35) {
				const draft = mine[between(0, mine.length - 1)];
				const when = Math.max(at, draft.lastActivity + 1000);
				actions.push({
					at: when,
					run: () => {
						const request = world.complete(draft.session as BookingSession);
						draft.completedAt = Date.parse(request.created_at as string);
						noteCompletion(draft.session as BookingSession, request, draft.keys);
					},
				});
			} else if (way < 0.7) {
				actions.push({
					at,
					run: () => {
						const again = world.start({}, customer);
						actions.push({ at: at + MIN, run: () => noteCompletion(again, world.complete(again), keysOf({ email: customer.email, phone: customer.phone })) });
						actions.sort((x, y) => x.at - y.at);
					},
				});
			} else actions.push({ at, run: () => noteRequest(world.bookWithoutDraft(customer)) });
		}
	}
	/** Bookings as the trigger can see them: the request's customer keys and `created_at`. */
	function noteBooking(request: BookingRequest) {
		requestIds.add(request.id);
		bookings.push({ keys: keysOf(request), at: Date.parse(request.created_at as string) });
	}
	function noteRequest(booked: { session: BookingSession; request: BookingRequest }) {
		noteBooking(booked.request);
		completions.set(booked.session.id, { keys: keysOf(booked.request) });
	}
	function noteCompletion(session: BookingSession, request: BookingRequest, draftKeys: string[]) {
		noteBooking(request);
		completions.set(session.id, { keys: [...new Set([...draftKeys, ...keysOf(request)])] });
	}
	actions.sort((a, b) => a.at - b.at);

	// ---- polls every 1 to 3 minutes until everything is past the delay and drained
	const saved: TriggerState[] = [baseline.state as TriggerState];
	let kept: KeptPoll[] = [];
	let polls = 0;
	let cut = 0;
	let calls = 0;
	let skippedBooked = 0;
	let maxStateBytes = 0;
	const end = start + options.span + 6 * 60 * MIN;
	let quietAfterEnd = 0;
	while (quietAfterEnd < 1) {
		const next = world.now + between(1, 3) * MIN;
		while (actions.length > 0 && actions[0].at <= next) {
			const action = actions.shift() as Action;
			world.now = Math.max(world.now, action.at);
			action.run();
		}
		world.now = next;
		const budget = between(...options.budget);
		const result = await world.poll(saved[saved.length - 1], options.settings, { budget });
		polls++;
		calls += result.totalCalls;
		expect(result.totalCalls).toBeLessThanOrEqual(budget);
		if (result.cut) cut++;
		const state = result.state ?? saved[saved.length - 1];
		maxStateBytes = Math.max(maxStateBytes, JSON.stringify(state).length);
		if (random() < options.lostSave && world.now < end) {
			// a lost save; sometimes a longer outage of the saves (an older state again)
			if (saved.length > 2 && random() < 0.3) {
				saved.pop();
				kept = kept.slice(0, -1);
			}
			continue;
		}
		skippedBooked += result.skipped.booked;
		saved.push(state);
		kept.push({ now: result.now, cut: result.cut, events: result.events.map((event) => entryOf(event, polls)) });
		if (world.now > end && actions.length === 0 && !result.cut && result.events.length === 0) quietAfterEnd++;
		expect(polls).toBeLessThan(5000);
	}

	// ---- the oracle
	const log = kept.flatMap((poll) => poll.events);
	const ids = log.map((entry) => entry.eventId);
	expect(ids.length - new Set(ids).size).toBe(0);
	for (let i = 1; i < log.length; i++) expect(log[i].at).toBeGreaterThanOrEqual(log[i - 1].at);
	const settings = options.settings;
	const cooldown = settings.customerCooldownMs ?? 0;
	const bySession = new Map(drafts.map((draft) => [draft.session?.id as string, draft]));
	const must = new Set<string>();
	const may = new Set<string>();
	let remindersToBooked = 0;
	const emitted = new Set(ids);
	// Abandonments.
	const abandonedLog = log.filter((entry) => entry.event === 'session.abandoned');
	for (const entry of abandonedLog) {
		const draft = bySession.get(entry.id) as Draft;
		if (bookings.some((booking) => overlap(booking.keys, draft.keys) && booking.at >= draft.createdAt && booking.at <= entry.at)) remindersToBooked++;
	}
	let abandonedExpected = 0;
	for (const draft of drafts) {
		const id = (draft.session as BookingSession).id;
		const eventId = `session.abandoned:${id}:${draft.lastActivity}`;
		const earliest = kept.find((candidate) => candidate.now >= draft.lastActivity + delay);
		const latest = kept.find((candidate) => candidate.now > draft.lastActivity + delay + EDGE_MS && !candidate.cut);
		expect(earliest && latest).toBeDefined();
		if (draft.completedAt <= (earliest as KeptPoll).now) continue;
		if (draft.completedAt <= (latest as KeptPoll).now) {
			may.add(eventId);
			continue;
		}
		const booked = (upTo: number) =>
			settings.skipIfBooked === true && bookings.some((booking) => overlap(booking.keys, draft.keys) && booking.at >= draft.createdAt && booking.at <= upTo);
		if (booked(draft.lastActivity + delay)) continue;
		if (booked((latest as KeptPoll).now)) {
			may.add(eventId);
			continue;
		}
		abandonedExpected++;
		if (cooldown > 0 && !emitted.has(eventId)) {
			// left out only when a reminder to the same customer went out within the cooldown before it
			const at = draft.lastActivity + delay;
			const index = log.findIndex((entry) => entry.at > at);
			const before = (index < 0 ? log : log.slice(0, index)).filter((entry) => entry.event === 'session.abandoned');
			if (before.some((entry) => overlap((bySession.get(entry.id) as Draft).keys, draft.keys) && at - entry.at < cooldown)) {
				may.add(eventId);
				continue;
			}
		}
		must.add(eventId);
	}
	if (cooldown > 0) {
		for (const [i, entry] of abandonedLog.entries()) {
			const keys = (bySession.get(entry.id) as Draft).keys;
			const close = abandonedLog.slice(0, i).find((other) => overlap((bySession.get(other.id) as Draft).keys, keys) && entry.at - other.at < cooldown);
			expect(close ? `${entry.eventId} within the cooldown of ${close.eventId}` : '').toBe('');
		}
	}
	// Requests and completions.
	if (settings.events.requestCreated) for (const id of requestIds) must.add(`request.created:${id}`);
	const sessions = new Map(world.sessions.map((session) => [session.id, session]));
	for (const [index, entry] of log.entries()) {
		if (entry.event !== 'session.completed') continue;
		const keys = (completions.get(entry.id) as { keys: string[] }).keys;
		const earlier = abandonedLog.filter(
			(other) =>
				log.indexOf(other) < index && other.at <= entry.at && entry.at - other.at <= 30 * DAY_MS && (other.id === entry.id || overlap((bySession.get(other.id) as Draft).keys, keys)),
		);
		const byCustomer = earlier.filter((other) => overlap((bySession.get(other.id) as Draft).keys, keys));
		const from = byCustomer.length > 0 ? byCustomer.reduce((a, b) => (b.at > a.at ? b : a)).id : earlier.length > 0 ? entry.id : null;
		expect(`${entry.eventId} recovered=${entry.recovered} from=${entry.recoveredFrom}`).toBe(`${entry.eventId} recovered=${from !== null} from=${from}`);
	}
	if (settings.events.sessionCompleted) {
		for (const id of completions.keys()) must.add(`session.completed:${id}:${(sessions.get(id) as BookingSession).request_id}`);
	}
	const missing = [...must].filter((id) => !emitted.has(id));
	const unexpected = ids.filter((id) => !must.has(id) && !may.has(id));
	expect({ missing: missing.slice(0, 5), count: missing.length }).toEqual({ missing: [], count: 0 });
	expect({ unexpected: unexpected.slice(0, 5), count: unexpected.length }).toEqual({ unexpected: [], count: 0 });

	const byEvent: Record<string, number> = {};
	for (const entry of log) byEvent[entry.event] = (byEvent[entry.event] ?? 0) + 1;
	return {
		expected: must.size,
		emitted: log.length,
		may: may.size,
		byEvent,
		abandonedExpected,
		abandonedEmitted: abandonedLog.length,
		remindersToBooked,
		skippedBooked,
		recovered: log.filter((entry) => entry.recovered === true).length,
		polls,
		cut,
		calls,
		maxStateBytes,
	};
}

export function report(label: string, outcome: Outcome): void {
	printFigures(
		`[retarget] ${label}: expected ${outcome.expected} events (+${outcome.may} either way: a booking after the delay but before the poll, or the cooldown), emitted ${outcome.emitted} ${JSON.stringify(outcome.byEvent)}; ` +
			`Session Abandoned expected ${outcome.abandonedExpected}, emitted ${outcome.abandonedEmitted}, reminders to customers who had booked ${outcome.remindersToBooked}, ` +
			`skipped as booked ${outcome.skippedBooked}; recovered ${outcome.recovered}; ${outcome.polls} polls (${outcome.cut} cut short), ${outcome.calls} calls; max state ${outcome.maxStateBytes} bytes`,
	);
}

/**
 * An oracle run of 3,000 customers over 4 hours, half of them booking, with Skip Customers Who Booked:
 * no reminder to a customer who had booked, polls cut short by the budget, reminders sent.
 */
export async function checkOracleRun(label: string, options: Partial<Options> & { seed: number }, overrides: Partial<TriggerSettings>): Promise<void> {
	const outcome = await run({
		customers: 3000,
		span: 4 * 60 * MIN,
		bookShare: 0.5,
		budget: [10, 30],
		lostSave: 0,
		...options,
		settings: makeSettings({ skipIfBooked: true, ...overrides }),
	});
	report(label, outcome);
	expect(outcome.remindersToBooked).toBe(0);
	expect(outcome.cut).toBeGreaterThan(0);
	expect(outcome.abandonedEmitted).toBeGreaterThan(500);
}
