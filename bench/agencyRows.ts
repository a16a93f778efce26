/**
 * Benchmark row "agency" (child-process entry, like triggerRows.ts: prints its RowResult list as JSON
 * on the last line): an agency's clients on one n8n main. Each client has its own sandbox workspace
 * and key at the API's real 1 request/s, and its own published workflow with the trigger — all four
 * events, Skip Customers Who Booked on (node version 1.1), Abandoned After 30 minutes — held as n8n's
 * main holds it (harness/agency/activeTrigger.ts: one PollContext and static data per workflow), all
 * in this process and polled together, as n8n's scheduler starts them at the same minute. Small
 * clients: 600 requests, 400 sessions, Watch the Newest 500 (the default); large ones: 5,000 and
 * 5,000, Watch the Newest 5,000.
 *
 * Round 0 publishes (the baseline). Before each of rounds 1–5, customer traffic (harness/agency/
 * traffic.ts); rounds 6–10 have none (drafts of the last rounds become due, Request Updated's older
 * pages come round). The sandbox clock moves 11 minutes between rounds. After each round every client
 * reads the same pages with Get Many (the reference, harness/agency/pageReference.ts). CPU is charged
 * per poll and per reference read by harness/agency/cpuMeter.ts; the sandboxes run in a child process
 * (not counted). Every event delivered once is judged by harness/agency/oracle.ts from the sandbox's
 * history of what happened, never from the trigger.
 *
 * Usage: node scripts/ts-run.js bench/agencyRows.ts [clients=100] [large=5]
 *        `npm run bench -- --only=agency` runs it and prints its rows.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

import { ActiveTrigger } from '../harness/agency/activeTrigger';
import { account, CpuMeter, type CpuAccount } from '../harness/agency/cpuMeter';
import { SandboxFleet } from '../harness/agency/fleet';
import { deliveredOf, judgeClient, type DeliveredItem, type Verdict } from '../harness/agency/oracle';
import { callsOf, readSamePages } from '../harness/agency/pageReference';
import type { CallCount, Happened } from '../harness/agency/protocol';
import { ClientTraffic, type RoundMix } from '../harness/agency/traffic';
import { median, percentile } from '../harness/agency/workMeter';
import { createHarness, type Harness } from '../harness/inProcessN8n';
import type { RowResult } from './rows';

const MIN = 60_000;
const ROUND_CLOCK_MS = 11 * MIN;
const TRAFFIC_ROUNDS = 5;
const QUIET_ROUNDS = 5;
const EVENTS = ['sessionAbandoned', 'sessionCompleted', 'requestCreated', 'requestUpdated'];
const log = (message: string) => process.stderr.write(`agency: ${message}\n`);

type Size = 'small' | 'large';
const PROFILES: Record<Size, { sizes: { requests: number; sessions: number }; watchNewest: number; mix: RoundMix }> = {
	small: { sizes: { requests: 600, sessions: 400 }, watchNewest: 500, mix: { left: 2, completeNext: 1, bookElsewhereNext: 1, placeholders: 1, direct: 1, changes: 1 } },
	large: { sizes: { requests: 5_000, sessions: 5_000 }, watchNewest: 5_000, mix: { left: 10, completeNext: 5, bookElsewhereNext: 5, placeholders: 5, direct: 5, changes: 5 } },
};

interface Client {
	size: Size;
	harness: Harness;
	trigger: ActiveTrigger;
	traffic: ClientTraffic;
	history: Happened[];
	delivered: DeliveredItem[];
	maxStateBytes: number;
}

interface PollFigure {
	round: number;
	size: Size;
	cpuMs: number;
	referenceMs: number;
	calls: number;
	/** Refused by the API's rate limit (the poll retried them). */
	rateLimited: number;
	items: number;
}

/** V8's heap in use after a full garbage collection: what the process keeps (bytes). */
function retainedHeap(): number {
	v8.setFlagsFromString('--expose-gc');
	(runInNewContext('gc') as () => void)();
	return v8.getHeapStatistics().used_heap_size;
}

/** Peak memory, sampled while the rounds run. */
class MemoryPeak {
	rss = 0;
	heapUsed = 0;
	private timer: NodeJS.Timeout | undefined;
	sample(): void {
		this.rss = Math.max(this.rss, process.memoryUsage.rss());
		this.heapUsed = Math.max(this.heapUsed, v8.getHeapStatistics().used_heap_size);
	}
	start(): void {
		this.timer = setInterval(() => this.sample(), 250);
	}
	stop(): void {
		clearInterval(this.timer);
		this.sample();
	}
}

/** Every client's poll at once; each poll's CPU and the calls it made. */
async function pollRound(fleet: SandboxFleet, clients: Client[], meter: CpuMeter) {
	const accounts = clients.map((_, i) => account(`poll ${i}`));
	await fleet.calls(clients.map((_, i) => i));
	const started = performance.now();
	meter.start();
	const polls = await Promise.all(clients.map(async (client, i) => await meter.charge(accounts[i], async () => await client.trigger.poll())));
	const total = meter.stop();
	const wall = (performance.now() - started) / 1000;
	const counts = (await fleet.calls(clients.map((_, i) => i))).map((count) => count.key);
	return { polls, accounts, counts, total, unattributed: meter.unattributed, wall };
}

/** Every client reads the pages its poll read, with Get Many, all at once. */
async function referenceRound(fleet: SandboxFleet, clients: Client[], counts: CallCount[], meter?: CpuMeter): Promise<{ accounts: CpuAccount[]; total: number }> {
	const accounts = clients.map((_, i) => account(`reference ${i}`));
	const before = process.cpuUsage();
	meter?.start();
	await Promise.all(
		clients.map(async (client, i) => {
			const read = async () => await readSamePages(client.harness, counts[i]);
			await (meter ? meter.charge(accounts[i], read) : read());
		}),
	);
	const metered = meter?.stop();
	const spent = process.cpuUsage(before);
	const again = (await fleet.calls(clients.map((_, i) => i))).map((count) => count.key);
	again.forEach((count, i) => {
		if (callsOf(count) !== callsOf(counts[i])) throw new Error(`client ${i}: the reference made ${callsOf(count)} calls for the poll's ${callsOf(counts[i])}`);
	});
	if (meter) log(`reference: CPU ${((metered ?? 0) / 1000).toFixed(0)} ms (${(meter.unattributed / 1000).toFixed(0)} unattributed)`);
	return { accounts, total: metered ?? spent.user + spent.system };
}

/** The meter's own cost: the same reads metered and unmetered, 3 pairs in alternating order; metered ÷ unmetered process CPU of each pair. */
async function meterRatios(fleet: SandboxFleet, clients: Client[], counts: CallCount[], meter: CpuMeter): Promise<number[]> {
	const ratios: number[] = [];
	for (let i = 0; i < 3; i++) {
		const first = await referenceRound(fleet, clients, counts, i % 2 === 0 ? undefined : meter);
		const second = await referenceRound(fleet, clients, counts, i % 2 === 0 ? meter : undefined);
		ratios.push(i % 2 === 0 ? second.total / first.total : first.total / second.total);
	}
	log(`meter: metered ÷ unmetered CPU of the same reads ${ratios.map((ratio) => ratio.toFixed(2)).join(', ')}`);
	return ratios;
}

async function startClients(fleet: SandboxFleet, sizes: Size[]): Promise<Client[]> {
	return fleet.clients.map((sandbox, i) => {
		const size = sizes[i];
		const profile = PROFILES[size];
		const harness = createHarness({ apiKey: sandbox.key, baseUrl: sandbox.url });
		const options = size === 'large' ? { watchNewest: profile.watchNewest } : {};
		const trigger = new ActiveTrigger(harness, { workflowId: `wf-client-${i}`, parameters: { events: EVENTS, abandonedAfterMinutes: 30, skipIfBooked: true, options } });
		return { size, harness, trigger, traffic: new ClientTraffic(String(i), profile.mix, profile.watchNewest), history: [], delivered: [], maxStateBytes: 0 };
	});
}

async function playTraffic(fleet: SandboxFleet, clients: Client[], round: number): Promise<number> {
	const last = round === TRAFFIC_ROUNDS;
	let changes = 0;
	for (const [i, client] of clients.entries()) {
		const happened = await fleet.play(i, client.traffic.activity(round, last));
		client.traffic.played(happened, last);
		client.history.push(...happened);
		changes += happened.length;
	}
	return changes;
}

interface RunFigures {
	figures: PollFigure[];
	rounds: Array<{ round: number; wall: number; cpuMs: number; unattributedMs: number; changes: number; rateLimited: number }>;
	pollStarts: number[];
	/** The meter's cost: metered ÷ unmetered process CPU of the same reads, 3 pairs. */
	meterRatios: number[];
}

async function runRounds(fleet: SandboxFleet, clients: Client[], peak: MemoryPeak): Promise<RunFigures> {
	const meter = new CpuMeter();
	const run: RunFigures = { figures: [], rounds: [], pollStarts: [], meterRatios: [] };
	for (let round = 0; round <= TRAFFIC_ROUNDS + QUIET_ROUNDS; round++) {
		const changes = round >= 1 && round <= TRAFFIC_ROUNDS ? await playTraffic(fleet, clients, round) : 0;
		run.pollStarts.push(await fleet.now());
		const polls = await pollRound(fleet, clients, meter);
		const reference = await referenceRound(fleet, clients, polls.counts, meter);
		if (round === TRAFFIC_ROUNDS + QUIET_ROUNDS) run.meterRatios = await meterRatios(fleet, clients, polls.counts, meter);
		clients.forEach((client, i) => {
			client.delivered.push(...polls.polls[i].items.map(deliveredOf));
			client.maxStateBytes = Math.max(client.maxStateBytes, client.trigger.stateBytes());
			if (round > 0) {
				run.figures.push({ round, size: client.size, cpuMs: polls.accounts[i].micros / 1000, referenceMs: reference.accounts[i].micros / 1000, calls: callsOf(polls.counts[i]), rateLimited: polls.counts[i].rateLimited, items: polls.polls[i].items.length });
			}
		});
		const rateLimited = polls.counts.reduce((sum, count) => sum + count.rateLimited, 0);
		run.rounds.push({ round, wall: polls.wall, cpuMs: polls.total / 1000, unattributedMs: polls.unattributed / 1000, changes, rateLimited });
		peak.sample();
		log(
			`round ${round}: ${changes} changes, polls ${polls.wall.toFixed(1)} s wall, CPU ${(polls.total / 1000).toFixed(0)} ms (${(polls.unattributed / 1000).toFixed(0)} unattributed), ` +
				`${polls.polls.reduce((sum, poll) => sum + poll.items.length, 0)} items, ${rateLimited} × 429` +
				`${rateLimited > 0 ? ` (clients ${polls.counts.flatMap((count, i) => (count.rateLimited > 0 ? [i] : [])).join(', ')})` : ''}; RSS ${(peak.rss / 1e6).toFixed(0)} MB`,
		);
		await fleet.advance(ROUND_CLOCK_MS);
	}
	return run;
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

/** Median and 95th percentile of the CPU per poll, its reference, their ratio and the calls, for one size over some rounds. */
function perPollNote(figures: PollFigure[]): string {
	if (figures.length === 0) return 'none';
	const cpu = figures.map((figure) => figure.cpuMs);
	const reference = figures.map((figure) => figure.referenceMs);
	const ratio = figures.map((figure) => figure.cpuMs / figure.referenceMs);
	const mean = cpu.reduce((sum, value) => sum + value, 0) / cpu.length;
	return (
		`CPU per poll median ${fmt(median(cpu))} ms, p95 ${fmt(percentile(cpu, 95))} ms (mean ${fmt(mean)}); Get Many of the same pages median ${fmt(median(reference))} ms, p95 ${fmt(percentile(reference, 95))} ms; ` +
		`ratio median ${median(ratio).toFixed(2)}, p95 ${percentile(ratio, 95).toFixed(2)}; calls per poll median ${median(figures.map((figure) => figure.calls))}, max ${Math.max(...figures.map((figure) => figure.calls))}; ` +
		`${figures.length} polls; ${Math.floor(60_000 / mean)} such polls a minute fill one core`
	);
}

function sizeRow(size: Size, clients: Client[], run: RunFigures, peakRssMb: number): RowResult {
	const mine = run.figures.filter((figure) => figure.size === size);
	const traffic = mine.filter((figure) => figure.round <= TRAFFIC_ROUNDS);
	const quiet = mine.filter((figure) => figure.round > TRAFFIC_ROUNDS);
	const states = clients.filter((client) => client.size === size).map((client) => client.maxStateBytes);
	const profile = PROFILES[size];
	return {
		row: `Agency, ${size} clients (${profile.sizes.requests.toLocaleString('en-US')} requests, ${profile.sizes.sessions.toLocaleString('en-US')} sessions, Watch the Newest ${profile.watchNewest.toLocaleString('en-US')}): ${states.length} of ${clients.length}`,
		items: mine.reduce((sum, figure) => sum + figure.items, 0),
		calls: mine.reduce((sum, figure) => sum + figure.calls, 0),
		minCalls: mine.reduce((sum, figure) => sum + figure.calls, 0),
		seconds: mine.reduce((sum, figure) => sum + figure.cpuMs, 0) / 1000,
		minSeconds: 0,
		rateLimited: mine.reduce((sum, figure) => sum + figure.rateLimited, 0),
		minGapMs: null,
		peakRssMb,
		note:
			`rounds with traffic: ${perPollNote(traffic)}. Rounds without: ${perPollNote(quiet)}. ` +
			`State per client (static data JSON, the largest of the run) median ${median(states).toLocaleString('en-US')} bytes, max ${Math.max(...states).toLocaleString('en-US')}; Seconds = CPU of all its polls`,
	};
}

function verdictOf(clients: Client[], pollStarts: number[]): Verdict {
	const total: Verdict = { must: 0, may: 0, delivered: 0, violations: [] };
	clients.forEach((client, i) => {
		const profile = PROFILES[client.size];
		const settings = { abandonedAfterMs: 30 * MIN, watchNewest: profile.watchNewest, cycle: Math.max(1, Math.ceil((profile.watchNewest / 100 - 1) / 10)) };
		const verdict = judgeClient(client.history, pollStarts.slice(1), client.delivered, settings);
		total.must += verdict.must;
		total.may += verdict.may;
		total.delivered += verdict.delivered;
		total.violations.push(...verdict.violations.map((violation) => `client ${i}: ${violation}`));
	});
	return total;
}

export async function agencyRows(count: number, large: number): Promise<RowResult[]> {
	const started = performance.now();
	const sizes: Size[] = Array.from({ length: count }, (_, i) => (i < large ? 'large' : 'small'));
	const fleet = await SandboxFleet.start(sizes.map((size, i) => ({ seed: 7_000 + i, sizes: PROFILES[size].sizes })));
	try {
		const peak = new MemoryPeak();
		peak.sample();
		const before = { rss: peak.rss, heap: peak.heapUsed, retained: retainedHeap() };
		const clients = await startClients(fleet, sizes);
		log(`${count} clients (${large} large) ready in ${((performance.now() - started) / 1000).toFixed(0)} s`);
		peak.start();
		const run = await runRounds(fleet, clients, peak);
		peak.stop();
		const retained = retainedHeap() - before.retained;
		const verdict = verdictOf(clients, run.pollStarts);
		for (const violation of verdict.violations.slice(0, 20)) log(`oracle: ${violation}`);
		const seconds = (performance.now() - started) / 1000;
		const peakRssMb = Math.round(peak.rss / 1e6);
		const oracle = verdict.violations.length === 0 ? 'every event once (oracle: 0 violations)' : `ORACLE: ${verdict.violations.length} violations (first: ${verdict.violations[0]})`;
		const pollCpu = run.rounds.filter((round) => round.round > 0).reduce((sum, round) => sum + round.cpuMs, 0);
		const unattributed = run.rounds.filter((round) => round.round > 0).reduce((sum, round) => sum + round.unattributedMs, 0);
		return [
			{
				row: `Agency: ${count} clients on one n8n main (${count - large} small, ${large} large), ${TRAFFIC_ROUNDS} rounds with traffic and ${QUIET_ROUNDS} without, 1 request/s per key`,
				items: verdict.delivered,
				calls: run.figures.reduce((sum, figure) => sum + figure.calls, 0),
				minCalls: run.figures.reduce((sum, figure) => sum + figure.calls, 0),
				seconds,
				minSeconds: 0,
				rateLimited: run.rounds.reduce((sum, round) => sum + round.rateLimited, 0),
				minGapMs: null,
				peakRssMb,
				note:
					`${oracle}: ${verdict.must} must, ${verdict.may} may, ${verdict.delivered} delivered; ` +
					`peak RSS ${peakRssMb} MB, V8 heap used ${Math.round(peak.heapUsed / 1e6)} MB (before the clients: ${Math.round(before.rss / 1e6)} / ${Math.round(before.heap / 1e6)} MB); ` +
					`heap kept after a full GC at the end: ${Math.round(retained / 1e6)} MB more than before the clients (${Math.round(retained / 1000 / count)} kB per client); ` +
					`poll rounds ${median(run.rounds.map((round) => round.wall)).toFixed(1)} s wall (median), CPU of all polls ${(pollCpu / 1000).toFixed(1)} s (${((100 * unattributed) / pollCpu).toFixed(1)}% unattributed); ` +
					`the CPU meter's cost: metered ÷ unmetered CPU of the same reads ${run.meterRatios.map((ratio) => ratio.toFixed(2)).join(', ')}; Seconds = the whole row`,
			},
			...(['small', 'large'] as const).filter((size) => sizes.includes(size)).map((size) => sizeRow(size, clients, run, peakRssMb)),
		];
	} finally {
		await fleet.close();
	}
}

if (process.argv[1]?.endsWith('agencyRows.ts')) {
	agencyRows(Number(process.argv[2] ?? 100), Number(process.argv[3] ?? 5))
		.then((rows) => {
			process.stdout.write(`\n${JSON.stringify(rows)}\n`);
			process.exit(0);
		})
		.catch((error: unknown) => {
			console.error(error);
			process.exit(1);
		});
}
