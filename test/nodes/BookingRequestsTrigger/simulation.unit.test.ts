/**
 * Oracle-based random runs of the trigger's real poll loop (planner + rules, fetch.ts `pollChanges`)
 * against the in-memory list model (test/support/triggerWorld.ts), at volume: thousands of sessions,
 * many polls, items moving between page reads, polls cut short by the call budget, and restarts from
 * older saved states (a lost save).
 *
 * The oracle knows the world's history (every start, save, completion, request) and the kept polls'
 * times — never the trigger's state. From that alone it says which events must come, exactly once, on
 * the kept timeline:
 * - every request created after the baseline, and every session completed after it;
 * - every idle period of an open session (activity `a`, next change `c`) is judged between the first
 *   kept poll E whose now reached a + delay and the first kept poll L not cut short (it read and emitted
 *   everything) whose now is past a + delay + 5 s (rows may show up late): fired if the session did not
 *   change before L ended (must), not fired if it changed before E began (must not), either otherwise
 *   (may); without "Fire Again If Reabandoned" only the first such judgement of a session fires;
 * (The property-based tests in properties/ cover the same rules, and every option, on generated programs.)
 * - `recovered` is true exactly when an abandonment of the session was emitted before;
 * - event times never go down along the kept timeline (oldest first, also across polls).
 */
import { envOverride } from '../../../harness/env';
import type { TriggerSettings } from '../../../nodes/BookingRequestsTrigger/events';
import type { TriggerState } from '../../../nodes/BookingRequestsTrigger/state/format';
import type { BookingSession } from '../../../nodes/shared/types';
import type { LogEntry, WorldPoll } from '../../support/triggerWorld';
import { MIN, World, entryOf, iso, makeSettings } from '../../support/triggerWorld';
import { mulberry32 } from '../../../sandbox/seed';
import { printFigures } from '../../support/figures';

jest.setTimeout(300_000);

/** Rows may show up to 5 s after their timestamp; the `Date` header has a 1 s resolution (README). */
const EDGE_MS = 6_000;

interface Period {
	a: number;
	/** Action sequence number of the change that ended it (Infinity: still idle). */
	changedSeq: number;
}

interface KeptPoll {
	index: number;
	startSeq: number;
	endSeq: number;
	/** The poll's now (server time), and whether it could not read or emit everything (PollResult.cut). */
	now: number;
	cut: boolean;
	events: LogEntry[];
}

/** The world plus a history the oracle reads. */
class History {
	seq = 0;
	readonly periods = new Map<string, Period[]>();
	readonly completedAt = new Map<string, number>();
	readonly requestsAfterBaseline = new Set<string>();
	baselineSeq = Infinity;

	constructor(readonly world: World) {}

	private open(session: BookingSession) {
		const list = this.periods.get(session.id) ?? [];
		list.push({ a: Date.parse(session.updated_at!), changedSeq: Infinity });
		this.periods.set(session.id, list);
	}

	private close(id: string) {
		const list = this.periods.get(id);
		if (list) list[list.length - 1].changedSeq = this.seq;
	}

	start(): BookingSession {
		this.seq++;
		const session = this.world.start();
		this.open(session);
		return session;
	}

	save(session: BookingSession): void {
		this.seq++;
		this.close(session.id);
		this.world.save(session);
		this.open(session);
	}

	complete(session: BookingSession): void {
		this.seq++;
		this.close(session.id);
		const request = this.world.complete(session);
		this.completedAt.set(session.id, this.seq);
		if (this.seq > this.baselineSeq) this.requestsAfterBaseline.add(request.id);
	}

	bookWithoutDraft(): void {
		this.seq++;
		const { session, request } = this.world.bookWithoutDraft();
		this.completedAt.set(session.id, this.seq);
		if (this.seq > this.baselineSeq) this.requestsAfterBaseline.add(request.id);
	}

	addRequests(count: number, sameTimestamp: boolean): void {
		this.seq++;
		const at = this.world.stamp();
		for (let i = 0; i < count; i++) {
			const request = sameTimestamp ? this.world.addRequest({ created_at: iso(at) }) : this.world.addRequest();
			if (this.seq > this.baselineSeq) this.requestsAfterBaseline.add(request.id);
		}
	}

	openSessions(): BookingSession[] {
		return this.world.sessions.filter((session) => session.request_id === null);
	}
}

interface SimOptions {
	seed: number;
	settings: TriggerSettings;
	polls: number;
	/** Activity between polls: [min, max] actions. */
	actions: [number, number];
	/** Clock advance between polls: [min, max] ms. */
	interval: [number, number];
	/** Call budget per poll: [min, max] (Infinity: unlimited). */
	budget: [number, number];
	/** Probability that a poll's save is lost (the next poll starts from the state kept before). */
	lostSave: number;
	/** Actions while a poll reads (between page reads), per page read: probability. */
	churnPerRead: number;
	/** Probability of a bulk import (one created_at) between polls, and its size. */
	bulk?: { probability: number; size: [number, number] };
	/** Action mix: weights of start, save, complete, bookWithoutDraft, addRequest. */
	mix?: [number, number, number, number, number];
	/** Sessions that exist before the baseline. */
	history?: number;
	/** Attach every completion's booking request (Include Booking Request): from list pages or Gets. */
	includeRequest?: boolean;
}

interface SimReport {
	expected: number;
	emitted: number;
	byEvent: Record<string, number>;
	polls: number;
	keptPolls: number;
	maxCalls: number;
	cutPolls: number;
	maxStateBytes: number;
	mayPeriods: number;
}

async function simulate(options: SimOptions): Promise<SimReport> {
	const random = mulberry32(options.seed);
	const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
	const world = new World();
	const history = new History(world);
	const settings = options.settings;
	const delay = settings.abandonedAfterMs;
	const mix = options.mix ?? [4, 3, 1, 0.3, 0.4];
	const mixTotal = mix.reduce((sum, weight) => sum + weight, 0);

	const act = () => {
		world.advance(between(0, 3000));
		let roll = random() * mixTotal;
		const open = history.openSessions();
		if ((roll -= mix[0]) < 0 || open.length === 0) history.start();
		else if ((roll -= mix[1]) < 0) history.save(open[Math.floor(random() * open.length)]);
		else if ((roll -= mix[2]) < 0) history.complete(open[Math.floor(random() * open.length)]);
		else if ((roll -= mix[3]) < 0) history.bookWithoutDraft();
		else history.addRequests(1, false);
	};

	for (let i = 0; i < (options.history ?? 0); i++) act();
	world.advance(2 * delay);
	for (let i = 0; i < 20; i++) act(); // some sessions are active when the trigger is activated

	// Baseline (no activity while it reads).
	const baseline = await world.poll(undefined, settings);
	history.baselineSeq = history.seq;
	// Idle for the delay at activation: history, not reported.
	const baselineHorizon = baseline.now - delay;
	const saved: TriggerState[] = [baseline.state!];
	let kept: KeptPoll[] = [];
	let maxCalls = 0;
	let cutPolls = 0;
	let maxStateBytes = JSON.stringify(baseline.state).length;
	let polls = 0;

	const runPoll = async (budget: number, churn: boolean): Promise<WorldPoll> => {
		const startSeq = history.seq;
		const state = saved[saved.length - 1];
		const result = await world.poll(state, settings, {
			budget,
			needsRequest: options.includeRequest ? () => true : undefined,
			beforePage: (_list, _page, call) => {
				if (churn && call > 0 && random() < options.churnPerRead) act();
			},
		});
		polls++;
		expect(result.totalCalls).toBeLessThanOrEqual(budget);
		// with Include Booking Request, every completion carries its own booking request
		if (options.includeRequest) {
			for (const event of result.events) if (event.event === 'session.completed') expect(event.request?.id).toBe(event.session?.request_id);
		}
		maxCalls = Math.max(maxCalls, result.totalCalls);
		if (result.cut) cutPolls++;
		const next = result.state ?? state;
		maxStateBytes = Math.max(maxStateBytes, JSON.stringify(next).length);
		const lost = churn && random() < options.lostSave;
		if (!lost) {
			saved.push(next);
			kept.push({
				index: polls,
				startSeq,
				endSeq: history.seq,
				now: result.now,
				cut: result.cut,
				events: result.events.map((event) => entryOf(event, polls)),
			});
		} else if (saved.length > 1 && random() < 0.5) {
			// A longer outage of the saves: go back one more kept state.
			saved.pop();
			kept = kept.slice(0, -1);
		}
		return result;
	};

	for (let poll = 0; poll < options.polls; poll++) {
		const actions = between(options.actions[0], options.actions[1]);
		for (let i = 0; i < actions; i++) act();
		if (options.bulk && random() < options.bulk.probability) history.addRequests(between(...options.bulk.size), true);
		world.advance(between(options.interval[0], options.interval[1]));
		const budget = options.budget[1] === Infinity ? Infinity : between(options.budget[0], options.budget[1]);
		await runPoll(budget, true);
	}
	// Drain: no more activity, the clock past every delay, polls with the same budgets until all is read.
	world.advance(delay + 10 * MIN);
	for (let drain = 0; drain < 400; drain++) {
		const budget = options.budget[1] === Infinity ? Infinity : between(options.budget[0], options.budget[1]);
		const result = await runPoll(budget, false);
		if (!result.cut && result.events.length === 0) break;
		expect(drain).toBeLessThan(399);
	}
	const finalQuiet = await runPoll(Infinity, false);
	expect(finalQuiet.events).toEqual([]);

	// ---- the oracle, on the kept timeline
	const log = kept.flatMap((poll) => poll.events);
	const ids = log.map((entry) => entry.eventId);
	expect(ids.length - new Set(ids).size).toBe(0);
	for (let i = 1; i < log.length; i++) {
		if (log[i].at < log[i - 1].at) throw new Error(`event ${log[i].eventId} (at ${log[i].at}) after ${log[i - 1].eventId} (at ${log[i - 1].at})`);
	}

	const expectIds = new Set<string>();
	// Requests.
	if (settings.events.requestCreated) for (const id of history.requestsAfterBaseline) expectIds.add(`request.created:${id}`);
	// Abandonments, per session in order of idle periods.
	const judgedAt = new Map<string, number>(); // first emitted abandonment (log index) per session
	for (const [index, entry] of log.entries()) if (entry.event === 'session.abandoned' && !judgedAt.has(entry.id)) judgedAt.set(entry.id, index);
	const emittedAbandoned = new Set(log.filter((entry) => entry.event === 'session.abandoned').map((entry) => entry.eventId));
	let mayPeriods = 0;
	const mayIds = new Set<string>();
	const sessionsRead = settings.events.sessionAbandoned || settings.events.sessionCompleted;
	for (const [id, periods] of sessionsRead ? history.periods : []) {
		let judged = false;
		for (const period of periods) {
			if (period.a <= baselineHorizon) continue;
			const earliest = kept.find((candidate) => candidate.now >= period.a + delay);
			const latest = kept.find((candidate) => candidate.now > period.a + delay + EDGE_MS && !candidate.cut);
			expect(earliest && latest).toBeDefined();
			const eventId = `session.abandoned:${id}:${period.a}`;
			const changedBefore = period.changedSeq <= earliest!.startSeq;
			const changedAfter = period.changedSeq > latest!.endSeq;
			if (changedBefore) continue;
			if (!changedAfter) {
				mayPeriods++;
				if (emittedAbandoned.has(eventId)) {
					mayIds.add(eventId);
					judged = true;
				}
				continue;
			}
			if (settings.fireAgainIfReabandoned || !judged) {
				if (settings.events.sessionAbandoned) expectIds.add(eventId);
			}
			judged = true;
		}
	}
	// Completions.
	const session = new Map(world.sessions.map((s) => [s.id, s]));
	for (const [id, seq] of history.completedAt) {
		if (seq <= history.baselineSeq || !settings.events.sessionCompleted) continue;
		const s = session.get(id)!;
		const eventId = `session.completed:${id}:${s.request_id}`;
		const index = log.findIndex((entry) => entry.eventId === eventId);
		const recovered = settings.events.sessionAbandoned && judgedAt.has(id) && judgedAt.get(id)! < (index < 0 ? Infinity : index);
		if (settings.onlyRecovered && !recovered) continue;
		expectIds.add(eventId);
		if (index >= 0 && settings.events.sessionAbandoned) expect(`${eventId} recovered=${log[index].recovered}`).toBe(`${eventId} recovered=${recovered}`);
	}
	const emittedIds = new Set(ids.filter((id) => !mayIds.has(id)));
	const missing = [...expectIds].filter((id) => !emittedIds.has(id));
	const unexpected = [...emittedIds].filter((id) => !expectIds.has(id));
	expect({ missing: missing.slice(0, 5), missingCount: missing.length }).toEqual({ missing: [], missingCount: 0 });
	expect({ unexpected: unexpected.slice(0, 5), unexpectedCount: unexpected.length }).toEqual({ unexpected: [], unexpectedCount: 0 });

	const byEvent: Record<string, number> = {};
	for (const entry of log) byEvent[entry.event] = (byEvent[entry.event] ?? 0) + 1;
	return { expected: expectIds.size + mayIds.size, emitted: log.length, byEvent, polls, keptPolls: kept.length, maxCalls, cutPolls, maxStateBytes, mayPeriods };
}

function report(label: string, result: SimReport) {
	printFigures(
		`[simulation] ${label}: expected ${result.expected} events, emitted ${result.emitted} ${JSON.stringify(result.byEvent)}; ` +
			`${result.polls} polls (${result.keptPolls} kept, ${result.cutPolls} cut short), max ${result.maxCalls} calls/poll, ` +
			`max state ${result.maxStateBytes} bytes, ${result.mayPeriods} idle periods changed while a poll read them`,
	);
}

/** More seeds on demand: SIM_SEEDS=50 npx jest simulation (each seed runs every variant). */
const EXTRA_SEEDS = Number(envOverride('SIM_SEEDS') ?? 0);

interface Variant {
	seed: number;
	budget: [number, number];
	lostSave: number;
	fireAgain?: boolean;
	onlyRecovered?: boolean;
	events?: Partial<TriggerSettings['events']>;
	includeRequest?: boolean;
	mix?: SimOptions['mix'];
	actions?: SimOptions['actions'];
}

const VARIANTS: Array<[string, Variant]> = [
	['all events, unlimited budget, churn while reading', { seed: 1, budget: [Infinity, Infinity], lostSave: 0 }],
	['all events, small budgets, lost saves', { seed: 2, budget: [4, 12], lostSave: 0.08 }],
	['Fire Again If Reabandoned, small budgets, lost saves', { seed: 3, budget: [4, 10], lostSave: 0.08, fireAgain: true }],
	['Only Recovered, budgets, lost saves', { seed: 4, budget: [4, 20], lostSave: 0.1, onlyRecovered: true }],
	['only Session Abandoned, tiny budgets', { seed: 5, budget: [4, 8], lostSave: 0.05, events: { sessionCompleted: false, requestCreated: false } }],
	['Include Booking Request (list pages or Gets), small budgets, lost saves', { seed: 7, budget: [5, 16], lostSave: 0.08, includeRequest: true }],
	[
		'Include Booking Request, bursts of bookings without a draft, budgets that reserve calls for them',
		{ seed: 8, budget: [14, 40], lostSave: 0.05, includeRequest: true, mix: [3, 2, 1, 3, 1], actions: [50, 400] },
	],
	['only New Request with bulk imports, tiny budgets', { seed: 6, budget: [4, 6], lostSave: 0.05, events: { sessionAbandoned: false, sessionCompleted: false } }],
];

describe('oracle-based random runs', () => {
	const cases = VARIANTS.flatMap(([label, variant]): Array<[string, Variant]> => [
		[label, variant],
		...Array.from({ length: EXTRA_SEEDS }, (_, i): [string, Variant] => [`${label} (seed ${1000 + i})`, { ...variant, seed: 1000 + i }]),
	]);
	test.each(cases)('%s', async (label, v) => {
		const result = await simulate({
			seed: v.seed,
			settings: makeSettings({ abandonedAfterMs: 20 * MIN, fireAgainIfReabandoned: v.fireAgain ?? false, onlyRecovered: v.onlyRecovered ?? false, events: v.events }),
			polls: 60,
			actions: v.actions ?? [20, 120],
			mix: v.mix,
			interval: [30_000, 4 * MIN],
			budget: v.budget,
			lostSave: v.lostSave,
			churnPerRead: 0.3,
			bulk: { probability: 0.1, size: [50, 350] },
			history: 400,
			includeRequest: v.includeRequest,
		});
		report(label, result);
		expect(result.emitted).toBeGreaterThan(100);
	});
});
