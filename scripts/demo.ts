/**
 * Demo: this package inside a real n8n, talking to the sandbox API.
 *
 *   node scripts/ts-run.js scripts/demo.ts [--headless] [--port 5678] [--sandbox-port 4010]
 *                                              [--no-build] [--user-folder DIR] [--seed 42]
 *                                              [--examples DIR (default examples/)] [--cli]
 *
 * 1. ensures Node 24 + n8n in the cache (first run: 10 to 20 minutes, with progress every 15 s; then:
 *    instant),
 * 2. `npm run build` + `npm pack` of this repository (--no-build: pack the existing dist/),
 * 3. starts the sandbox API in this process (port 4010 when free, as docs/sandbox.md's examples use),
 * 4. makes a FRESH n8n user folder (temp dir, removed on exit) - unless --user-folder DIR, which is
 *    kept - installs the tarball into its .n8n/nodes like n8n installs community packages,
 * 5. imports a `bookingRequestsApi` credential pointing at the sandbox (demo key) and the
 *    workflows in examples/*.json (their Booking Requests nodes are pointed at that credential),
 * 6. interactive: `n8n start` (its output goes to <cache>/demo/n8n.log, not to the terminal), creates
 *    the owner account, prints the banner (harness/demo.ts): the editor URL, login, key, a link to
 *    each workflow, the log's path, what to click first and the sandbox page; Ctrl+C stops n8n and
 *    the sandbox.
 *    Made for trying it in the browser: the sandbox's data is recent (its newest activity minutes old,
 *    customers who left a booking unfinished in the last hours), Wait nodes wait DEMO_WAIT_SECONDS (a
 *    note on the canvas says so), the triggers check every minute (the sticky notes say so), and the
 *    banner says how to make a customer abandon a booking now (POST /__sandbox/abandon).
 *    --headless: `n8n start`, then runs each example once through the REST API, as the editor's
 *    "Execute workflow" / "Fetch Test Event" does (a manual run from its Manual Trigger, or from its
 *    first trigger) and prints item counts per node; exits 1 if any example fails. Wait nodes are
 *    shortened to 2 s for this run (the reminder sequence waits 23 and 48 hours).
 *    --headless --cli: Manual-Trigger examples run with `n8n execute` instead (mode 'cli', like a
 *    production run; one n8n process each, so about 15 s slower per example). Examples with a Data
 *    table node still run through the REST API: n8n 2.40.7's `execute` starts no backend modules, so
 *    the Data table node fails there ("the module is disabled").
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startSandbox } from '../sandbox';
import { DEMO_SANDBOX_PORT, demoBanner, demoLogFile, forInteractiveDemo } from '../harness/demo';
import { installTarball, packPackage } from '../harness/n8n/communityPackage';
import { DEFAULT_OWNER, N8nRest } from '../harness/n8n/rest';
import { loadExampleWorkflows, makeUserFolder, withShortWaits, type ExecutionResult } from '../harness/n8n/workflows';
import { N8nCli } from '../harness/n8n/cli';
import { ensureN8n } from '../harness/n8n/install';
import { freePort } from '../harness/n8n/process';
import { startN8n, type N8nServer } from '../harness/n8n/server';

const PKG = 'n8n-nodes-booking-requests';
const CRED_TYPE = 'bookingRequestsApi';
const CREDENTIAL = { id: 'demoSandboxCred1', name: 'Booking Requests (sandbox, demo key)' };
const REPO = path.resolve(__dirname, '..');
/** n8n's Data table node: needs n8n's data-table module, which `n8n execute` does not start. */
const DATA_TABLE = 'n8n-nodes-base.dataTable';

interface Args {
	headless: boolean;
	port?: number;
	sandboxPort?: number;
	build: boolean;
	userFolder?: string;
	seed?: number;
	examples: string;
	cli: boolean;
}

function parseArgs(argv: string[]): Args {
	const args: Args = { headless: false, build: true, examples: path.join(REPO, 'examples'), cli: false };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const next = () => {
			const v = argv[++i];
			if (v === undefined) throw new Error(`${a} needs a value`);
			return v;
		};
		if (a === '--headless') args.headless = true;
		else if (a === '--port') args.port = Number(next());
		else if (a === '--sandbox-port') args.sandboxPort = Number(next());
		else if (a === '--no-build') args.build = false;
		else if (a === '--user-folder') args.userFolder = path.resolve(next());
		else if (a === '--seed') args.seed = Number(next());
		else if (a === '--examples') args.examples = path.resolve(next());
		else if (a === '--cli') args.cli = true;
		else if (a === '--help' || a === '-h') {
			process.stdout.write(fs.readFileSync(__filename, 'utf8').split('*/')[0] + '*/\n');
			process.exit(0);
		} else throw new Error(`unknown argument ${a}`);
	}
	return args;
}

const t0 = Date.now();
const since = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const say = (msg: string) => process.stdout.write(`[demo ${since()}] ${msg}\n`);

function summarise(run: ExecutionResult): string {
	return Object.entries(run.items)
		.map(([node, items]) => `${node}: ${items.length}`)
		.join(', ');
}

async function main(): Promise<void> {
	const args = parseArgs(process.argv.slice(2));
	const cleanups: Array<() => Promise<void> | void> = [];
	let cleaning: Promise<void> | undefined;
	const cleanup = () =>
		(cleaning ??= (async () => {
			for (const fn of cleanups.reverse()) {
				try {
					await fn();
				} catch (err) {
					process.stderr.write(`cleanup: ${String(err)}\n`);
				}
			}
		})());

	try {
		const install = await ensureN8n(undefined, (m) => say(m));
		say(`n8n ${install.version} on node ${install.node.version} (${install.node.source}) ready`);
		const timings: Record<string, string> = { runtime: since() };

		const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'booking-demo-pack-'));
		cleanups.push(() => fs.rmSync(packDir, { recursive: true, force: true }));
		const packed = await packPackage(REPO, packDir, { build: args.build, log: say });
		say(`packed ${path.basename(packed.tarball)}`);
		timings.pack = since();

		// the sandbox runs in this process: n8n is always spawned asynchronously, so it can answer
		// recent: the newest activity minutes old, customers who left a booking unfinished in the last hours
		const sandboxPort = args.sandboxPort ?? ((await isFree(DEMO_SANDBOX_PORT)) ? DEMO_SANDBOX_PORT : 0);
		const sandbox = await startSandbox({ port: sandboxPort, seed: args.seed, recent: true });
		cleanups.push(() => sandbox.close());
		say(`sandbox API on ${sandbox.url}`);

		const userFolder = args.userFolder ?? makeUserFolder(undefined, 'booking-demo-n8n-');
		if (!args.userFolder) cleanups.push(() => fs.rmSync(userFolder, { recursive: true, force: true }));
		await installTarball(userFolder, packed.tarball);
		const cli = new N8nCli(install, userFolder);
		await cli.importCredentials([{ ...CREDENTIAL, type: CRED_TYPE, data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } }]);
		timings.credential = since();
		// --headless runs every example once: Wait nodes (the reminder sequence waits hours) become 2 s;
		// in the browser they wait DEMO_WAIT_SECONDS and the triggers check every minute
		const examples = loadExampleWorkflows(args.examples, CREDENTIAL, { pkg: PKG, credentialType: CRED_TYPE }).map((e) => ({
			...e,
			workflow: args.headless ? withShortWaits(e.workflow, 2) : forInteractiveDemo(e.workflow),
		}));
		if (examples.length) await cli.importWorkflows(examples.map((e) => e.workflow));
		say(`n8n user folder ${userFolder}: package installed, credential + ${examples.length} example workflow(s) imported`);
		timings.imported = since();

		// n8n's own output (its log: warnings of the nodes, errors) goes to a file that outlives the demo
		const logFile = demoLogFile();
		const log = fs.createWriteStream(logFile);
		cleanups.push(() => new Promise<void>((resolve) => log.end(resolve)));
		let server: N8nServer | undefined;
		const ensureServer = async (port?: number) => {
			if (server) return server;
			say(`starting n8n (its log: ${logFile})`);
			const s = await startN8n({ userFolder, install, port, echo: log });
			server = s;
			cleanups.push(() => s.stop());
			return s;
		};

		if (args.headless) {
			let failed = 0;
			let rest: N8nRest | undefined;
			const connect = async () => {
				if (rest) return rest;
				const s = await ensureServer();
				const r = new N8nRest(s.url, install);
				await r.setupOwner();
				timings.serverReady = since();
				say(`n8n started on ${s.url}`);
				return (rest = r);
			};
			for (const { file, workflow, via, startNode } of examples) {
				let run: ExecutionResult;
				let how: string;
				const started = Date.now();
				try {
					if (via === 'execute' && args.cli && !workflow.nodes.some((n) => n.type === DATA_TABLE)) {
						how = 'n8n execute';
						run = await cli.execute(workflow.id);
					} else {
						how = `manual run from "${startNode}"`;
						run = await (await connect()).runFromTrigger(workflow.id, startNode);
					}
				} catch (err) {
					failed++;
					say(`FAIL ${file}: ${err instanceof Error ? err.message : String(err)}`);
					continue;
				}
				const took = `${((Date.now() - started) / 1000).toFixed(1)} s`;
				if (run.ok) say(`ok   ${file} (${how}, ${took}) items per node: ${summarise(run)}`);
				else {
					failed++;
					say(`FAIL ${file} (${how}, ${took}): ${run.error?.message ?? 'error'}${run.error?.description ? ` - ${run.error.description}` : ''}`);
				}
			}
			if (failed) say(`n8n's log: ${logFile}`);
			timings.done = since();
			say(`timings (since start): ${Object.entries(timings).map(([k, v]) => `${k} ${v}`).join(', ')}`);
			say(`${examples.length - failed} passed, ${failed} failed`);
			await cleanup();
			process.exit(failed ? 1 : 0);
		}

		const wanted = args.port ?? 5678;
		const port = (await isFree(wanted)) ? wanted : await freePort();
		const s = await ensureServer(port);
		const rest = new N8nRest(s.url, install);
		await rest.setupOwner(DEFAULT_OWNER);
		timings.serverReady = since();
		process.stdout.write(
			demoBanner({
				editorUrl: `http://localhost:${s.port}`,
				login: DEFAULT_OWNER,
				credentialName: CREDENTIAL.name,
				sandboxUrl: sandbox.url,
				keys: sandbox.keys,
				workflows: examples.map((e) => e.workflow),
				logFile,
				startedIn: Object.entries(timings)
					.map(([k, v]) => `${k} ${v}`)
					.join(', '),
			}),
		);
		await new Promise<void>((resolve) => {
			process.once('SIGINT', resolve);
			process.once('SIGTERM', resolve);
		});
		say('stopping ...');
		await cleanup();
		say(`n8n's log is kept: ${logFile}`);
		process.exit(0);
	} catch (err) {
		process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
		await cleanup();
		process.exit(1);
	}
}

async function isFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

void main();
