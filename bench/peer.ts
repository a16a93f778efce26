/**
 * Peer rows: the same listing of N requests in a real n8n (the version of the e2e suite),
 * side by side in one run, with
 *  (a) this package's node (Return All), and
 *  (b) n8n's HTTP Request node configured as a careful user would: `page` query parameter updated in
 *      each request, per_page=100, 1,000 ms between requests, complete when a page is empty or
 *      page × per_page ≥ total.
 * A fresh n8n per network latency (loopback, then the sandbox's latency before its rate check: 100,
 * 250 and 500 ms, 80–320 and 40–900 ms jittery). In it: this node cold (its limiter knows no round
 * trip of the key, as in a freshly started n8n), the HTTP Request node, then both again (warm). Each
 * run starts the sandbox's latency draws from the same seed, so on a jittery route both nodes meet the
 * same delays, request by request. On loopback both are also run with the sandbox answering 429 to
 * every 5th request. Seconds are measured at the server (first to last request it received), so n8n's
 * start-up and the REST round trips are not counted against either side; "vs HTTP node" = this
 * node's seconds ÷ the HTTP Request node's in the same phase and run (below 1: ahead).
 *
 *   peer.ts <N> [--latencies=100,250,500,80-320,40-900]   (--latencies= for the loopback rows only)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { installTarball, packPackage } from '../harness/n8n/communityPackage';
import { makeUserFolder, type ExecutionResult, type WorkflowImport } from '../harness/n8n/workflows';
import { N8nCli } from '../harness/n8n/cli';
import { N8nRest } from '../harness/n8n/rest';
import { ensureN8n } from '../harness/n8n/install';
import { startN8n } from '../harness/n8n/server';
import { acceptedGaps, rateLimitedCount } from '../harness/sandboxGaps';
import { hashKey, startSandbox, type Latency, type Sandbox } from '../sandbox';
import { latencyLabel, type RowResult } from './rows';

const REPO = path.resolve(__dirname, '..');
const n = Number(process.argv[2] ?? 1000);
const latencyArg = process.argv.find((arg) => arg.startsWith('--latencies='))?.slice('--latencies='.length) ?? '100,250,500,80-320,40-900';
const latencies: Latency[] = latencyArg
	.split(',')
	.filter(Boolean)
	.map((spec) => (spec.includes('-') ? (spec.split('-').map(Number) as [number, number]) : Number(spec)));
const log = (message: string) => process.stderr.write(`peer: ${message}\n`);

const CREDS = {
	package: { id: 'benchPkgCred0001', name: 'Booking Requests (bench)' },
	header: { id: 'benchHdrCred0001', name: 'Bearer header (bench)' },
};

function manual(id: string, node: Record<string, unknown>): WorkflowImport {
	return {
		id,
		name: id,
		nodes: [
			{ id: 'm', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: 'l', name: 'List', position: [220, 0], ...node } as WorkflowImport['nodes'][number],
		],
		connections: { Start: { main: [[{ node: 'List', type: 'main', index: 0 }]] } },
	};
}

function countItems(result: ExecutionResult, viaHttpNode: boolean): number {
	const items = result.items.List ?? [];
	if (!viaHttpNode) return items.length;
	return items.reduce((sum, page) => sum + (Array.isArray(page.items) ? page.items.length : 0), 0);
}

/** Peak resident memory of the n8n process (Linux VmHWM), in MB. */
function n8nPeakRssMb(pid: number): number {
	try {
		const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
		return match ? Math.round(Number(match[1]) / 1024) : NaN;
	} catch {
		return NaN;
	}
}

const NODES = {
	ours: { workflowId: 'benchPackageNode', label: 'this node, Return All', viaHttpNode: false },
	http: { workflowId: 'benchHttpRequest', label: 'HTTP Request node, page parameter + 1,000 ms interval', viaHttpNode: true },
} as const;

/** One run of a phase: which node, its first or second run in this n8n, and whether 429s are injected. */
interface Run {
	node: keyof typeof NODES;
	when: 'cold' | 'warm';
	injected: boolean;
}

const SIDE_BY_SIDE: Run[] = [
	{ node: 'ours', when: 'cold', injected: false },
	{ node: 'http', when: 'cold', injected: false },
	{ node: 'ours', when: 'warm', injected: false },
	{ node: 'http', when: 'warm', injected: false },
];
const INJECTED: Run[] = [
	{ node: 'ours', when: 'warm', injected: true },
	{ node: 'http', when: 'warm', injected: true },
];

/** Runs one workflow manually and measures it at the server (the sandbox's log since it was cleared). */
async function measureRun(rest: N8nRest, sandbox: Sandbox, run: Run, latency: Latency, n8n: { version: string; pid: number }): Promise<RowResult> {
	const { workflowId, label, viaHttpNode } = NODES[run.node];
	const where = latency === null ? '' : `, ${latencyLabel(latency)}`;
	log(`${label}${where} (${run.when})${run.injected ? ' with 429 every 5th' : ''}`);
	// A manual run through the REST API, as from the editor: `n8n execute --rawOutput` prints the
	// whole run data and n8n exits before a pipe has taken several MB of it.
	const result = await rest.runFromTrigger(workflowId, 'Start', 600_000);
	const entries = sandbox.log;
	const keyHash = hashKey(sandbox.keys.demo);
	const gaps = acceptedGaps(entries, keyHash);
	const got = countItems(result, viaHttpNode);
	const outcome = result.ok
		? got === n
			? `complete: ${got} items`
			: `INCOMPLETE: ${got} of ${n} items`
		: `FAILED: ${(result.nodeErrors.List?.message ?? result.error?.message ?? 'error').slice(0, 80)}`;
	return {
		row: `Real n8n ${n8n.version}${where}: ${label} (${run.when})${run.injected ? ', sandbox injects 429 every 5th request' : ''}`,
		items: got,
		calls: entries.length,
		minCalls: Math.ceil(n / 100),
		seconds: entries.length > 1 ? (entries[entries.length - 1].at - entries[0].at) / 1000 : 0,
		minSeconds: Math.ceil(n / 100) - 1,
		rateLimited: rateLimitedCount(entries, keyHash) + entries.filter((entry) => entry.fault === 'every429').length,
		minGapMs: gaps.length ? Math.min(...gaps) : null,
		peakRssMb: n8nPeakRssMb(n8n.pid),
		note: `${outcome}; seconds at the server; RSS = n8n process peak so far`,
	};
}

async function main() {
	const install = await ensureN8n(undefined, log);
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-peer-'));
	const pack = await packPackage(REPO, work, { build: !fs.existsSync(path.join(REPO, 'dist/nodes')), log });
	const sandbox = await startSandbox({ sizes: { requests: n, sessions: 10 } });
	const userFolder = makeUserFolder(work);
	await installTarball(userFolder, pack.tarball);
	const cli = new N8nCli(install, userFolder, { N8N_LOG_LEVEL: 'info' });
	await cli.importCredentials([
		{ ...CREDS.package, type: 'bookingRequestsApi', data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } },
		{ ...CREDS.header, type: 'httpHeaderAuth', data: { name: 'Authorization', value: `Bearer ${sandbox.keys.demo}` } },
	]);
	await cli.importWorkflows([
		manual('benchPackageNode', {
			type: 'n8n-nodes-booking-requests.bookingRequests',
			typeVersion: 1,
			parameters: { resource: 'bookingRequest', operation: 'getAll', returnAll: true, simplify: false },
			credentials: { bookingRequestsApi: CREDS.package },
		}),
		manual('benchHttpRequest', {
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				url: `${sandbox.url}/api/v1/requests`,
				authentication: 'genericCredentialType',
				genericAuthType: 'httpHeaderAuth',
				sendQuery: true,
				queryParameters: { parameters: [{ name: 'per_page', value: '100' }] },
				options: {
					pagination: {
						pagination: {
							paginationMode: 'updateAParameterInEachRequest',
							parameters: { parameters: [{ type: 'qs', name: 'page', value: '={{ $pageCount + 1 }}' }] },
							paginationCompleteWhen: 'other',
							completeExpression:
								'={{ $response.body.items.length === 0 || $response.body.pagination.page * $response.body.pagination.per_page >= $response.body.pagination.total }}',
							requestInterval: 1000,
						},
					},
				},
			},
			credentials: { httpHeaderAuth: CREDS.header },
		}),
	]);

	const rows: RowResult[] = [];
	const phases: Array<{ latency: Latency; runs: Run[] }> = [{ latency: null, runs: [...SIDE_BY_SIDE, ...INJECTED] }, ...latencies.map((latency) => ({ latency, runs: SIDE_BY_SIDE }))];
	for (const phase of phases) {
		// A fresh n8n per latency: this node's limiter starts with no round trip known.
		const server = await startN8n({ userFolder, install });
		const rest = new N8nRest(server.url, install);
		await rest.setupOwner();
		const phaseRows = new Map<string, RowResult>();
		for (const run of phase.runs) {
			sandbox.setLatency(phase.latency); // the same delays for every run of the phase
			sandbox.setFaults(run.injected ? { every429: 5 } : {});
			sandbox.clearLog();
			await new Promise((resolve) => setTimeout(resolve, 1100)); // a fresh rate budget
			const row = await measureRun(rest, sandbox, run, phase.latency, { version: install.version, pid: server.pid });
			phaseRows.set(`${run.node} ${run.when} ${run.injected}`, row);
			rows.push(row);
		}
		// This node against the HTTP Request node of the same phase and run.
		for (const run of phase.runs.filter((candidate) => candidate.node === 'ours')) {
			const ours = phaseRows.get(`ours ${run.when} ${run.injected}`);
			const http = phaseRows.get(`http ${run.when} ${run.injected}`);
			if (ours && http && http.seconds > 0 && !run.injected) ours.vsHttpNode = ours.seconds / http.seconds;
		}
		await server.stop();
	}
	sandbox.setLatency(null);
	await sandbox.close();
	fs.rmSync(work, { recursive: true, force: true });
	process.stdout.write(`\n${JSON.stringify(rows)}\n`);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
