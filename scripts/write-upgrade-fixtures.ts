/**
 * Writes test/fixtures/upgrade/*.json: states saved by the trigger of this checkout after some polls of a
 * deterministic program (test/support/triggerProgram.ts), with what the upgrade test
 * (test/nodes/BookingRequestsTrigger/upgradeToday.unit.test.ts) needs to go on from them with later code
 * and judge the whole run with the oracle (test/support/upgradeReplay.ts).
 *
 *   node scripts/ts-run.js scripts/write-upgrade-fixtures.ts [name...]   # writes them (all, or those named)
 *   node scripts/ts-run.js scripts/write-upgrade-fixtures.ts --check      # writes nothing: runs and checks them
 *   ... --verbose                                                           # and shows each poll, state and row (to write a program)
 *
 * Run it on the commit whose stored states the fixtures keep (they say which: `writtenBy`); on later code
 * it would write that code's states, which is not what they are for. For each program it checks that the
 * state holds the parts the program is meant to exercise, that the whole program (no upgrade) and the run
 * across the upgrade with this code are judged clean by the oracle, and it keeps what the first poll after
 * the upgrade emitted (the upgrade test requires it again: no new start, the memories used).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { decodingTrigger, keepingTrigger } from '../test/support/triggerDiff';
import { judge } from '../test/support/triggerOracle';
import type { Activity, FuzzSettings, Program, RequestChangeSpec, Run, Step } from '../test/support/triggerProgram';
import { DAY, FORMS } from '../test/support/triggerProgram';
import { MIN, resetIds } from '../test/support/triggerWorld';
import type { ExpectedEvent, RecordedPoll, UpgradeFixture } from '../test/support/upgradeReplay';
import { UpgradeRunner, compactEvents, expandEvents, runAcrossUpgrade, upgradeFindings, worldAt } from '../test/support/upgradeReplay';

const OUT = path.join(__dirname, '../test/fixtures/upgrade');

interface Definition {
	name: string;
	about: string;
	settings: FuzzSettings;
	before?: Activity[];
	/** Steps before the upgrade (polls by this checkout's code). */
	pre: Step[];
	/** Steps after it; its first poll (the first by the code under test) is unlimited. */
	post: Step[];
	/** Paths in the state saved at the upgrade that must hold something (what the program is meant to exercise). */
	parts: string[];
}

const poll = (budget: number | null = null, more: Partial<Extract<Step, { k: 'poll' }>> = {}): Step => ({ k: 'poll', budget, ...more });
const tick = (minutes: number): Step => ({ k: 'tick', ms: minutes * MIN });
const jump = (ms: number): Step => ({ k: 'jump', ms });
/** A step with the office phone (test/support/upgradeReplay.ts: one number many customers book with). */
const office = (step: Activity): Step => Object.assign(step, { office: true });
/** The request `r` (counted from the newest) changed; `updated_at` stamped unless said. */
const change = (r: number, spec: RequestChangeSpec, updatedAt: 'now' | 'null' | 'keep' = 'now'): Step => ({ k: 'change', r, change: spec, updatedAt });

const trigger = (events: Partial<FuzzSettings['trigger']['events']>, options: Partial<FuzzSettings['trigger']>): FuzzSettings['trigger'] => ({
	events: { sessionAbandoned: false, sessionCompleted: false, requestCreated: false, requestUpdated: false, ...events },
	abandonedAfterMs: 5 * MIN,
	fireAgainIfReabandoned: false,
	onlyRecovered: false,
	skipIfBooked: false,
	customerCooldownMs: 0,
	onlyWithEmail: false,
	fingerprint: 'fp-upgrade',
	...options,
});

const DEFINITIONS: Definition[] = [
	{
		name: 'retarget',
		about:
			'Session Abandoned, Session Completed (with its booking request) and New Request; Skip Customers Who Booked, a 3-day cooldown; reminders, bookings and sessions seen on three UTC days; after the upgrade a draft of a customer who booked before it, a reminded customer idle again within the cooldown, a session seen abandoned idle again (without Fire Again), a completion recovered from a reminder before the upgrade',
		settings: {
			trigger: trigger({ sessionAbandoned: true, sessionCompleted: true, requestCreated: true }, { skipIfBooked: true, customerCooldownMs: 3 * DAY }),
			perPage: 3,
			includeRequest: true,
			drainBudget: null,
		},
		before: [{ k: 'start', c: 0, form: 0, contact: 'both' }, { k: 'request', c: 1, form: 0 }],
		pre: [
			{ k: 'start', c: 0, form: 0, contact: 'both' },
			{ k: 'start', c: 1, form: 0, contact: 'email', late: 1_500 },
			{ k: 'start', c: 2, form: 1, contact: 'phone' },
			{ k: 'start', c: 6, form: 0, contact: 'none' },
			tick(6),
			poll(),
			{ k: 'start', c: 3, form: 0, contact: 'both' },
			tick(1),
			{ k: 'book', c: 3, form: 0, late: 900 },
			tick(1),
			poll(),
			jump(DAY),
			{ k: 'start', c: 4, form: 0, contact: 'both' },
			{ k: 'complete', s: 0, from: 'old' },
			tick(6),
			poll(),
			jump(DAY),
			{ k: 'start', c: 5, form: 0, contact: 'email' },
			tick(1),
			{ k: 'book', c: 5, form: 1 },
			{ k: 'request', c: 4, form: 0, n: 2 },
			tick(1),
			poll(4),
		],
		post: [{ k: 'start', c: 4, form: 0, contact: 'email' }, { k: 'save', s: 3 }, { k: 'complete', s: 1, from: 'old' }, { k: 'start', c: 7, form: 1, contact: 'both' }, tick(6), poll(), tick(1), poll(2)],
		parts: ['sessions.seen', 'sessions.booked', 'sessions.reminded'],
	},
	{
		name: 'recovered',
		about:
			'Session Abandoned and Session Completed with Only Recovered, Fire Again If Reabandoned, Only Sessions With an E-Mail, a 1-day cooldown and Skip Customers Who Booked, under a Form filter (the request list read for every form); after the upgrade a completion recovered from a reminder before it, a reminded customer idle again within the cooldown, a draft reminded before it idle again (Fire Again)',
		settings: {
			trigger: trigger(
				{ sessionAbandoned: true, sessionCompleted: true },
				{ fireAgainIfReabandoned: true, onlyRecovered: true, onlyWithEmail: true, customerCooldownMs: DAY, skipIfBooked: true, requestsForm: FORMS[0] },
			),
			perPage: 2,
			includeRequest: false,
			form: FORMS[0],
			drainBudget: null,
		},
		pre: [
			{ k: 'start', c: 0, form: 0, contact: 'both' },
			{ k: 'start', c: 1, form: 0, contact: 'phone' },
			{ k: 'start', c: 2, form: 1, contact: 'both' },
			{ k: 'start', c: 3, form: 0, contact: 'email', late: 800 },
			tick(6),
			poll(),
			{ k: 'complete', s: 2, from: 'old' },
			{ k: 'book', c: 2, form: 1 },
			tick(1),
			poll(),
			jump(DAY),
			{ k: 'start', c: 4, form: 0, contact: 'both' },
			tick(6),
			poll(3),
			jump(DAY),
			{ k: 'start', c: 5, form: 0, contact: 'email' },
			tick(6),
			poll(),
		],
		post: [
			{ k: 'save', s: 0 },
			{ k: 'start', c: 5, form: 0, contact: 'email' },
			{ k: 'complete', s: 1, from: 'old' },
			{ k: 'start', c: 6, form: 0, contact: 'email' },
			tick(6),
			poll(),
			tick(1),
			poll(),
		],
		parts: ['sessions.seen', 'sessions.booked', 'sessions.reminded'],
	},
	{
		name: 'updates-contact',
		about:
			'Request Updated with Contact among the Fields to Watch (the contacts sealed) and New Request; Watch the Newest 20 at 2 a page (10 pages), the last poll before the upgrade cut mid-rotation (its cursor set); changes with updated_at set, null and kept, an e-mail written in another spelling, on requests from before activation and after it; after the upgrade changes reported with the values before them (first name, status) from the records',
		settings: {
			trigger: trigger(
				{ requestCreated: true, requestUpdated: true },
				{ updates: { watchNewest: 20, fields: ['status', 'lead_status', 'internal_notes', 'completed_at', 'contact'], statusTo: [], leadStatusTo: [] } },
			),
			perPage: 2,
			includeRequest: false,
			drainBudget: null,
		},
		before: Array.from({ length: 4 }, (_, i): Activity => ({ k: 'request', c: i, form: (i === 2 ? 1 : 0) as 0 | 1, n: 3 })),
		pre: [
			change(3, { status: 'confirmed' }),
			change(10, { lead_status: 'won' }, 'null'),
			tick(1),
			poll(),
			{ k: 'request', c: 1, form: 0, n: 2 },
			{ k: 'request', c: 2, form: 1, n: 3, sameMs: true },
			change(8, { notes: 'call back' }, 'keep'),
			change(1, { first_name: 'Grace' }),
			tick(1),
			poll(),
			{ k: 'request', c: 3, form: 0, n: 4 },
			change(10, { emailSpelling: true }),
			change(16, { completed: true }),
			tick(1),
			poll(),
			jump(DAY),
			{ k: 'request', c: 5, form: 0, late: 1_200 },
			change(6, { status: 'cancelled', lead_status: 'lost' }),
			tick(1),
			poll(4),
		],
		post: [
			change(6, { first_name: 'Alan' }),
			change(13, { status: 'complete' }),
			{ k: 'request', c: 4, form: 1 },
			tick(1),
			poll(),
			change(18, { notes: 'paid' }),
			tick(1),
			poll(),
		],
		parts: ['updates', 'updates.cursor'],
	},
	{
		name: 'updates-plain',
		about:
			'Request Updated without Contact (status, lead status, notes, completion), Session Abandoned and Session Completed, under a Form filter (form B: the request list read for it only); Watch the Newest 500 at 3 a page; requests of both forms changed before and after the upgrade, n8n\'s clock 3 hours off the API\'s; after it changes reported with the values before them from the records',
		settings: {
			trigger: trigger(
				{ sessionAbandoned: true, sessionCompleted: true, requestUpdated: true },
				{ updates: { watchNewest: 500, fields: ['status', 'lead_status', 'internal_notes', 'completed_at'], statusTo: [], leadStatusTo: [] } },
			),
			perPage: 3,
			includeRequest: false,
			form: FORMS[1],
			drainBudget: 3,
		},
		before: [{ k: 'request', c: 0, form: 1, n: 3 }, { k: 'request', c: 1, form: 0, n: 2 }, { k: 'start', c: 2, form: 1, contact: 'both' }],
		pre: [
			{ k: 'start', c: 3, form: 1, contact: 'email' },
			{ k: 'start', c: 4, form: 0, contact: 'both' },
			change(1, { status: 'confirmed' }),
			change(4, { status: 'cancelled' }),
			tick(6),
			poll(),
			{ k: 'complete', s: 1, from: 'old' },
			{ k: 'request', c: 5, form: 1, n: 2, late: 700 },
			change(3, { notes: 'call back', lead_status: 'won' }),
			tick(1),
			poll(2, { save: 'drop' }),
			tick(1),
			poll(),
			jump(2 * DAY),
			{ k: 'skew', ms: 3 * 3_600_000 },
			change(0, { completed: true }, 'null'),
			{ k: 'book', c: 0, form: 1 },
			tick(1),
			poll(),
		],
		post: [
			change(8, { status: 'complete' }),
			change(5, { status: 'complete' }),
			change(3, { lead_status: 'lost' }, 'keep'),
			{ k: 'start', c: 1, form: 1, contact: 'both' },
			tick(6),
			poll(),
			change(1, { notes: 'paid' }),
			tick(1),
			poll(2),
			tick(1),
			poll(),
		],
		parts: ['updates', 'sessions.seen'],
	},
	{
		name: 'updates-filtered',
		about:
			'Request Updated with Only When Status Changes To (confirmed) and Only When Lead Status Changes To (won, lost), Watch the Newest 6 at 2 a page, and New Request: changes the filters leave out consumed before the upgrade; after it a change that passes reported with only what changed since',
		settings: {
			trigger: trigger(
				{ requestCreated: true, requestUpdated: true },
				{ updates: { watchNewest: 6, fields: ['status', 'lead_status', 'completed_at'], statusTo: ['confirmed'], leadStatusTo: ['won', 'lost'] } },
			),
			perPage: 2,
			includeRequest: false,
			drainBudget: null,
		},
		before: [{ k: 'request', c: 0, form: 0, n: 4 }],
		pre: [
			{ k: 'request', c: 1, form: 0, n: 4 },
			tick(1),
			poll(),
			change(1, { status: 'cancelled' }),
			change(2, { status: 'confirmed' }),
			change(4, { lead_status: 'won', completed: true }),
			tick(1),
			poll(),
			change(3, { completed: true }, 'keep'),
			tick(1),
			poll(),
		],
		post: [
			change(1, { lead_status: 'lost' }),
			change(3, { status: 'confirmed' }),
			change(4, { status: 'cancelled' }),
			tick(1),
			poll(),
			tick(1),
			poll(),
		],
		parts: ['updates'],
	},
	{
		name: 'held',
		about:
			'Session Abandoned and Session Completed with Only Recovered and Skip Customers Who Booked: 8 drafts under 110 bookings, polled a delay later under a 9-call budget: the horizon passed the backlog and holds the drafts at the upgrade; after it one held draft saved again, one completed, the others judged on a fresh read of their pages',
		settings: {
			trigger: trigger({ sessionAbandoned: true, sessionCompleted: true }, { onlyRecovered: true, skipIfBooked: true, abandonedAfterMs: MIN }),
			perPage: 25,
			includeRequest: false,
			drainBudget: 9,
		},
		pre: [
			tick(1),
			...Array.from({ length: 8 }, (_, i): Step => ({ k: 'start', c: 30 + i, form: 0, contact: i % 4 === 3 ? 'phone' : 'both' })),
			...Array.from({ length: 110 }, (_, i): Step => ({ k: 'book', c: 40 + (i % 60), form: 0 })),
			tick(2),
			poll(9),
		],
		post: [{ k: 'save', s: 2 }, { k: 'complete', s: 5, from: 'old' }, { k: 'start', c: 0, form: 0, contact: 'email' }, tick(2), poll(), tick(1), poll()],
		parts: ['sessions.held', 'sessions.booked'],
	},
	{
		name: 'ties',
		about:
			'Session Abandoned, Session Completed (with its booking request) and New Request at 2 a page under 6-call budgets: 12 requests and 6 drafts in one millisecond each (a tie group larger than a poll reads), writes committed late, activity between a poll\'s page reads, a save n8n dropped and a state rolled back; the upgrade while the tie group is being drained',
		settings: {
			trigger: trigger({ sessionAbandoned: true, sessionCompleted: true, requestCreated: true }, {}),
			perPage: 2,
			includeRequest: true,
			drainBudget: 6,
		},
		before: [{ k: 'request', c: 5, form: 0, n: 2 }],
		pre: [
			{ k: 'request', c: 0, form: 0, n: 12, sameMs: true },
			{ k: 'start', c: 1, form: 0, contact: 'both', n: 6 },
			{ k: 'book', c: 2, form: 1, late: 1_500, lateRequest: 400 },
			tick(1),
			poll(6),
			poll(6, { churn: [{ at: 1, act: { k: 'request', c: 3, form: 0, late: 2_500 } }] }),
			poll(6, { save: 'drop' }),
			tick(1),
			poll(6),
			{ k: 'rollback', back: 1 },
			poll(6),
			poll(6),
		],
		post: [{ k: 'complete', s: 0, from: 'old', late: 1_000 }, { k: 'request', c: 4, form: 0 }, tick(6), poll(), tick(1), poll(3), poll()],
		parts: ['requests.tie'],
	},
	{
		name: 'office',
		about:
			'Session Abandoned, Session Completed and New Request with Skip Customers Who Booked and a 3-day cooldown: four customers book with one office phone (shared: it identifies nobody), then a customer with it is reminded; after the upgrade another customer with the office phone starts a draft and a third books with it (no skip), the reminded one is held back by the cooldown (by e-mail)',
		settings: {
			trigger: trigger({ sessionAbandoned: true, sessionCompleted: true, requestCreated: true }, { skipIfBooked: true, customerCooldownMs: 3 * DAY }),
			perPage: 3,
			includeRequest: false,
			drainBudget: null,
		},
		pre: [
			...[10, 11, 12, 13].map((c) => office({ k: 'book', c, form: 0 })),
			tick(1),
			poll(),
			office({ k: 'start', c: 14, form: 0, contact: 'both' }),
			tick(6),
			poll(),
			jump(DAY),
			{ k: 'book', c: 15, form: 0 },
			tick(1),
			poll(),
		],
		post: [
			office({ k: 'start', c: 16, form: 0, contact: 'both' }),
			{ k: 'start', c: 14, form: 0, contact: 'email' },
			tick(1),
			office({ k: 'book', c: 17, form: 0 }),
			tick(6),
			poll(),
			tick(1),
			poll(),
		],
		parts: ['sessions.shared', 'sessions.reminded', 'sessions.booked'],
	},
];

// ---------------------------------------------------------------- writing

/** Which poll's state n8n holds after the steps before the upgrade: the saved ones, dropped saves and rollbacks applied. */
function topPoll(steps: readonly Step[], wrote: readonly boolean[]): number {
	const stack: number[] = wrote[0] ? [0] : [];
	let index = 0;
	for (const step of steps) {
		if (step.k === 'poll') {
			index++;
			if (wrote[index] && step.save !== 'drop') stack.push(index);
		} else if (step.k === 'rollback') stack.length = Math.min(stack.length, Math.max(1, stack.length - step.back));
	}
	if (stack.length === 0) throw new Error('no state saved before the upgrade');
	return stack[stack.length - 1];
}

function pathValue(state: unknown, dotted: string): unknown {
	return dotted.split('.').reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), state);
}

const isEmpty = (value: unknown): boolean =>
	value === undefined || value === null || value === '' || (typeof value === 'object' && Object.keys(value).length === 0);

function expectedOf(event: Record<string, unknown>): ExpectedEvent {
	const out: ExpectedEvent = { eventId: event.eventId as string };
	if (event.event === 'request.updated') out.previous = (event.previous ?? null) as ExpectedEvent['previous'];
	if (event.event === 'session.completed') {
		out.recovered = event.recovered === true;
		out.recoveredFromSessionId = (event.recoveredFromSessionId ?? null) as string | null;
	}
	return out;
}

/** The whole program with this code, no upgrade: it must be judged clean, or the fixture would test the program. */
async function checkStraight(name: string, program: Program): Promise<void> {
	resetIds();
	const run = await new UpgradeRunner(program, keepingTrigger(`write-upgrade:${name}:straight`)).run();
	const found = judge(program, run).map((violation) => `${violation.tag}: ${violation.message}`);
	if (found.length > 0) throw new Error(`${name}: the program is not judged clean without an upgrade:\n${found.join('\n')}`);
}

/** The steps before the upgrade, polled as the published node polls (the memory kept between polls): the polls, and the state n8n holds then. */
async function beforeUpgrade(definition: Definition, program: Program): Promise<Pick<UpgradeFixture, 'polls' | 'top' | 'state' | 'atUpgrade'>> {
	const { name } = definition;
	const keeping = keepingTrigger(`write-upgrade:${name}`);
	resetIds();
	const runner = new UpgradeRunner(program, keeping);
	await runner.runUntil(definition.pre.length);
	const polls: RecordedPoll[] = runner.polls.map((record, i) => ({ events: compactEvents(runner, record.events), cut: record.cut, calls: record.calls, wrote: keeping.states[i] !== null }));
	polls.forEach((recorded, i) => {
		if (!isDeepStrictEqual(expandEvents(runner, recorded.events), runner.polls[i].events)) throw new Error(`${name}: poll ${i}'s events do not expand back to what it emitted`);
	});
	if (VERBOSE) describeWorld(name, runner, keeping.states);
	const top = topPoll(definition.pre, polls.map((recorded) => recorded.wrote));
	const state = keeping.states[top];
	const missing = definition.parts.filter((part) => isEmpty(pathValue(state, part)));
	if (missing.length > 0) throw new Error(`${name}: the state at the upgrade holds nothing at ${missing.join(', ')}`);
	return { polls, top, state, atUpgrade: worldAt(runner) };
}

async function fixtureOf(definition: Definition, commit: string): Promise<UpgradeFixture> {
	const { name } = definition;
	const program: Program = { settings: definition.settings, before: definition.before ?? [], steps: [...definition.pre, ...definition.post] };
	const first = definition.post.find((step) => step.k === 'poll');
	if (first?.k !== 'poll' || first.budget !== null || first.save === 'drop') throw new Error(`${name}: the first poll after the upgrade is unlimited and saved`);
	if (definition.post.some((step) => step.k === 'rollback')) throw new Error(`${name}: a rollback after the upgrade could load a state from before it, which the fixture does not keep`);
	await checkStraight(name, program);
	const fixture: UpgradeFixture = { name, about: definition.about, writtenBy: commit, program, upgradeAt: definition.pre.length, ...(await beforeUpgrade(definition, program)), firstPoll: [] };
	// Across the upgrade with this code (a new process: the state decoded): what its first poll emits, then judged as the test judges it.
	const across = await runAcrossUpgrade(fixture, keepingTrigger(`write-upgrade:${name}:after`));
	if (VERBOSE) describeRun(fixture, across.run);
	fixture.firstPoll = across.firstAfter.events.map((event) => expectedOf(event as unknown as Record<string, unknown>));
	if (fixture.firstPoll.length === 0) throw new Error(`${name}: the first poll after the upgrade emits nothing (it could not tell a new start)`);
	for (const after of [keepingTrigger(`write-upgrade:${name}:check`), decodingTrigger()]) {
		const found = await upgradeFindings(fixture, after);
		if (found.length > 0) throw new Error(`${name}: the run across the upgrade is not judged clean:\n${found.join('\n')}`);
	}
	return fixture;
}

// ---------------------------------------------------------------- --verbose: what a program does (to write one)

const VERBOSE = process.argv.includes('--verbose');
const short = (id: string) => id.replace(/00000000-0000-4000-8000-0*/g, '#');

function describeWorld(name: string, runner: UpgradeRunner, states: readonly unknown[]): void {
	const open = runner.world.sessions.filter((row) => row.request_id === null).sort((a, b) => (a.created_at! < b.created_at! ? -1 : a.created_at! > b.created_at! ? 1 : a.id < b.id ? -1 : 1));
	console.log(`--- ${name}: open drafts at the upgrade, oldest first (save and complete count them): ${open.map((row, i) => `${i}=${short(row.id)} ${JSON.stringify((row.data as { contact?: unknown })?.contact)}`).join('; ')}`);
	console.log(`requests at the upgrade, newest first (change counts them): ${runner.world.sortedRequests().map((row, i) => `${i}=${short(row.id)}`).join(' ')}`);
	states.forEach((written, i) => console.log(`state of poll ${i}: ${JSON.stringify(written)}`));
}

function describeRun(fixture: UpgradeFixture, run: Run): void {
	for (const record of run.polls) {
		const mark = record.index === fixture.polls.length ? ' <- the first after the upgrade' : '';
		const events = record.events.map((event) => `${short(event.eventId)}${event.previous ? ` previous=${JSON.stringify(event.previous)}` : ''}${event.recovered ? ` recovered from ${short(event.recoveredFromSessionId ?? '')}` : ''}`);
		console.log(`poll ${record.index} budget ${record.budget} calls ${record.calls}${record.cut ? ' cut' : ''}${record.kept ? '' : ' (not kept)'} at ${new Date(record.startNow).toISOString()}${mark}: ${events.join(' ')}`);
	}
}

/** One line per step and per poll: small and readable in a diff. */
function format(fixture: UpgradeFixture): string {
	const lines = (items: readonly unknown[]) => `[\n${items.map((item) => `\t\t${JSON.stringify(item)}`).join(',\n')}\n\t]`;
	const { program, polls, firstPoll, ...rest } = fixture;
	const { state, ...head } = rest;
	const body = [
		...Object.entries(head).map(([key, value]) => `\t${JSON.stringify(key)}: ${JSON.stringify(value)}`),
		`\t"program": {\n\t\t"settings": ${JSON.stringify(program.settings)},\n\t\t"before": ${JSON.stringify(program.before)},\n\t\t"steps": ${lines(program.steps).replace(/\n/g, '\n\t')}\n\t}`,
		`\t"polls": ${lines(polls)}`,
		`\t"state": ${JSON.stringify(state)}`,
		`\t"firstPoll": ${lines(firstPoll)}`,
	];
	return `{\n${body.join(',\n')}\n}\n`;
}

async function main(): Promise<void> {
	const args = process.argv.slice(2);
	const check = args.includes('--check');
	const names = args.filter((arg) => !arg.startsWith('--'));
	// The commit of the code that writes the states: the newest that changed the nodes (none changed since).
	if (execFileSync('git', ['status', '--porcelain', '--', 'nodes'], { encoding: 'utf8' }).trim() !== '') throw new Error('nodes/ has changes not committed: the fixtures would name no commit that wrote them');
	const commit = execFileSync('git', ['log', '-1', '--format=%h', '--', 'nodes'], { encoding: 'utf8' }).trim();
	const chosen = DEFINITIONS.filter((definition) => names.length === 0 || names.includes(definition.name));
	if (!check) mkdirSync(OUT, { recursive: true });
	for (const definition of chosen) {
		const fixture = await fixtureOf(definition, commit);
		const text = format(fixture);
		if (!isDeepStrictEqual(JSON.parse(text), JSON.parse(JSON.stringify(fixture)))) throw new Error(`${definition.name}: the written form does not read back`);
		const events = fixture.polls.reduce((sum, recorded) => sum + recorded.events.length, 0);
		console.log(
			`${definition.name}: ${text.length} bytes (state ${JSON.stringify(fixture.state).length}); ${fixture.polls.length} polls and ${events} events before the upgrade, ${fixture.firstPoll.length} in the first poll after it; parts: ${definition.parts.join(', ')}`,
		);
		if (!check) writeFileSync(path.join(OUT, `${definition.name}.json`), text);
	}
}

void main().catch((error) => {
	console.error(error);
	process.exit(1);
});
