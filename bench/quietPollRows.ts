/**
 * Benchmark row "quiet poll CPU ratio" (child-process entry, like triggerRows.ts: prints its RowResult
 * list as JSON on the last line): what a poll of a large client costs in CPU against reading the same
 * pages with Get Many, in one process and run. The client: Watch the Newest 5,000 of 47,500+
 * requests, 5,000 sessions and 50,000 customers in the trigger's memory — 47,500 who booked in the
 * last 6 days (e-mail and phone each) and 2,500 it reported abandoned — all put there by the trigger
 * itself: published 6.5 days back on the sandbox clock, it polled that traffic as it came (36 steps
 * of 4 hours). All four events, Skip Customers Who Booked on (node version 1.1), Simplify on.
 *
 * Then, alternately, `reps` times (after 2 unmeasured warm-up rounds):
 * (a) a quiet poll (nothing changed), then (c) the same pages read with Get Many;
 * (b) a poll after 40 changes — 10 drafts left (due), 10 drafts completed, 10 bookings without a
 *     draft, 10 lead status changes on page 1 — then (c) its pages with Get Many.
 * Each measured alone in the process (workMeter.ts): CPU (process and main thread) and the bytes V8
 * allocated (the repeatable count). The sandboxes run in a child process (harness/agency/fleet.ts):
 * their CPU is not counted. The API's gap is 25 ms (pacing set to match) so that the run is CPU-bound
 * but over real HTTP; the rate changes no CPU figure, only the wall time.
 *
 * Also the static data's bytes at 5,000 watched requests: this trigger's, and a Request Updated-only
 * trigger's with and without Contact in Fields to Watch (per watched request).
 *
 * Usage: node scripts/ts-run.js bench/quietPollRows.ts [reps=11]
 *        `npm run bench -- --only=cpu` runs it and prints its rows.
 */
import type { INodeParameters } from 'n8n-workflow';

import { ActiveTrigger } from '../harness/agency/activeTrigger';
import { SandboxFleet } from '../harness/agency/fleet';
import { callsOf, readSamePages } from '../harness/agency/pageReference';
import type { Activity, CallCount } from '../harness/agency/protocol';
import { kb, largestParts, partsLine } from '../harness/agency/stateSize';
import { contactOf } from '../harness/agency/traffic';
import { startProfiles } from '../harness/agency/profiles';
import { measureWork, median, type Work } from '../harness/agency/workMeter';
import { createHarness, type Harness } from '../harness/inProcessN8n';
import { setPacingGapForTests } from '../harness/limiterSettings';
import type { RowResult } from './rows';

const SANDBOX_GAP_MS = 25;
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const WATCH = 5_000;
const SETUP = { steps: 36, stepMs: 4 * 60 * MIN, direct: 45_000, left: 2_500, completed: 2_500 };
const EVENTS = ['sessionAbandoned', 'sessionCompleted', 'requestCreated', 'requestUpdated'];
const peakRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const log = (message: string) => process.stderr.write(`cpu: ${message}\n`);

/** Slot `i` of `n` spread evenly over `steps`: how many fall in step `s`. */
const share = (total: number, s: number, steps: number) => Math.floor(((s + 1) * total) / steps) - Math.floor((s * total) / steps);

/** One setup step: its direct requests, drafts left and drafts completed (30 slots, about 5 minutes, later), each kind at an even pace over the step. */
function setupStep(s: number, next: () => number): Activity[] {
	const counts = { direct: share(SETUP.direct, s, SETUP.steps), left: share(SETUP.left, s, SETUP.steps), completed: share(SETUP.completed, s, SETUP.steps) };
	const order = Object.entries(counts)
		.flatMap(([kind, n]) => Array.from({ length: n }, (_, j) => ({ kind, at: (j + 0.5) / n })))
		.sort((a, b) => a.at - b.at);
	const spacing = Math.floor(SETUP.stepMs / order.length);
	const out: Activity[] = [];
	const completions: Array<{ due: number; draft: number }> = [];
	order.forEach(({ kind }, i) => {
		out.push({ op: 'advance', ms: spacing });
		while (completions.length > 0 && completions[0].due <= i) out.push({ op: 'complete', ofActivity: (completions.shift() as { draft: number }).draft });
		if (kind === 'direct') out.push({ op: 'request', contact: contactOf('big', next()) });
		else {
			out.push({ op: 'draft', contact: contactOf('big', next()) });
			if (kind === 'completed') completions.push({ due: i + 30, draft: out.length - 1 });
		}
	});
	for (const { draft } of completions) out.push({ op: 'complete', ofActivity: draft });
	return out;
}

/** A task's work in this process, and the CPU the sandbox spent serving its calls meanwhile (ms). */
interface Side {
	work: Work;
	apiMs: number;
}

interface Run {
	poll: Side;
	/** Of the poll's CPU, n8n's save of the static data (ms). */
	saveMs: number;
	reference: Side;
	calls: number;
	items: number;
}

async function measureSide<T>(fleet: SandboxFleet, task: () => Promise<T>): Promise<{ value: T; side: Side }> {
	const apiBefore = await fleet.cpu();
	const { value, work } = await measureWork(task);
	const apiMs = ((await fleet.cpu()) - apiBefore) / 1000;
	return { value, side: { work, apiMs } };
}

async function pollCounted(fleet: SandboxFleet, trigger: ActiveTrigger) {
	await fleet.calls([0]);
	const { value, side } = await measureSide(fleet, async () => await trigger.poll());
	const [{ key: count }] = await fleet.calls([0]);
	return { items: value.items, saveMs: value.saveCpuMs, side, count };
}

async function referenceOf(fleet: SandboxFleet, harness: Harness, count: CallCount): Promise<Side> {
	const { side } = await measureSide(fleet, async () => await readSamePages(harness, count));
	const [{ key: again }] = await fleet.calls([0]);
	if (callsOf(again) !== callsOf(count)) throw new Error(`the reference made ${callsOf(again)} calls for the poll's ${callsOf(count)}`);
	return side;
}

/** The traffic through the trigger, until it has remembered its 50,000 customers. */
async function fillMemory(fleet: SandboxFleet, trigger: ActiveTrigger): Promise<Record<string, number>> {
	let customers = 0;
	const emitted: Record<string, number> = {};
	const drain = async () => {
		for (let i = 0; i < 20; i++) {
			const { items } = await trigger.poll();
			for (const item of items) emitted[String(item.event)] = (emitted[String(item.event)] ?? 0) + 1;
			if (items.length === 0) return;
		}
		throw new Error('setup: the trigger did not drain a step in 20 polls');
	};
	for (let s = 0; s < SETUP.steps; s++) {
		await fleet.play(0, setupStep(s, () => ++customers));
		await drain();
		if (s % 6 === 5) log(`setup: day ${(s + 1) / 6} of 6, ${customers.toLocaleString('en-US')} customers, state ${kb(trigger.stateBytes())}`);
	}
	await fleet.play(0, [{ op: 'advance', ms: 31 * MIN }]);
	await drain();
	return emitted;
}

/** A trigger with Request Updated alone over the newest 5,000, with or without Contact: its state's bytes once it holds them all. */
async function updatesStateBytes(harness: Harness, watchFields: string[] | undefined, id: string): Promise<number> {
	const options: INodeParameters = { watchNewest: WATCH, ...(watchFields ? { watchFields } : {}) };
	const trigger = new ActiveTrigger(harness, { workflowId: id, parameters: { events: ['requestUpdated'], options } });
	let bytes = 0;
	for (let i = 0; i < 10; i++) {
		await trigger.poll();
		const now = trigger.stateBytes();
		if (i > 1 && now === bytes) break;
		bytes = now;
	}
	return bytes;
}

/** 40 changes: 10 drafts left (made due), 10 drafts completed, 10 bookings without a draft, 10 lead status changes on page 1. */
function fortyChanges(next: () => number, changed: string[]): Activity[] {
	const out: Activity[] = [];
	for (let i = 0; i < 10; i++) out.push({ op: 'draft', contact: contactOf('big', next()) });
	out.push({ op: 'advance', ms: 31 * MIN });
	for (let i = 0; i < 10; i++) {
		out.push({ op: 'draft', contact: contactOf('big', next()) });
		out.push({ op: 'complete', ofActivity: out.length - 1 });
	}
	for (let i = 0; i < 10; i++) out.push({ op: 'bookWithoutDraft', contact: contactOf('big', next()) });
	// below the 20 requests just made, on page 1 (read by every poll)
	for (let i = 0; i < 10; i++) out.push({ op: 'changeRequest', rank: 20 + i * 7, avoid: changed });
	return out;
}

/** The large client: its sandbox (in the fleet), its credential, its published trigger and its next new customer. */
interface LargeClient {
	fleet: SandboxFleet;
	harness: Harness;
	trigger: ActiveTrigger;
	next: () => number;
}

interface Measured {
	quiet: Run[];
	changed: Run[];
	rateLimited: number;
}

const EXPECTED_AFTER_CHANGES = { 'session.abandoned': 10, 'session.completed': 20, 'request.created': 20, 'request.updated': 10 };

async function measure({ fleet, harness, trigger, next }: LargeClient, reps: number): Promise<Measured> {
	const measured: Measured = { quiet: [], changed: [], rateLimited: 0 };
	const changed: string[] = [];
	for (let rep = -2; rep < reps; rep++) {
		const quiet = await pollCounted(fleet, trigger);
		if (quiet.items.length > 0) throw new Error(`a quiet poll emitted ${quiet.items.length} items`);
		const quietReference = await referenceOf(fleet, harness, quiet.count);

		const happened = await fleet.play(0, fortyChanges(next, changed));
		for (const entry of happened) if (entry.op === 'changeRequest') changed.push(entry.requestId);
		const busy = await pollCounted(fleet, trigger);
		for (const [event, n] of Object.entries(EXPECTED_AFTER_CHANGES)) {
			const got = busy.items.filter((item) => item.event === event).length;
			if (got !== n) throw new Error(`after 40 changes: ${got} ${event}, expected ${n}`);
		}
		const busyReference = await referenceOf(fleet, harness, busy.count);
		if (rep < 0) continue;
		measured.quiet.push({ poll: quiet.side, saveMs: quiet.saveMs, reference: quietReference, calls: callsOf(quiet.count), items: 0 });
		measured.changed.push({ poll: busy.side, saveMs: busy.saveMs, reference: busyReference, calls: callsOf(busy.count), items: busy.items.length });
		measured.rateLimited += quiet.count.rateLimited + busy.count.rateLimited;
		const line = (poll: Side, reference: Side) =>
			`${poll.work.cpuMs.toFixed(0)} ms (${MB(poll.work.allocatedBytes)}, API ${poll.apiMs.toFixed(0)} ms) vs ${reference.work.cpuMs.toFixed(0)} ms (${MB(reference.work.allocatedBytes)}, API ${reference.apiMs.toFixed(0)} ms)`;
		log(`rep ${rep + 1}/${reps}: quiet ${line(quiet.side, quietReference)}; after 40 changes ${line(busy.side, busyReference)}`);
	}
	return measured;
}

const MB = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

function ratioNote(runs: Run[]): string {
	const ratio = (pick: (side: Side) => number) => median(runs.map((run) => pick(run.poll) / pick(run.reference)));
	const of = (pick: (side: Side) => number, which: 'poll' | 'reference') => median(runs.map((run) => pick(run[which])));
	const cpu = (side: Side) => side.work.cpuMs;
	const withApi = (side: Side) => side.work.cpuMs + side.apiMs;
	const allocated = (side: Side) => side.work.allocatedBytes;
	return (
		`CPU ratio ${ratio(cpu).toFixed(2)} (poll ${of(cpu, 'poll').toFixed(0)} ms, Get Many of its pages ${of(cpu, 'reference').toFixed(0)} ms; main thread ${ratio((side) => side.work.mainThreadMs).toFixed(2)}); ` +
		`counting the sandbox's CPU too (as if in the same process) ${ratio(withApi).toFixed(2)} (${of(withApi, 'poll').toFixed(0)} vs ${of(withApi, 'reference').toFixed(0)} ms); ` +
		(runs.some((run) => run.saveMs > 0)
			? `of which n8n's save of the static data ${median(runs.map((run) => run.saveMs)).toFixed(1)} ms (${median(runs.map((run) => run.saveMs / cpu(run.reference))).toFixed(2)} of the reference); `
			: '') +
		`allocated ${ratio(allocated).toFixed(2)} × (${MB(of(allocated, 'poll'))} vs ${MB(of(allocated, 'reference'))}); medians of ${runs.length}, each poll and its reference back to back`
	);
}

function cpuRow(label: string, runs: Run[], note: string, rateLimited: number): RowResult {
	const calls = median(runs.map((run) => run.calls));
	return {
		row: `Trigger CPU: ${label} ÷ Get Many of the same pages (Watch the Newest 5,000, 5,000 sessions, 50,000 customers remembered)`,
		items: median(runs.map((run) => run.items)),
		calls,
		minCalls: calls,
		seconds: median(runs.map((run) => run.poll.work.cpuMs)) / 1000,
		minSeconds: 0,
		rateLimited,
		minGapMs: null,
		peakRssMb: peakRssMb(),
		note: `${ratioNote(runs)}; ${note}; Seconds = the poll's CPU; sandbox gap ${SANDBOX_GAP_MS} ms`,
	};
}

interface StateFigures {
	bytes: number;
	parts: string;
	withContact: number;
	withoutContact: number;
	setupSeconds: number;
}

function stateRow(state: StateFigures): RowResult {
	return {
		row: 'Trigger state at 5,000 watched requests and 50,000 customers (static data JSON)',
		items: WATCH,
		calls: 0,
		minCalls: 1,
		seconds: state.setupSeconds,
		minSeconds: 0,
		rateLimited: 0,
		minGapMs: null,
		peakRssMb: peakRssMb(),
		note:
			`all four events: ${state.bytes.toLocaleString('en-US')} bytes (${state.parts}); ` +
			`Request Updated alone: ${state.withContact.toLocaleString('en-US')} bytes with Contact (${(state.withContact / WATCH).toFixed(1)} per watched request), ` +
			`${state.withoutContact.toLocaleString('en-US')} without (${(state.withoutContact / WATCH).toFixed(1)}); Seconds = the setup (the traffic through the trigger)`,
	};
}

/** The large client published 6.5 days back, its 50,000 customers put in its memory by its own polls; the state's figures. */
async function largeClient(fleet: SandboxFleet, started: number): Promise<{ client: LargeClient; state: StateFigures }> {
	const harness = createHarness({ apiKey: fleet.clients[0].key, baseUrl: fleet.clients[0].url });
	const parameters: INodeParameters = { events: EVENTS, abandonedAfterMinutes: 30, skipIfBooked: true, options: { watchNewest: WATCH } };
	const trigger = new ActiveTrigger(harness, { workflowId: 'wf-large-client', parameters });
	await fleet.play(0, [{ op: 'advance', ms: -6.5 * DAY }]);
	await trigger.poll(); // publishing: the baseline
	const setupItems = await fillMemory(fleet, trigger);
	const sizes = await fleet.sizes(0);
	const state: StateFigures = {
		bytes: trigger.stateBytes(),
		parts: partsLine(largestParts(JSON.parse(trigger.stateJson()))),
		withContact: await updatesStateBytes(harness, undefined, 'wf-updates-contact'),
		withoutContact: await updatesStateBytes(harness, ['status', 'lead_status', 'internal_notes', 'completed_at'], 'wf-updates-no-contact'),
		setupSeconds: (performance.now() - started) / 1000,
	};
	log(`setup ${state.setupSeconds.toFixed(0)} s: ${JSON.stringify(setupItems)}; ${sizes.requests} requests, ${sizes.sessions} sessions; state ${kb(state.bytes)}: ${state.parts}`);
	let customers = 1_000_000;
	return { client: { fleet, harness, trigger, next: () => ++customers }, state };
}

export async function quietPollRows(reps: number): Promise<RowResult[]> {
	setPacingGapForTests(SANDBOX_GAP_MS);
	const started = performance.now();
	// Without late commits: a write committed late may be reported a poll later (the trigger's documented
	// rule), which moves items between the measured polls; this row measures the same work every repetition
	// (the agency row keeps the sandbox's late commits and judges every event once).
	const fleet = await SandboxFleet.start([{ seed: 4242, sizes: { requests: 0, sessions: 0 } }], { minGapMs: SANDBOX_GAP_MS, commitLagMs: 0 });
	try {
		const { client, state } = await largeClient(fleet, started);
		// PROFILE_TO / HEAP_PROFILE_TO=<file>: profiles of the measured polls and references (harness/agency/profiles.ts)
		const stopProfiles = await startProfiles();
		let measured: Measured;
		try {
			measured = await measure(client, reps);
		} finally {
			await stopProfiles();
		}
		return [
			cpuRow('quiet poll (a/c)', measured.quiet, 'nothing changed', measured.rateLimited),
			cpuRow('poll after 40 changes (b/c)', measured.changed, '40 changes = 10 drafts left, 10 completed, 10 bookings without a draft, 10 lead status changes (60 items)', measured.rateLimited),
			stateRow(state),
		];
	} finally {
		await fleet.close();
	}
}

if (process.argv[1]?.endsWith('quietPollRows.ts')) {
	quietPollRows(Number(process.argv[2] ?? 11))
		.then((rows) => {
			process.stdout.write(`\n${JSON.stringify(rows)}\n`);
			process.exit(0);
		})
		.catch((error: unknown) => {
			console.error(error);
			process.exit(1);
		});
}
