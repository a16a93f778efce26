/**
 * `npm run bench`: measures the package against the physical limit of the API contract —
 * 1 request per second per key and at most 100 items per page, so listing N items needs ceil(N/100)
 * calls and at least ceil(N/100) - 1 seconds — and prints one table, also written to
 * bench/results/latest.md and latest.json. Benchmarks report figures; they never pass or fail on time.
 *
 * Flags: --quick   scales the 10,000-request and 10,000-session rows down to 2,000 (said in the table)
 *        --no-peer skips the rows that run in a real n8n
 *        --only=<groups> runs only these groups (comma-separated): main (in-process Return All,
 *                  two executions, trigger), trigger (a backlog drained under the 36 s poll
 *                  budget), funnel (Get Many sessions with Include Booking Request), pacing (Return All at each network latency, cold and
 *                  warm), queue (3 processes on Redis), neighbour (another client on the key),
 *                  peer (real n8n: this node vs the HTTP Request node side by side, cold and
 *                  warm, loopback and each latency), cpu (a large client's poll CPU against Get Many
 *                  of its pages), agency (100 clients on one main), backlog (1,000 idle drafts below
 *                  2,000 bookings, calls per page of the lists)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { RowResult } from './rows';

const ROOT = path.resolve(__dirname, '..');
const args = new Set(process.argv.slice(2));
const large = args.has('--quick') ? 2_000 : 10_000;
const only = [...args].find((arg) => arg.startsWith('--only='))?.slice('--only='.length).split(',');
const wanted = (group: string) => (only ? only.includes(group) : group !== 'peer' || !args.has('--no-peer'));

async function runChild(entry: string, childArgs: string[]): Promise<RowResult[]> {
	return await new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [path.join(ROOT, 'scripts/ts-run.js'), entry, ...childArgs], {
			cwd: ROOT,
			stdio: ['ignore', 'pipe', 'inherit'],
			env: { ...process.env, N8N_LOG_LEVEL: 'warn' },
		});
		let out = '';
		child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
		child.on('error', reject);
		child.on('close', (code) => {
			const last = out.trim().split('\n').pop() ?? '';
			if (code !== 0) return reject(new Error(`${entry} ${childArgs.join(' ')} exited ${code}`));
			try {
				resolve(JSON.parse(last) as RowResult[]);
			} catch {
				reject(new Error(`no result from ${entry} ${childArgs.join(' ')}: ${out.slice(-500)}`));
			}
		});
	});
}

const fmt = (value: number | null, digits = 2) => (value === null || !Number.isFinite(value) ? '–' : value.toFixed(digits));

function table(rows: RowResult[]): string {
	const header =
		'| Row | Items | Calls | ceil(N/100) | Calls ratio | Seconds | ceil(N/100)−1 | Time ratio | vs HTTP node | 429s | Min gap (ms) | Peak RSS (MB) | Notes |\n' +
		'|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|';
	const lines = rows.map((row) =>
		[
			row.row,
			row.items.toLocaleString('en-US'),
			row.calls,
			row.minCalls,
			fmt(row.calls / row.minCalls),
			fmt(row.seconds),
			row.minSeconds,
			row.minSeconds > 0 ? fmt(row.seconds / row.minSeconds) : '–',
			row.vsHttpNode === undefined ? '–' : fmt(row.vsHttpNode),
			row.rateLimited,
			row.minGapMs === null ? '–' : row.minGapMs.toFixed(0),
			row.peakRssMb,
			row.note ?? '',
		].join(' | '),
	);
	return [header, ...lines.map((line) => `| ${line} |`)].join('\n');
}

async function main() {
	const started = Date.now();
	const rows: RowResult[] = [];
	const groups: Array<[string, Array<[string, string[]]>]> = [
		[
			'main',
			[
				['bench/row-main.ts', ['returnAll', '1000']],
				['bench/row-main.ts', ['returnAll', String(large)]],
				['bench/row-main.ts', ['twoExecutions', '1000']],
				['bench/row-main.ts', ['trigger', '250']],
			],
		],
		// Issues 13 and 28: backlogs drained under n8n's durable-scheduler poll budget (36 s).
		[
			'trigger',
			[
				...(args.has('--quick') ? ['idleDrafts'] : ['bench', 'completed', 'retarget', 'idleDrafts']).map((shape) => ['bench/triggerRows.ts', ['shape', shape]] as [string, string[]]),
				...['100', '500', '2000', '5000'].map((window) => ['bench/triggerRows.ts', ['updates', window]] as [string, string[]]),
			],
		],
		// Issue 35: Get Many sessions with Include Booking Request (the join of sessions to requests).
		// Issue 40: the same with sessions that have no updated_at, sorted first and last by the sandbox.
		[
			'funnel',
			[
				['bench/row-main.ts', ['sessions', '600']],
				['bench/row-main.ts', ['sessionsNullsLast', '600']],
				['bench/row-main.ts', ['include', '1000']],
				['bench/row-main.ts', ['includeNullsLast', '1000']],
				['bench/row-main.ts', ['include', String(large)]],
			],
		],
		// Issues 14 and 27: the same Return All at the server's arrival times, per network latency
		// (cold, warm and a scheduled run of an idle key).
		['pacing', ['0', '100', '250', '500', '80-320', '40-900'].map((latency) => ['bench/pacingRows.ts', ['latency', latency, '1000']] as [string, string[]])],
		['queue', [['bench/pacingRows.ts', ['queue', '3', '1000']]]],
		// Issue 18: another client on the key.
		[
			'neighbour',
			[
				['bench/pacingRows.ts', ['neighbour', 'after', '1000']],
				['bench/pacingRows.ts', ['neighbour', 'random', '1000']],
			],
		],
		['peer', [['bench/peer.ts', ['1000']]]],
		// What polls cost an agency's main: a poll's CPU against reading its pages, 100 clients on one main, the idle-drafts backlog.
		['cpu', [['bench/quietPollRows.ts', [args.has('--quick') ? '5' : '11']]]],
		['agency', [['bench/agencyRows.ts', args.has('--quick') ? ['20', '1'] : ['100', '5']]]],
		['backlog', [['bench/backlogRows.ts', []]]],
	];
	const plan = groups.filter(([group]) => wanted(group)).flatMap(([, entries]) => entries);
	for (const [entry, childArgs] of plan) {
		process.stderr.write(`bench: ${entry} ${childArgs.join(' ')}…\n`);
		rows.push(...(await runChild(entry, childArgs)));
	}
	const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
	const when = new Date().toISOString();
	const markdown = [
		`Benchmark of ${when} on ${machine}${large !== 10_000 ? ` (--quick: the large row lists ${large.toLocaleString('en-US')} instead of 10,000)` : ''}.`,
		'Sandbox API enforcing 1 request/second per key, on loopback unless a row names a network latency (added by the sandbox before its rate check); ratios are measured ÷ the contract\'s physical limit (1.00 = at the limit).',
		'',
		table(rows),
		'',
		`Total run: ${((Date.now() - started) / 1000).toFixed(0)} s.`,
	].join('\n');
	mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
	writeFileSync(path.join(ROOT, 'bench/results/latest.md'), `${markdown}\n`);
	writeFileSync(path.join(ROOT, 'bench/results/latest.json'), `${JSON.stringify({ when, machine, rows }, null, 2)}\n`);
	process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
