/**
 * A run cut in two by an upgrade: the polls before it were made by the code that wrote a fixture
 * (test/fixtures/upgrade/*.json, written by scripts/write-upgrade-fixtures.ts), the polls after it by the
 * code of this checkout, from the static data that code saved. The world is rebuilt from the program's
 * steps (triggerProgram.ts), the polls before the upgrade are replayed from the fixture (their events,
 * how many calls each made, whether it saved a state), and the oracle (triggerOracle.ts) judges the
 * whole run from the world's history: nothing lost or repeated across the upgrade.
 *
 * Nothing here reads the state: it is handed to the trigger as n8n hands it the static data.
 *
 * Besides the program steps, a draft or a booking may use the office phone (`office: true`): one number
 * many customers book with, which the trigger treats as shared once a poll has read bookings of more
 * than three e-mails on it (README "The same customer"). The history then knows those customers by
 * their e-mail alone, as the trigger must from then on: a program books four e-mails on it before any
 * draft uses it.
 */
import { isDeepStrictEqual } from 'node:util';

import type { TriggerEvent } from '../../nodes/BookingRequestsTrigger/events';
import type { BookingRequest, BookingSession } from '../../nodes/shared/types';
import type { Activity, PollRecord, Program, Run, Step, TriggerUnderTest } from './triggerProgram';
import { customerKeys, ProgramRunner } from './triggerProgram';
import { judge } from './triggerOracle';
import { resetIds } from './triggerWorld';

/** The office phone, as a draft holds it and as a request holds it. */
export const OFFICE_PHONE = { draft: '(512) 555-9999', request: '+15125559999' };
const OFFICE_KEYS = customerKeys(null, OFFICE_PHONE.request);

/** A poll before the upgrade, as the code that wrote the fixture made it. */
export interface RecordedPoll {
	/** Its events; a session's or request's fields that equal the world's row at the upgrade are left out (`compactEvents`). */
	events: unknown[];
	cut: boolean;
	/** Page reads and Get requests it made (activity between its page reads happens before the same ones again). */
	calls: number;
	/** It returned a state (saved unless its step drops it). */
	wrote: boolean;
}

/** What the first poll after the upgrade must emit (today's code emitted it in that poll): no new start, the memories used. */
export interface ExpectedEvent {
	eventId: string;
	/** Request Updated: the values before the change (what the records remembered). */
	previous?: Record<string, unknown> | null;
	/** Session Completed: recovered, and from which reminder (what the customers' memory remembered). */
	recovered?: boolean;
	recoveredFromSessionId?: string | null;
}

export interface UpgradeFixture {
	name: string;
	/** What the run exercises. */
	about: string;
	/** The commit whose code wrote the state and the polls before the upgrade. */
	writtenBy: string;
	program: Program;
	/** The steps from `program.steps[upgradeAt]` on come after the upgrade: their first poll is the first by the code under test. */
	upgradeAt: number;
	polls: RecordedPoll[];
	/** The poll whose state n8n holds at the upgrade (the newest saved one still kept). */
	top: number;
	/** The static data at the upgrade: the trigger's state as that poll saved it. */
	state: unknown;
	firstPoll: ExpectedEvent[];
	/** The world at the upgrade (`worldAt`): the rebuilt one must be the same. */
	atUpgrade: WorldAt;
}

/** What the world's history had come to: its last activity, its clock, its rows. */
export interface WorldAt {
	seq: number;
	now: number;
	sessions: number;
	requests: number;
}

export function worldAt(runner: ProgramRunner): WorldAt {
	return { seq: runner.seq, now: runner.world.now, sessions: runner.world.sessions.length, requests: runner.world.requests.length };
}

const isOffice = (step: Activity): boolean => (step as { office?: boolean }).office === true;

/** The program runner, with the office phone and a run that stops where a fixture was saved. */
export class UpgradeRunner extends ProgramRunner {
	/** Called once, before the program's step `upgradeAt.step` (the world then as it was at the upgrade). */
	upgradeAt?: { step: number; reached: () => void };
	private stepsRun = 0;
	/** Drafts started with the office phone, once a step used it. */
	private officeDrafts?: Set<string>;

	override act(step: Activity): void {
		const seq = this.seq;
		super.act(step);
		if (!isOffice(step) || this.seq === seq) return this.forgetOfficeKeys();
		this.officeDrafts ??= new Set();
		if (step.k === 'start') {
			for (const history of this.sessions.values()) {
				if (history.createdSeq !== this.seq) continue;
				const session = this.world.sessions.find((row) => row.id === history.id) as BookingSession;
				const contact = (session.data as { contact: { email: string | null } }).contact;
				session.data = { contact: { ...contact, phone: OFFICE_PHONE.draft } };
				history.periods[history.periods.length - 1].keys = customerKeys(contact.email, OFFICE_PHONE.draft);
				this.officeDrafts.add(session.id);
			}
		} else if (step.k === 'book' || step.k === 'request') {
			for (const history of this.requests.values()) {
				if (history.seq !== this.seq) continue;
				const request = this.world.requests.find((row) => row.id === history.id) as BookingRequest;
				request.phone = OFFICE_PHONE.request;
				history.versions[0].phone = OFFICE_PHONE.request;
				history.keys = customerKeys(request.email, OFFICE_PHONE.request);
			}
		} else throw new Error(`office: only drafts started, bookings and requests (${step.k})`);
		this.forgetOfficeKeys();
	}

	/** The office phone identifies nobody: the history keeps each customer's other keys only (a completed office draft's request too). */
	private forgetOfficeKeys(): void {
		if (!this.officeDrafts) return;
		const others = (keys: string[]) => keys.filter((key) => !OFFICE_KEYS.includes(key));
		for (const id of this.officeDrafts) for (const period of this.sessions.get(id)!.periods) period.keys = others(period.keys);
		for (const history of this.requests.values()) history.keys = others(history.keys);
	}

	override async step(step: Step): Promise<void> {
		if (this.stepsRun++ === this.upgradeAt?.step) this.upgradeAt.reached();
		await super.step(step);
	}

	/** The baseline and the program's steps before `upgradeAt` (what `run` does first). */
	async runUntil(upgradeAt: number): Promise<void> {
		for (const step of this.program.before) this.act(step);
		await this.poll({ budget: null, baseline: true });
		for (const step of this.program.steps.slice(0, upgradeAt)) await this.step(step);
	}
}

// ---------------------------------------------------------------- the events of the polls before the upgrade

type Row = Record<string, unknown>;
/** A field of the world's row the event's copy lacks. */
const ABSENT = { absent: true };

function rowOf(runner: ProgramRunner, field: 'session' | 'request', id: string): Row | undefined {
	const rows: Array<{ id: string }> = field === 'session' ? runner.world.sessions : runner.world.requests;
	return rows.find((row) => row.id === id) as Row | undefined;
}

/** An event's session and request as the fields that differ from the world's rows now (ids kept). */
export function compactEvents(runner: ProgramRunner, events: readonly TriggerEvent[]): unknown[] {
	return events.map((event) => {
		const out: Row = { ...event };
		for (const field of ['session', 'request'] as const) {
			const copy = event[field] as Row | null | undefined;
			const row = copy && rowOf(runner, field, copy.id as string);
			if (!copy || !row) continue;
			const differs: Row = { id: copy.id };
			for (const key of new Set([...Object.keys(row), ...Object.keys(copy)])) {
				if (!(key in copy)) differs[key] = ABSENT;
				else if (!isDeepStrictEqual(copy[key], row[key])) differs[key] = copy[key];
			}
			out[field] = differs;
		}
		return out;
	});
}

/** The events as they were emitted, from their compact form and the world's rows now (`compactEvents`' inverse). */
export function expandEvents(runner: ProgramRunner, events: readonly unknown[]): TriggerEvent[] {
	return events.map((compact) => {
		const event = structuredClone(compact) as Row;
		for (const field of ['session', 'request'] as const) {
			const differs = event[field] as Row | null | undefined;
			const row = differs && rowOf(runner, field, differs.id as string);
			if (!differs || !row) continue;
			const full: Row = { ...structuredClone(row), ...differs };
			for (const [key, value] of Object.entries(differs)) if (isDeepStrictEqual(value, ABSENT)) delete full[key];
			event[field] = full;
		}
		return event as unknown as TriggerEvent;
	});
}

// ---------------------------------------------------------------- the run across the upgrade

/**
 * The trigger of a run across the upgrade: the polls before it replayed from the fixture (the same
 * calls, so that activity between page reads happens as it did), then `after` from the state saved.
 * A state before the upgrade other than the fixture's is never handed on (a step that rolled back past
 * the upgrade would load it): it fails the run.
 */
class ReplayTrigger implements TriggerUnderTest {
	private polls = 0;
	/** The first poll by the code under test, once it ran: its index in the run. */
	firstAfter?: number;

	constructor(
		private readonly fixture: UpgradeFixture,
		private readonly after: TriggerUnderTest,
	) {}

	async poll(...args: Parameters<TriggerUnderTest['poll']>): ReturnType<TriggerUnderTest['poll']> {
		const [source, saved] = args;
		const index = this.polls++;
		const recorded = this.fixture.polls[index];
		if (recorded) {
			for (let call = 0; call < recorded.calls; call++) await source.readPage('sessions', 1);
			const state = !recorded.wrote ? undefined : index === this.fixture.top ? structuredClone(this.fixture.state) : { replayedPoll: index };
			return { events: [], cut: recorded.cut, state };
		}
		this.firstAfter ??= index;
		if (saved !== null && typeof saved === 'object' && 'replayedPoll' in saved) throw new Error(`poll ${index} would load the state of poll ${String(saved.replayedPoll)}, before the upgrade: not in the fixture`);
		return this.after.poll(...args);
	}
}

export interface UpgradeRun {
	run: Run;
	/** The first poll by the code under test. */
	firstAfter: PollRecord;
}

/** The fixture's program run across the upgrade, the polls after it by `after` (the code of this checkout). */
export async function runAcrossUpgrade(fixture: UpgradeFixture, after: TriggerUnderTest): Promise<UpgradeRun> {
	resetIds();
	const trigger = new ReplayTrigger(fixture, after);
	const runner = new UpgradeRunner(fixture.program, trigger);
	runner.upgradeAt = {
		step: fixture.upgradeAt,
		reached: () => {
			const now = worldAt(runner);
			if (!isDeepStrictEqual(now, fixture.atUpgrade)) throw new Error(`${fixture.name}: the world rebuilt is not the one the fixture was written in: ${JSON.stringify(now)}, written at ${JSON.stringify(fixture.atUpgrade)}`);
			// The world is as it was when the fixture was written: the events before the upgrade come back whole.
			fixture.polls.forEach((poll, i) => (runner.polls[i].events = expandEvents(runner, poll.events)));
		},
	};
	const run = await runner.run();
	if (trigger.firstAfter === undefined) throw new Error(`${fixture.name}: no poll after the upgrade`);
	return { run, firstAfter: run.polls[trigger.firstAfter] };
}

/**
 * What is wrong with the run across the upgrade, one line each (none: nothing lost or repeated, no new
 * start, the memories used): the oracle's violations over the whole run, and each event the first poll
 * after the upgrade must emit (`firstPoll`) that it did not, or emitted with another `previous` or
 * recovery.
 */
export async function upgradeFindings(fixture: UpgradeFixture, after: TriggerUnderTest): Promise<string[]> {
	const { run, firstAfter } = await runAcrossUpgrade(fixture, after);
	const findings = judge(fixture.program, run).map((violation) => `${violation.tag}: ${violation.message}`);
	for (const expected of fixture.firstPoll) {
		const event = firstAfter.events.find((emitted) => emitted.eventId === expected.eventId);
		if (!event) {
			findings.push(`first poll after the upgrade: ${expected.eventId} not emitted (emitted: ${firstAfter.events.map((emitted) => emitted.eventId).join(', ') || 'nothing'})`);
			continue;
		}
		const got: ExpectedEvent = { eventId: event.eventId };
		if ('previous' in expected) got.previous = event.previous ?? null;
		if ('recovered' in expected) [got.recovered, got.recoveredFromSessionId] = [event.recovered === true, event.recoveredFromSessionId ?? null];
		// compared as JSON (the fixture's form): an event's `previous` may be built without Object's prototype
		if (!isDeepStrictEqual(JSON.parse(JSON.stringify(got)), expected)) findings.push(`first poll after the upgrade: ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
	}
	return findings;
}
