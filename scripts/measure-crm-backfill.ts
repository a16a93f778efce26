/**
 * The CRM recipe's backfill timed end to end in a real n8n (docs/guides/crm-sync.md cites it):
 * examples/sync-requests-to-crm.json run once from "Backfill (run once)", as the editor's "Execute
 * workflow" does, against the sandbox at its real limit (1 request per second per key), for each
 * number of requests given; the Data Table is emptied between sizes. Prints, per size, the time of the
 * whole run, of the reads (Get all requests) and of the upserts (the Data table node), and the rows.
 *
 *   node scripts/ts-run.js scripts/measure-crm-backfill.ts [1000 2000 ...] [--no-build]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startSandbox } from '../sandbox';
import { N8nCli } from '../harness/n8n/cli';
import { installTarball, packPackage } from '../harness/n8n/communityPackage';
import { ensureN8n } from '../harness/n8n/install';
import { N8nRest } from '../harness/n8n/rest';
import { startN8n } from '../harness/n8n/server';
import { loadExampleWorkflows, makeUserFolder } from '../harness/n8n/workflows';

const REPO = path.resolve(__dirname, '..');
const FILE = 'sync-requests-to-crm.json';
const CREDENTIAL = { id: 'brBackfillCred01', name: 'Booking Requests (backfill timing)' };
const NODES = { manual: 'Backfill (run once)', list: 'Get all requests (backfill)', upsert: 'CRM: create or update by booking_request_id' };

interface TaskTiming {
	startTime?: number;
	executionTime?: number;
}

/** The rows of the recipe's table, as n8n's REST API counts them. */
async function tableRows(rest: N8nRest): Promise<number> {
	const tables = await rest.ok<{ data: Array<{ id: string; name: string; projectId: string }> }>('GET', '/data-tables-global');
	const table = tables.data.find((t) => t.name === 'booking_requests');
	if (!table) throw new Error('no booking_requests table');
	const page = await rest.ok<{ count: number }>('GET', `/projects/${table.projectId}/data-tables/${table.id}/rows?take=1&skip=0`);
	return page.count;
}

/** Seconds a node ran, from the run data n8n stores (its executionTime, ms). */
function nodeSeconds(raw: unknown, node: string): number {
	const r = raw as { data?: { resultData?: { runData?: Record<string, TaskTiming[]> } }; resultData?: { runData?: Record<string, TaskTiming[]> } };
	const runs = (r.data?.resultData ?? r.resultData)?.runData?.[node] ?? [];
	return runs.reduce((sum, run) => sum + (run.executionTime ?? 0), 0) / 1000;
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const sizes = argv.filter((a) => /^\d+$/.test(a)).map(Number);
	if (sizes.length === 0) sizes.push(1000, 2000);
	const say = (message: string) => process.stdout.write(`[backfill] ${message}\n`);

	const install = await ensureN8n(undefined, say);
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'backfill-timing-'));
	const packed = await packPackage(REPO, work, { build: !argv.includes('--no-build'), log: say });
	for (const requests of sizes) {
		// a fresh sandbox and n8n per size: the table starts empty, each run is the first backfill
		const sandbox = await startSandbox({ seed: 42, sizes: { requests, sessions: 10 } });
		const userFolder = makeUserFolder(work, 'n8n-');
		await installTarball(userFolder, packed.tarball);
		const cli = new N8nCli(install, userFolder);
		await cli.importCredentials([{ ...CREDENTIAL, type: 'bookingRequestsApi', data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } }]);
		const example = loadExampleWorkflows(path.join(REPO, 'examples'), CREDENTIAL).find((e) => e.file === FILE);
		if (!example) throw new Error(`examples/${FILE} is missing`);
		const { workflow } = example;
		await cli.importWorkflows([workflow]);
		const server = await startN8n({ userFolder, install });
		const failWith = (error: unknown) => new Error(`${String(error)}\nn8n's output, last lines:\n${server.output().split('\n').slice(-30).join('\n')}`);
		try {
			const rest = new N8nRest(server.url, install);
			await rest.setupOwner();
			const started = Date.now();
			const run = await rest.runFromTrigger(workflow.id, NODES.manual, 60 * 60_000).catch((error: unknown) => {
				throw failWith(error);
			});
			const total = (Date.now() - started) / 1000;
			if (!run.ok) throw new Error(`the backfill failed: ${JSON.stringify(run.error)}`);
			const reads = nodeSeconds(run.raw, NODES.list);
			const upserts = nodeSeconds(run.raw, NODES.upsert);
			const rows = await tableRows(rest);
			say(
				`${requests.toLocaleString('en-US')} requests: ${total.toFixed(1)} s end to end (reads ${reads.toFixed(1)} s, ` +
					`${sandbox.log.length} API calls; upserts ${upserts.toFixed(1)} s, ${rows.toLocaleString('en-US')} rows, ` +
					`${((upserts * 1000) / Math.max(rows, 1)).toFixed(1)} ms a row); load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`,
			);
		} finally {
			await server.stop();
			await sandbox.close();
			fs.rmSync(userFolder, { recursive: true, force: true });
		}
	}
	fs.rmSync(work, { recursive: true, force: true });
}

// Ctrl+C: exit through 'exit', where startN8n stops the n8n it started
process.once('SIGINT', () => process.exit(130));

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exit(1);
});
