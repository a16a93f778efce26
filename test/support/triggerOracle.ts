/**
 * The oracle of the trigger's property tests: what must, may and must not fire, written from the
 * README's rules ("Trigger", "Retargeting by customer", "Exactly once, and what the state holds",
 * "Assumptions where the contract is silent", and Request Updated) and from the world's history and
 * the poll times alone (triggerProgram.ts). It never reads the trigger's state and calls nothing of
 * the trigger: the polls' events are only compared with what the history allows.
 *
 * Where the rules leave room, the oracle leaves it too:
 * - a session idle for the delay fires in a poll that reads it then — but a poll cut by its budget, or
 *   one that keeps events oldest first behind a window that is not there yet, fires later; rows may
 *   show up to 5 s late (EDGE). So an idle period MUST fire only when an unlimited poll started at least
 *   delay + EDGE + 1 s after its activity while it was still idle after that poll; it MAY fire when some
 *   poll ended at least a delay after its activity and it was still idle when that poll began; else it
 *   MUST NOT;
 * - "at most 30 days before" (recovery), "for 7 days" (bookings remembered), the cooldown: judged on the
 *   event and poll times; between the earliest and latest reading of a rule, either answer is allowed;
 * - a row visible after activation is new, whatever its timestamp (one committed late may be stamped
 *   before the first poll); events come oldest first, but a row committed late after a poll that sent
 *   newer events had begun comes in a later poll, up to EDGE before them.
 * Violations are tagged so that each property checks its own part.
 *
 * Each event has its rule in RULES, by its value in the trigger's registry (events/index.ts): the oracle
 * refuses to judge (throws, naming the event) while the trigger registers an event it has no rule for.
 */
import type { TriggerEvent } from '../../nodes/BookingRequestsTrigger/events';
import type { TriggerSettings } from '../../nodes/BookingRequestsTrigger/events';
import type { BookingRequest, BookingSession } from '../../nodes/shared/types';
import type { RegisteredEvent } from './perEvent';
import { isSelected, perEvent, REGISTERED } from './perEvent';
import type { FuzzSettings, Period, PollRecord, Program, RequestHistory, RequestVersion, Run, SessionHistory } from './triggerProgram';
import { DAY, VERSION_FIELDS } from './triggerProgram';

/** README: rows are visible within 5 seconds of their timestamp; the `Date` header has 1 s resolution. */
export const EDGE = 5_000 + 1_000;
/**
 * README: "now" is the API's `Date` header raised to the newest timestamp it has just listed (the header
 * has a 1-second resolution): the model's timestamps can run a few ms ahead of its clock, so a poll may
 * judge up to a second past its `Date`.
 */
export const RAISE = 1_000;
const RECOVERY = 30 * DAY;
const BOOKED_MEMORY = 7 * DAY;
const SEEN_MEMORY = 30 * DAY;

/**
 * `minutes`: README "Recovered by customer" gives `minutes_to_recover` whenever `recovered` is true;
 * kept apart from `recovered` so that a null there does not hide other findings.
 * `staleSeen`: a completion reported recovered from this very session, reported abandoned more than 30
 * days before (README "Sessions seen abandoned": then `recovered: false`); or a session reported abandoned
 * again soon after a report made late, more than 30 days after its event time (the memory forgets it
 * at once, by event time); or a completion judged more than 30 days after the abandonment (a catch-up)
 * whose recovery is lost although it completed within 30 days of it; kept apart likewise.
 * `slowPoll`: a request or completion that appeared while a poll read, more than 5 s before that poll's
 * last read, and never fired (lost: the README's late-commit rule says it must come); kept apart likewise.
 * `churnDeferral`: an idle period that must have fired in an unlimited poll, missing, where every such
 * poll had items added while it read (an unlimited poll then comes back cut, without the reminder, and
 * the customer returned before the next one); kept apart likewise.
 * `staleCooldown`: two reminders of a customer within the cooldown, both with event times more than 30
 * days before the poll that emits them (a catch-up after a month); kept apart likewise.
 */
export type Tag = 'duplicate' | 'order' | 'unexpected' | 'missing' | 'slowPoll' | 'churnDeferral' | 'payload' | 'recovered' | 'minutes' | 'staleSeen' | 'staleCooldown' | 'updates' | 'progress';

export interface Violation {
	tag: Tag;
	message: string;
}

const CONTACT = ['first_name', 'last_name', 'email', 'phone'] as const;

function fieldsOfGroups(groups: readonly string[]): string[] {
	return groups.flatMap((group) => (group === 'contact' ? [...CONTACT] : [group]));
}

const norm = (value: string | null | undefined): string => (value ?? '').trim().toLowerCase();

interface Delivered {
	event: TriggerEvent;
	poll: PollRecord;
	/** Index on the kept timeline (undefined: delivered by a poll whose save was lost or rolled back). */
	keptIndex?: number;
}

/** What every event's rule reads of a run: the program, its history, the polls and what they delivered. */
interface Judging {
	program: Program;
	run: Run;
	settings: FuzzSettings;
	trigger: TriggerSettings;
	events: TriggerSettings['events'];
	polls: PollRecord[];
	baseline: PollRecord;
	/** The polls after the baseline. */
	later: PollRecord[];
	/** What every poll delivered, in order (lost saves and rolled-back states included). */
	delivered: Delivered[];
	/** What the polls whose state n8n kept delivered, in order: the kept timeline. */
	keptLog: Delivered[];
	deliveredIds: Set<string>;
	keptIds: Set<string>;
	/** The trigger reads the request list (for some selected event). */
	readsRequests: boolean;
	/** The trigger reads every new request (New Request, Skip Customers Who Booked): it knows the customer of each booking. */
	readsNewRequests: boolean;
	fail(tag: Tag, message: string): void;
	/** The session is on the Form filter's form (or there is none). */
	formOk(form: string): boolean;
	/** The request list as the trigger reads it (filtered by form unless read for every form). */
	requestsListed(request: RequestHistory): boolean;
	/** The customer keys of the idle period a delivered Session Abandoned reports. */
	keysOfAbandoned(entry: Delivered): string[];
	/** The activity `seq` happened while a poll read whose reads spanned more than 5 s (see `slowPoll`). */
	slowPoll(seq: number): boolean;
}

/** The oracle's rule of one event, in RULES by the event's value. */
interface EventRule {
	/**
	 * When an event's row became visible (the history's `seq`), for the order across polls: a row
	 * committed late that became visible once a poll had begun that sent newer events comes in a later
	 * poll, at most EDGE before them. -Infinity: never late; null: not held to the order across polls.
	 */
	visibleAt: ((event: TriggerEvent, run: Run) => number) | null;
	/** What of the request list the trigger reads for this event while it is selected: every new request, the newest (watched), or none. */
	readsRequests?(trigger: TriggerSettings): 'new' | 'watched' | undefined;
	/** Its judgement of a run (made once, before any delivered event is checked; it may judge the kept timeline as a whole there). */
	judge(run: Judging): EventJudge;
}

interface EventJudge {
	/** One event of this kind, as a poll delivered it. */
	check(entry: Delivered): void;
	/** What must have fired, once the world went quiet and enough polls passed. */
	missing(): void;
}

/**
 * Judges a run of a program. Refuses (throws, naming it) when the trigger registers an event that
 * RULES has no rule for: an event it cannot judge would go unchecked.
 */
export function judge(program: Program, run: Run, kinds: readonly RegisteredEvent[] = REGISTERED): Violation[] {
	const rules = perEvent(RULES, kinds, (event) => `The oracle has no rule for the event ${event}: add one to RULES in test/support/triggerOracle.ts, so that the property tests judge it`);
	const out: Violation[] = [];
	const fail = (tag: Tag, message: string) => out.push({ tag, message });
	const judging = judgingOf(program, run, rules, fail);
	const { polls, baseline, keptLog } = judging;

	// ---- progress and the baseline
	if (!run.drained) fail('progress', `the polls after the program did not become quiet (${run.drainPolls} polls)`);
	if (baseline.events.length > 0) fail('unexpected', `the first poll (baseline) emitted ${baseline.events.map((e) => e.eventId).join(', ')}`);

	// ---- exactly once on the kept timeline, and oldest first
	const seenIds = new Set<string>();
	for (const entry of keptLog) {
		if (seenIds.has(entry.event.eventId)) fail('duplicate', `${entry.event.eventId} emitted twice on the kept timeline (again in poll ${entry.poll.index})`);
		seenIds.add(entry.event.eventId);
	}
	for (const poll of polls) {
		for (let i = 1; i < poll.events.length; i++) {
			if (poll.events[i].at < poll.events[i - 1].at) fail('order', `poll ${poll.index}: ${poll.events[i].eventId} (at ${poll.events[i].at}) after ${poll.events[i - 1].eventId} (at ${poll.events[i - 1].at})`);
		}
	}
	// Across polls: oldest first, but for a row committed late (README: visible within 5 s of its
	// timestamp) that became visible once a poll had begun that sent newer events: it comes in a later
	// poll, at most EDGE before them.
	const visibleAtOf = new Map(rules.map(([kind, rule]) => [kind.name, rule.visibleAt]));
	const visibleAt = (event: TriggerEvent): number => visibleAtOf.get(event.event)?.(event, run) ?? -Infinity;
	const ordered = keptLog.filter((entry) => visibleAtOf.get(entry.event.event) !== null);
	const newestOfPoll = new Map<PollRecord, Delivered>();
	for (const entry of ordered) {
		for (const [poll, newest] of newestOfPoll) {
			if (poll === entry.poll || newest.event.at <= entry.event.at) continue;
			const late = visibleAt(entry.event) > poll.startSeq && newest.event.at - entry.event.at <= EDGE;
			if (!late) fail('order', `${entry.event.eventId} (at ${entry.event.at}, poll ${entry.poll.index}) after ${newest.event.eventId} (at ${newest.event.at}, poll ${poll.index})`);
		}
		const newest = newestOfPoll.get(entry.poll);
		if (!newest || entry.event.at >= newest.event.at) newestOfPoll.set(entry.poll, entry);
	}

	// ---- each event's rule: what each delivered event is and whether it may be there, then what must have fired
	const judges = new Map(rules.map(([kind, rule]) => [kind.name, rule.judge(judging)]));
	for (const entry of judging.delivered) {
		const judgeOf = judges.get(entry.event.event);
		if (judgeOf) judgeOf.check(entry);
		else fail('unexpected', `${entry.event.eventId}: unknown event ${String((entry.event as { event: string }).event)}`);
	}
	for (const judgeOf of judges.values()) judgeOf.missing();
	return out;
}

/** What the rules share of a run. */
function judgingOf(program: Program, run: Run, rules: Array<[RegisteredEvent, EventRule]>, fail: Judging['fail']): Judging {
	const settings = program.settings;
	const trigger = settings.trigger;
	const polls = run.polls;
	const keptLog: Delivered[] = [];
	const delivered: Delivered[] = [];
	for (const poll of polls) {
		for (const event of poll.events) {
			const entry: Delivered = { event, poll };
			if (poll.kept) {
				entry.keptIndex = keptLog.length;
				keptLog.push(entry);
			}
			delivered.push(entry);
		}
	}
	const reads = rules.flatMap(([kind, rule]) => (isSelected(trigger.events, kind) && rule.readsRequests ? [rule.readsRequests(trigger)] : []));
	return {
		program,
		run,
		settings,
		trigger,
		events: trigger.events,
		polls,
		baseline: polls[0],
		later: polls.filter((poll) => !poll.baseline),
		delivered,
		keptLog,
		deliveredIds: new Set(delivered.map((entry) => entry.event.eventId)),
		keptIds: new Set(keptLog.map((entry) => entry.event.eventId)),
		readsRequests: reads.some((read) => read !== undefined),
		readsNewRequests: reads.includes('new'),
		fail,
		formOk: (form) => settings.form === undefined || form === settings.form,
		requestsListed: (request) => settings.form === undefined || trigger.requestsForm !== undefined || request.form === settings.form,
		keysOfAbandoned: (entry) => {
			const session = run.sessions.get(entry.event.session!.id);
			const a = Date.parse(entry.event.session!.updated_at!);
			return session?.periods.find((period) => period.a === a)?.keys ?? [];
		},
		slowPoll: (seq) => polls.some((poll) => seq > poll.startSeq && seq <= poll.endSeq && poll.endNow - poll.startNow > EDGE - 1_000),
	};
}

const shares = (a: readonly string[], b: readonly string[]) => a.some((key) => b.includes(key));
const abandonedOf = (log: Delivered[]) => log.filter((entry) => entry.event.event === 'session.abandoned');

// ---------------------------------------------------------------- Session Abandoned

type Verdict = 'must' | 'may' | 'mustNot';

interface PeriodVerdict {
	verdict: Verdict;
	why: string;
	period: Period;
	session: SessionHistory;
}

/** Must / may / must not per idle period, by its event id. */
function periodVerdicts(judging: Judging): Map<string, PeriodVerdict> {
	const { trigger, events, baseline, later, deliveredIds } = judging;
	const { sessions, requests } = judging.run;
	const delay = trigger.abandonedAfterMs;
	const periodVerdict = new Map<string, PeriodVerdict>();
	const deliveredAbandoned = abandonedOf(judging.delivered);
	for (const session of sessions.values()) {
		let earlierDelivered = false;
		for (const period of session.periods) {
			const eventId = `session.abandoned:${session.id}:${period.a}`;
			const set = (verdict: Verdict, why: string) => periodVerdict.set(eventId, { verdict, why, period, session });
			const fired = deliveredIds.has(eventId);
			const wasEarlier = earlierDelivered;
			if (fired) earlierDelivered = true;
			if (!events.sessionAbandoned) {
				set('mustNot', 'Session Abandoned is not selected');
				continue;
			}
			if (!judging.formOk(session.form)) {
				set('mustNot', 'another form than the Form filter');
				continue;
			}
			if (period.a + delay <= baseline.startNow - EDGE) {
				set('mustNot', 'idle for the delay before activation (history)');
				continue;
			}
			if (trigger.onlyWithEmail && !period.hasEmail) {
				set('mustNot', 'no e-mail (Only Sessions With an E-Mail)');
				continue;
			}
			const due = later.filter((poll) => poll.endNow + RAISE >= period.a + delay && period.endSeq > poll.startSeq);
			if (due.length === 0) {
				set('mustNot', 'never idle for the delay at a poll');
				continue;
			}
			const mustIn = later.filter((poll) => poll.budget === null && poll.startNow > period.a + delay + EDGE && period.endSeq > poll.endSeq);
			let verdict: Verdict = mustIn.length > 0 ? 'must' : 'may';
			let why = mustIn.length > 0 ? `idle through unlimited poll ${mustIn[0].index}` : `due in poll ${due[0].index} but not judged for sure`;
			if (period.a + delay <= baseline.endNow + EDGE) [verdict, why] = ['may', 'idle for the delay about when the trigger was activated'];
			// Skip Customers Who Booked: a booking at or after the draft's created_at, by the same customer.
			if (trigger.skipIfBooked && period.keys.length > 0) {
				const bookings = [...requests.values()].filter((request) => shares(request.keys, period.keys) && request.createdAt >= session.createdAt);
				const judgeBy = mustIn[0]?.endSeq ?? Infinity;
				const surely = bookings.find(
					// Booked by the event time (a + delay): a later booking, even before the judging poll, may be past
					// where a poll cut by its budget read the request list (events come oldest first).
					(request) =>
						request.seq > baseline.endSeq && request.seq <= due[0].startSeq && request.createdAt <= period.a + delay && due[0].startNow - request.createdAt < BOOKED_MEMORY - DAY,
				);
				if (surely) {
					set('mustNot', `the customer booked (${surely.id}) since the draft started, before it was due`);
					continue;
				}
				if (bookings.some((request) => request.seq <= judgeBy)) [verdict, why] = ['may', 'the customer booked about when it was judged'];
			}
			if (verdict === 'must' && !trigger.fireAgainIfReabandoned && wasEarlier) [verdict, why] = ['may', 'an earlier idle period of the session was reported'];
			if (verdict === 'must' && (trigger.customerCooldownMs ?? 0) > 0 && period.keys.length > 0) {
				const others = deliveredAbandoned.filter((entry) => entry.event.eventId !== eventId && shares(judging.keysOfAbandoned(entry), period.keys));
				if (others.length > 0) [verdict, why] = ['may', 'the customer was reminded too (cooldown)'];
			}
			set(verdict, why);
		}
	}
	return periodVerdict;
}

/** Kept timeline: once per session (without Fire Again If Reabandoned; a session seen more than 30 days before may come again), and the cooldown per customer (on event times). */
function checkAbandonedTimeline(judging: Judging): void {
	const { trigger, fail } = judging;
	const keptAbandoned = abandonedOf(judging.keptLog);
	const lastOfSession = new Map<string, Delivered>();
	const lastOfKey = new Map<string, Delivered>();
	for (const entry of keptAbandoned) {
		const id = entry.event.session!.id;
		const before = lastOfSession.get(id);
		// "seen more than 30 days ago" counts by event time (a catch-up after weeks off judges old idle
		// periods as of their time; docs/how-it-works.md), with a day of slack (the memory keeps days).
		if (before && !trigger.fireAgainIfReabandoned && entry.event.at - before.event.at < SEEN_MEMORY - DAY) {
			fail('unexpected', `${entry.event.eventId}: the session was reported abandoned before (${before.event.eventId}) and Fire Again If Reabandoned is off`);
		}
		lastOfSession.set(id, entry);
		const keys = judging.keysOfAbandoned(entry);
		const cooldown = trigger.customerCooldownMs ?? 0;
		if (cooldown > 0) {
			for (const key of keys) {
				const last = lastOfKey.get(key);
				if (last && entry.event.at - last.event.at < cooldown) {
					const stale = entry.poll.endNow - last.event.at > RECOVERY && entry.poll.endNow - entry.event.at > RECOVERY;
					fail(stale ? 'staleCooldown' : 'unexpected', `${entry.event.eventId}: customer ${key} was reminded ${Math.round((entry.event.at - last.event.at) / 60_000)} min before (${last.event.eventId}), within the cooldown`);
				}
			}
			for (const key of keys) lastOfKey.set(key, entry);
		}
	}
}

/** Must / may / must not per idle period; once per session and the cooldown on the kept timeline. */
function judgeAbandoned(judging: Judging): EventJudge {
	const { trigger, later, deliveredIds, fail } = judging;
	const delay = trigger.abandonedAfterMs;
	const periodVerdict = periodVerdicts(judging);
	checkAbandonedTimeline(judging);
	return {
		check(entry) {
			const { event } = entry;
			const id = event.eventId;
			const session = event.session!;
			const verdict = periodVerdict.get(id);
			if (!verdict) {
				fail('unexpected', `${id}: no such idle period in the history`);
				return;
			}
			if (verdict.verdict === 'mustNot') fail('unexpected', `${id} (poll ${entry.poll.index}): must not fire: ${verdict.why}`);
			if (session.request_id !== null) fail('payload', `${id}: an abandoned session with request_id ${session.request_id}`);
			if (event.at !== verdict.period.a + delay) fail('payload', `${id}: at ${event.at}, expected activity + delay ${verdict.period.a + delay}`);
			if (Date.parse(session.updated_at!) !== verdict.period.a) fail('payload', `${id}: session.updated_at ${session.updated_at} is not the period's activity`);
		},
		missing() {
			for (const [eventId, verdict] of periodVerdict) {
				if (verdict.verdict !== 'must') continue;
				// Delivered at least once (a poll whose save was lost delivered it too; the kept timeline may then
				// judge it again under other facts, e.g. a booking since).
				if (!deliveredIds.has(eventId)) {
					const period = verdict.period;
					const mustIn = later.filter((poll) => poll.budget === null && poll.startNow > period.a + delay + EDGE && period.endSeq > poll.endSeq);
					const churned = mustIn.length > 0 && mustIn.every((poll) => poll.endSeq > poll.startSeq);
					fail(churned ? 'churnDeferral' : 'missing', `${eventId} (session created at ${verdict.session.createdAt}) never fired: ${verdict.why}`);
				}
			}
		},
	};
}

// ---------------------------------------------------------------- Session Completed

interface RecoveryExpectation {
	expected: boolean | undefined;
	candidates: Delivered[];
	surely: Delivered[];
	/** Seen idle without being reported (Session Abandoned not selected): may count as a recovery from itself. */
	selfSeen: boolean;
}

/** What Session Completed's rule knows of recoveries: the kept timeline's abandonments, a completion's customer and its expected recovery. */
interface Recoveries {
	keptAbandoned: Delivered[];
	/** The kept timeline's (last) entry of an event id. */
	keptEntryOf: Map<string, Delivered>;
	completionCustomer(session: SessionHistory): string[] | 'unknown';
	recoveryOf(session: SessionHistory, completionPoll: PollRecord, keptIndex: number | undefined): RecoveryExpectation;
}

/** Session Completed's recoveries in a run. */
function recoveries(judging: Judging): Recoveries {
	const { trigger, events, later, keptLog } = judging;
	const { requests } = judging.run;
	const delay = trigger.abandonedAfterMs;
	const keptAbandoned = abandonedOf(keptLog);
	const completionCustomer = (session: SessionHistory): string[] | 'unknown' => {
		if (!session.placeholder) {
			const last = session.periods[session.periods.length - 1];
			return last?.keys ?? [];
		}
		// A booking without a draft: the customer of its booking request, known when the request list is read.
		const request = requests.get(session.completed!.requestId)!;
		if (judging.readsNewRequests) return judging.requestsListed(request) ? request.keys : 'unknown';
		return judging.readsRequests ? 'unknown' : [];
	};
	const recoveryOf = (session: SessionHistory, completionPoll: PollRecord, keptIndex: number | undefined): RecoveryExpectation => {
		const at = session.completed!.at;
		if (keptIndex === undefined) return { expected: undefined, candidates: [], surely: [], selfSeen: false };
		// A booking without a draft made while a poll reads, after it read the request list: the trigger
		// waits for its next read of the list to know the customer (README), so the customer is known.
		const customer = completionCustomer(session);
		const candidates = keptAbandoned.filter((entry) => {
			if (entry.keptIndex! >= keptIndex) return false;
			if (entry.event.session!.id === session.id) return true;
			return customer !== 'unknown' && shares(judging.keysOfAbandoned(entry), customer);
		});
		const maybe = customer === 'unknown' ? keptAbandoned.filter((entry) => entry.keptIndex! < keptIndex) : [];
		const surely = candidates.filter((entry) => completionPoll.endNow - entry.event.at <= RECOVERY);
		const possibly = [...candidates, ...maybe].filter((entry) => at - entry.poll.endNow <= RECOVERY);
		// "or saw this very session abandoned": without Session Abandoned selected the trigger may still have
		// seen the session idle for the delay (its horizon passed it) — either answer then.
		const selfSeen = !events.sessionAbandoned && session.periods.some((period) => later.some((poll) => poll.endNow + RAISE >= period.a + delay && period.endSeq > poll.startSeq));
		const expected = surely.length > 0 ? true : possibly.length === 0 && !selfSeen ? false : undefined;
		return { expected, candidates: [...candidates, ...maybe].filter((entry) => at - entry.poll.endNow <= RECOVERY), surely, selfSeen };
	};
	const keptEntryOf = new Map(keptLog.map((entry) => [entry.event.eventId, entry]));
	return { keptAbandoned, keptEntryOf, completionCustomer, recoveryOf };
}

/** A delivered Session Completed: a completion of the history, after activation, with its recovery. */
function checkCompletion(entry: Delivered, judging: Judging, { keptAbandoned, keptEntryOf, recoveryOf }: Recoveries): void {
	const { settings, trigger, events, baseline, fail } = judging;
	const { sessions } = judging.run;
	const { event } = entry;
	const id = event.eventId;
	const session = event.session!;
	const history = sessions.get(session.id);
	if (!history?.completed || id !== `session.completed:${session.id}:${history.completed.requestId}`) {
		fail('unexpected', `${id}: no such completion in the history`);
		return;
	}
	if (!events.sessionCompleted) fail('unexpected', `${id}: Session Completed is not selected`);
	if (!judging.formOk(history.form)) fail('unexpected', `${id}: another form than the Form filter`);
	if (history.completed.seq <= baseline.endSeq) fail('unexpected', `${id}: completed before activation`);
	if (session.request_id !== history.completed.requestId) fail('payload', `${id}: request_id ${session.request_id}`);
	if (!timeOk(event.at, history.completed.at, entry.poll) || Date.parse(session.updated_at!) !== history.completed.at) fail('payload', `${id}: at ${event.at}, completed at ${history.completed.at}`);
	if (settings.includeRequest && event.request?.id !== history.completed.requestId) fail('payload', `${id}: Include Booking Request attached ${event.request?.id ?? String(event.request)}`);
	const recovery = recoveryOf(history, entry.poll, keptEntryOf.get(id)?.keptIndex);
	if (entry.keptIndex === undefined) return;
	// This very session reported abandoned more than 30 days before (README: then recovered: false).
	const staleSelf =
		event.recoveredFromSessionId === session.id && keptAbandoned.some((other) => other.keptIndex! < entry.keptIndex! && other.event.session!.id === session.id);
	if (trigger.onlyRecovered && recovery.expected === false) fail(staleSelf ? 'staleSeen' : 'unexpected', `${id}: Only Recovered, and the customer was not reported abandoned within 30 days`);
	if (recovery.expected !== undefined && event.recovered !== recovery.expected) {
		fail(staleSelf ? 'staleSeen' : 'recovered', `${id}: recovered ${String(event.recovered)}, expected ${recovery.expected} (abandonments before it: ${recovery.candidates.map((c) => c.event.eventId).join(', ') || 'none'})`);
	}
	if (event.recovered === true) {
		// With Fire Again If Reabandoned a session may be reported abandoned several times: the latest report counts.
		const from = recovery.candidates.filter((candidate) => candidate.event.session!.id === event.recoveredFromSessionId).pop();
		const fromSelf = recovery.selfSeen && event.recoveredFromSessionId === session.id;
		if (!from && !fromSelf) fail(staleSelf ? 'staleSeen' : 'recovered', `${id}: recovered_from_session_id ${String(event.recoveredFromSessionId)} is none of the abandonments before it`);
		if (fromSelf && !from && event.minutesToRecover !== null) {
			const last = history.periods[history.periods.length - 1];
			const minutes = Math.floor((history.completed.at - last.a) / 60_000);
			if (event.minutesToRecover !== minutes) fail('minutes', `${id}: minutes_to_recover ${String(event.minutesToRecover)}, expected ${minutes}`);
		}
		const latest = recovery.surely[recovery.surely.length - 1];
		if (latest && recovery.surely.length === recovery.candidates.length && latest.event.session!.id !== event.recoveredFromSessionId) {
			fail('recovered', `${id}: recovered from ${String(event.recoveredFromSessionId)}, the latest abandonment before it is ${latest.event.eventId}`);
		}
		if (from) {
			// "from its last activity (updated_at)": as reported abandoned, or the session's latest before the completion.
			const minutes = Math.floor((history.completed.at - Date.parse(from.event.session!.updated_at!)) / 60_000);
			const latest = sessions.get(from.event.session!.id)?.periods.filter((period) => period.startSeq < history.completed!.seq).pop();
			const orLatest = latest ? Math.floor((history.completed.at - latest.a) / 60_000) : minutes;
			// README: null when the reminded draft had neither e-mail nor phone (no customer to keep its time for).
			const unknownCustomer = event.minutesToRecover === null && judging.keysOfAbandoned(from).length === 0;
			if (event.minutesToRecover !== minutes && event.minutesToRecover !== orLatest && !unknownCustomer) {
				fail(event.minutesToRecover === null ? 'minutes' : 'recovered', `${id}: minutes_to_recover ${String(event.minutesToRecover)}, expected ${minutes} (from ${from.event.eventId})`);
			}
		}
	} else if (event.recoveredFromSessionId != null || event.minutesToRecover != null) {
		fail('recovered', `${id}: not recovered but recovered_from_session_id ${String(event.recoveredFromSessionId)}, minutes_to_recover ${String(event.minutesToRecover)}`);
	}
}

/** Every completion after activation fired (with Only Recovered: every surely recovered one). */
function missingCompletions(judging: Judging, { keptAbandoned, completionCustomer }: Recoveries): void {
	const { trigger, events, polls, baseline, keptIds, fail } = judging;
	const { sessions } = judging.run;
	for (const session of sessions.values()) {
		if (!session.completed || session.completed.seq <= baseline.endSeq || !events.sessionCompleted || !judging.formOk(session.form)) continue;
		const eventId = `session.completed:${session.id}:${session.completed.requestId}`;
		if (keptIds.has(eventId)) continue;
		if (trigger.onlyRecovered) {
			// Required only when the customer was surely reported abandoned within 30 days before (kept timeline).
			const at = session.completed.at;
			const customer = completionCustomer(session);
			const surely = keptAbandoned.filter(
				(entry) =>
					entry.event.at < at &&
					entry.poll.endNow <= at - EDGE &&
					at - entry.poll.endNow + (entry.poll.endNow - entry.event.at) <= RECOVERY - DAY &&
					(entry.event.session!.id === session.id || (customer !== 'unknown' && shares(judging.keysOfAbandoned(entry), customer))),
			);
			// Judged only in polls more than 30 days after those reports (a catch-up): see `staleSeen`.
			const completed = session.completed;
			const judgedLate = polls
				.filter((poll) => poll.budget === null && poll.startSeq >= completed.seq)
				.every((poll) => surely.every((entry) => poll.startNow - entry.event.at > RECOVERY));
			if (surely.length > 0) fail(judgedLate ? 'staleSeen' : 'missing', `${eventId}: Only Recovered, and the customer was reported abandoned before, but it never fired`);
			continue;
		}
		fail(judging.slowPoll(session.completed.seq) ? 'slowPoll' : 'missing', `${eventId} (${session.placeholder ? 'booking without a draft' : 'draft'}) never fired`);
	}
}

/** Recovered, from the kept timeline's abandonments before it; every completion after activation. */
function judgeCompleted(judging: Judging): EventJudge {
	const known = recoveries(judging);
	return { check: (entry) => checkCompletion(entry, judging, known), missing: () => missingCompletions(judging, known) };
}

// ---------------------------------------------------------------- New Request

/** Every request visible after activation, once; none other. */
function judgeCreated(judging: Judging): EventJudge {
	const { settings, events, baseline, keptIds, fail } = judging;
	const { requests } = judging.run;
	return {
		check(entry) {
			const { event } = entry;
			const id = event.eventId;
			const request = event.request as BookingRequest;
			const history = requests.get(request?.id);
			if (!history || id !== `request.created:${history.id}`) {
				fail('unexpected', `${id}: no such request in the history`);
				return;
			}
			if (!events.requestCreated) fail('unexpected', `${id}: New Request is not selected`);
			if (settings.form !== undefined && history.form !== settings.form) fail('unexpected', `${id}: another form than the Form filter`);
			if (history.seq <= baseline.endSeq) fail('unexpected', `${id}: created before activation`);
			if (!timeOk(event.at, history.createdAt, entry.poll)) fail('payload', `${id}: at ${event.at}, created at ${history.createdAt}`);
			if (versionsMatching(history, request).length === 0) fail('payload', `${id}: the request is none of its versions in the history`);
		},
		missing() {
			if (!events.requestCreated) return;
			for (const request of requests.values()) {
				// Visible after activation, whatever its stamp (a row committed late lands just before it): new.
				if (request.seq <= baseline.endSeq || (settings.form !== undefined && request.form !== settings.form)) continue;
				if (!keptIds.has(`request.created:${request.id}`)) fail(judging.slowPoll(request.seq) ? 'slowPoll' : 'missing', `request.created:${request.id} never fired`);
			}
		},
	};
}

/** The oracle's rule of each event, by its value in the registry (events/index.ts). */
const RULES: Readonly<Record<string, EventRule>> = {
	sessionAbandoned: {
		// Due by the delay at a poll's time, never by a row committed late.
		visibleAt: () => -Infinity,
		// Skip Customers Who Booked reads every new booking.
		readsRequests: (trigger) => (trigger.skipIfBooked === true ? 'new' : undefined),
		judge: judgeAbandoned,
	},
	sessionCompleted: {
		visibleAt: (event, run) => run.sessions.get(event.session!.id)?.completed?.seq ?? Infinity,
		judge: judgeCompleted,
	},
	requestCreated: {
		visibleAt: (event, run) => run.requests.get((event.request as BookingRequest).id)?.seq ?? Infinity,
		readsRequests: () => 'new',
		judge: judgeCreated,
	},
	requestUpdated: {
		// Its rotation reads the watched range apart from the windows: not held to their order.
		visibleAt: null,
		readsRequests: () => 'watched',
		judge: (judging) => ({
			check: (entry) => checkUpdate(entry, judging.program, judging.run, judging.keptLog, judging.fail),
			missing() {
				checkUpdatesFinal(judging.program, judging.run, judging.keptLog, judging.fail);
				checkUpdatesBetweenFullReads(judging.program, judging.run, judging.fail);
			},
		}),
	},
};

/**
 * An event's time is its item's timestamp; README: "A timestamp ahead of the API's clock is reported at
 * once and does not move the trigger past the present" — so a timestamp ahead of the poll's clock may be
 * reported at the poll's now (between its `Date` and the timestamp).
 */
function timeOk(at: number, timestamp: number, poll: PollRecord): boolean {
	return at === timestamp || (timestamp > poll.startNow && at >= poll.startNow && at <= timestamp);
}

// ---------------------------------------------------------------- Request Updated

function versionKey(version: Pick<RequestVersion, (typeof VERSION_FIELDS)[number]>, fields: readonly string[]): string {
	return JSON.stringify(fields.map((field) => (version as unknown as Record<string, unknown>)[field] ?? null));
}

/** Indices of the request's versions equal to what the event carries (watched fields and updated_at). */
function versionsMatching(history: RequestHistory, request: BookingRequest): number[] {
	const key = versionKey(request as unknown as RequestVersion, VERSION_FIELDS);
	return history.versions.flatMap((version, index) => (versionKey(version, VERSION_FIELDS) === key ? [index] : []));
}

/** The rank of a request (0 = newest) in the list the trigger reads, after the activity up to `seq`. */
function rankAt(run: Run, program: Program, request: RequestHistory, seq: number): number {
	const settings = program.settings;
	const listed = (other: RequestHistory) => settings.form === undefined || settings.trigger.requestsForm !== undefined || other.form === settings.form;
	let rank = 0;
	for (const other of run.requests.values()) {
		if (other.id === request.id || other.seq > seq || !listed(other)) continue;
		if (other.createdAt > request.createdAt || (other.createdAt === request.createdAt && other.id > request.id)) rank++;
	}
	return rank;
}

function checkUpdate(entry: Delivered, program: Program, run: Run, keptLog: Delivered[], fail: (tag: Tag, message: string) => void): void {
	const { event } = entry;
	const trigger = program.settings.trigger;
	const updates = trigger.updates;
	const id = event.eventId;
	const request = event.request as BookingRequest;
	const history = run.requests.get(request?.id);
	if (!trigger.events.requestUpdated || !updates) return fail('unexpected', `${id}: Request Updated is not selected`);
	if (!history) return fail('unexpected', `${id}: no such request in the history`);
	const baseline = run.polls[0];
	const settings = program.settings;
	if (settings.form !== undefined && history.form !== settings.form) fail('unexpected', `${id}: another form than the Form filter`);
	if (rankAt(run, program, history, entry.poll.startSeq) >= updates.watchNewest) {
		fail('unexpected', `${id} (poll ${entry.poll.index}): the request was already older than the newest ${updates.watchNewest} when the poll began`);
	}
	const selected = new Set(fieldsOfGroups(updates.fields));
	const changed = event.changedFields ?? [];
	const matches = versionsMatching(history, request);
	if (matches.length === 0) return fail('payload', `${id}: the request is none of its versions in the history`);
	// event_id: request.updated:<id>:<updated_at ms>, or an h-hash when updated_at is null or did not move.
	const updatedAt = request.updated_at === null ? null : Date.parse(request.updated_at);
	const idOk = (updatedAt !== null && id === `request.updated:${history.id}:${updatedAt}`) || new RegExp(`^request\\.updated:${history.id}:h[A-Za-z0-9_-]{8}$`).test(id);
	if (!idOk) fail('payload', `${id}: not request.updated:<id>:<updated_at ms> nor an h-hash`);
	if (updatedAt === null && !/:h[A-Za-z0-9_-]{8}$/.test(id)) fail('payload', `${id}: updated_at is null, the id must be a hash`);
	if (updatedAt !== null && event.at !== updatedAt && event.at > updatedAt) fail('payload', `${id}: at ${event.at}, updated_at ${updatedAt}`);
	// Filters: with a list set, that field changed to a listed value (either, when both are set).
	const statusTo = updates.statusTo;
	const leadTo = updates.leadStatusTo;
	if (statusTo.length > 0 || leadTo.length > 0) {
		const unknown = changed.length === 0;
		const pass =
			(statusTo.length > 0 && (unknown || changed.includes('status')) && statusTo.includes(norm(request.status))) ||
			(leadTo.length > 0 && (unknown || changed.includes('lead_status')) && leadTo.includes(norm(request.lead_status)));
		if (!pass) fail('updates', `${id}: changed_fields ${JSON.stringify(changed)} status ${request.status} lead_status ${request.lead_status} pass neither "Changes To" filter`);
	}
	if (changed.length === 0) {
		// What changed is not known: only for a request that existed at activation, changed after it.
		if (history.seq > baseline.endSeq) fail('updates', `${id}: changed_fields [] for a request created after activation`);
		if (event.previous !== null) fail('payload', `${id}: changed_fields [] but previous ${JSON.stringify(event.previous)}`);
		if (updatedAt === null || updatedAt <= baseline.startNow) fail('updates', `${id}: an unknown change without updated_at after activation`);
		return;
	}
	for (const field of changed) if (!selected.has(field)) fail('updates', `${id}: changed_fields has ${field}, not watched`);
	// A creation is New Request only: the change is newer than what New Request reported.
	const created = keptLog.find((other) => other.event.eventId === `request.created:${history.id}`);
	if (created && entry.keptIndex !== undefined) {
		const createdVersions = versionsMatching(history, created.event.request as BookingRequest);
		if (created.keptIndex! > entry.keptIndex) fail('updates', `${id}: before the request's request.created`);
		if (createdVersions.length > 0 && Math.max(...matches) <= Math.min(...createdVersions)) fail('updates', `${id}: the same version New Request reported`);
	}
	// previous and changed_fields: some earlier version differs from this one in exactly those watched fields.
	const previous = event.previous ?? {};
	if ('internal_notes' in previous) fail('payload', `${id}: previous holds internal_notes`);
	const consistent = matches.some((current) =>
		history.versions.slice(0, current).some((earlier) => {
			const differ = [...selected].filter((field) => norm2(earlier, field) !== norm2(history.versions[current], field));
			if (differ.length !== changed.length || differ.some((field) => !changed.includes(field))) return false;
			return changed.every((field) => field === 'internal_notes' || sameValue(field, previous[field] ?? null, (earlier as unknown as Record<string, string | null>)[field]));
		}),
	);
	if (!consistent) fail('payload', `${id}: changed_fields ${JSON.stringify(changed)} / previous ${JSON.stringify(event.previous)} match no earlier version of the request`);
}

function norm2(version: RequestVersion, field: string): string | null {
	const value = (version as unknown as Record<string, string | null>)[field];
	if (field === 'internal_notes') return value === '' ? null : value;
	if (field === 'completed_at') return value === null ? null : String(Date.parse(value));
	return value;
}

function sameValue(field: string, reported: string | null, earlier: string | null): boolean {
	if (field === 'completed_at') return (reported === null ? null : Date.parse(reported)) === (earlier === null ? null : Date.parse(earlier));
	return reported === earlier;
}

/**
 * After the quiet polls: for each request within the watched range all along, created after activation
 * and reported as new (New Request on) or updated, the last event of it on the kept timeline shows its watched
 * fields as they are now (without "Changes To" filters, which consume changes they leave out).
 */
function checkUpdatesFinal(program: Program, run: Run, keptLog: Delivered[], fail: (tag: Tag, message: string) => void): void {
	const trigger = program.settings.trigger;
	const updates = trigger.updates;
	if (!trigger.events.requestUpdated || !updates) return;
	if (updates.statusTo.length > 0 || updates.leadStatusTo.length > 0) return;
	const baseline = run.polls[0];
	const fields = fieldsOfGroups(updates.fields);
	const lastSeq = Math.max(...run.polls.map((poll) => poll.endSeq));
	for (const history of run.requests.values()) {
		if (history.seq <= baseline.endSeq) continue;
		if (program.settings.form !== undefined && history.form !== program.settings.form) continue;
		if (rankAt(run, program, history, lastSeq) >= updates.watchNewest) continue;
		const last = [...keptLog].reverse().find((entry) => (entry.event.event === 'request.created' || entry.event.event === 'request.updated') && (entry.event.request as BookingRequest)?.id === history.id);
		// Without New Request, the first read is silent: only a request reported updated at least once counts.
		if (!last || (!trigger.events.requestCreated && last.event.event !== 'request.updated')) continue;
		const now = history.versions[history.versions.length - 1];
		const shown = last.event.request as BookingRequest;
		const stale = fields.filter((field) => norm2(versionOfShown(shown), field) !== norm2(now, field));
		if (stale.length > 0) {
			fail('missing', `request ${history.id}: its last event (${last.event.eventId}) shows ${stale.join(', ')} as before; the change to ${stale.map((f) => `${f}=${JSON.stringify((now as unknown as Record<string, unknown>)[f])}`).join(', ')} was never reported`);
		}
	}
}

/**
 * Between two polls of the kept timeline that both read the whole watched range (unlimited, and the
 * range within page 1 plus 10 more; polls cut by a budget may lie between them), a request that was
 * watched and passed by New Request in the first, and whose watched fields differ at the second from
 * the first, is reported in between: the last Request Updated of it there shows its fields as the second
 * poll read them, and when the polls are adjacent it is ONE event with exactly those fields in
 * `changed_fields` (when the "Changes To" filters let it through). When nothing changed, nothing fires.
 */
function checkUpdatesBetweenFullReads(program: Program, run: Run, fail: (tag: Tag, message: string) => void): void {
	const { settings } = program;
	const updates = settings.trigger.updates;
	if (!settings.trigger.events.requestUpdated || !updates) return;
	const selected = fieldsOfGroups(updates.fields);
	const chain = run.polls.filter((poll) => poll.kept);
	const listed = (request: RequestHistory) => settings.form === undefined || settings.trigger.requestsForm !== undefined || request.form === settings.form;
	const reported = (request: RequestHistory) => settings.form === undefined || request.form === settings.form;
	const versionAt = (request: RequestHistory, seq: number) => [...request.versions].reverse().find((version) => version.seq <= seq)!;
	const full = chain.filter((poll) => poll.budget === null);
	for (let i = 1; i < full.length; i++) {
		const [first, second] = [full[i - 1], full[i]];
		const between = chain.filter((poll) => poll.index > first.index && poll.index <= second.index);
		const adjacent = between.length === 1;
		const total = [...run.requests.values()].filter((request) => listed(request) && request.seq <= second.endSeq).length;
		if (Math.ceil(Math.min(updates.watchNewest, total) / settings.perPage) > 11) continue;
		// Requests added while a poll reads push the older ones down a page it may not read until the next poll.
		const shifted = [...run.requests.values()].some((request) => listed(request) && [first, ...between].some((poll) => request.seq > poll.startSeq && request.seq <= poll.endSeq));
		for (const request of run.requests.values()) {
			if (!listed(request) || !reported(request) || request.seq > first.startSeq || request.createdAt >= first.startNow - EDGE) continue;
			if (rankAt(run, program, request, second.endSeq) >= updates.watchNewest) continue;
			const polled = [first, ...between];
			const churned = request.versions.some((version) => polled.some((poll) => version.seq > poll.startSeq && version.seq <= poll.endSeq));
			if (churned || shifted) continue;
			const [before, after] = [versionAt(request, first.startSeq), versionAt(request, second.startSeq)];
			const differ = selected.filter((field) => norm2(before, field) !== norm2(after, field));
			const events = between.flatMap((poll) => poll.events.filter((event) => event.event === 'request.updated' && (event.request as BookingRequest).id === request.id));
			if (adjacent && events.length > 1) fail('duplicate', `poll ${second.index}: ${events.length} Request Updated events for ${request.id}`);
			if (differ.length === 0) {
				if (adjacent && events.length > 0) fail('unexpected', `${events[0].eventId} (poll ${second.index}): the request's watched fields did not change since poll ${first.index}`);
				continue;
			}
			const filtered = updates.statusTo.length > 0 || updates.leadStatusTo.length > 0;
			const passes =
				!filtered ||
				(updates.statusTo.length > 0 && differ.includes('status') && updates.statusTo.includes(norm(after.status))) ||
				(updates.leadStatusTo.length > 0 && differ.includes('lead_status') && updates.leadStatusTo.includes(norm(after.lead_status)));
			if (!passes || (filtered && !adjacent)) continue;
			if (events.length === 0) {
				fail('missing', `polls ${first.index + 1}-${second.index}: no Request Updated for ${request.id}, whose ${differ.join(', ')} changed since poll ${first.index}`);
				continue;
			}
			const last = events[events.length - 1];
			const stale = selected.filter((field) => norm2(versionOfShown(last.request as BookingRequest), field) !== norm2(after, field));
			if (stale.length > 0) fail('missing', `${last.eventId}: the last Request Updated before poll ${second.index} shows ${stale.join(', ')} as before`);
			const changed = events[0].changedFields ?? [];
			if (adjacent && JSON.stringify([...changed].sort()) !== JSON.stringify([...differ].sort())) {
				fail('payload', `${events[0].eventId} (poll ${second.index}): changed_fields ${JSON.stringify(changed)}, the fields that changed since poll ${first.index}: ${JSON.stringify(differ)}`);
			}
		}
	}
}

function versionOfShown(request: BookingRequest): RequestVersion {
	const version = { seq: 0 } as RequestVersion;
	for (const field of VERSION_FIELDS) (version as unknown as Record<string, unknown>)[field] = (request as unknown as Record<string, unknown>)[field] ?? null;
	return version;
}

/** A one-line summary of a run, for reports. */
export function summary(run: Run): string {
	const counts: Record<string, number> = {};
	for (const poll of run.polls) if (poll.kept) for (const event of poll.events) counts[event.event] = (counts[event.event] ?? 0) + 1;
	return `${run.polls.length} polls, kept events ${JSON.stringify(counts)}`;
}

export type { BookingSession };
