/**
 * Demo: this package inside a real n8n, talking to the sandbox API.
 *
 *   node scripts/ts-run.js scripts/demo.ts [--headless] [--port 5678] [--sandbox-port 4010] [--fresh]
 *                                              [--no-build] [--user-folder DIR] [--seed 42]
 *                                              [--examples DIR (default examples/)] [--cli]
 *
 * 1. ensures Node 24 + n8n in the cache (first run: 4 to 10 minutes, with progress every 15 s; then:
 *    instant),
 * 2. bundles this repository (`gulp build`: esbuild, seconds; --no-build: the existing dist/) and packs
 *    it (`npm pack`), with progress,
 * 3. starts the sandbox API in this process (port 4010 when free, as docs/sandbox.md's examples use);
 *    with a kept n8n it keeps its data and clock in the n8n folder (booking-demo-sandbox.json) and goes
 *    on from them at the next run: the published triggers remember that data, and no id is made twice,
 * 4. the n8n user folder: the interactive demo KEEPS its n8n in <cache>/demo/n8n between runs (its
 *    workflows, published versions, Data tables, executions, the sandbox's data; --fresh deletes it
 *    first); --headless uses a temporary one (removed on exit); --user-folder DIR is kept. It installs
 *    the new tarball into its .n8n/nodes like n8n installs community packages (every run: n8n loads the
 *    new build at its start),
 * 5. imports a `bookingRequestsApi` credential pointing at the sandbox (demo key) and the workflows in
 *    examples/*.json (their Booking Requests nodes are pointed at that credential) - into a kept n8n only
 *    what an earlier run did not import (the folder's booking-demo.json says what it did): importing a
 *    workflow again would overwrite the user's edits and unpublish it. The credential is imported again
 *    when the sandbox's URL or key changed (n8n updates it by id),
 * 6. interactive: `n8n start` (its output goes to <cache>/demo/n8n.log, or n8n.log in --user-folder's
 *    DIR, not to the terminal; its last line is shown every 15 s until it is ready), creates the owner
 *    account (or logs in), prints the banner (harness/demo.ts): the editor URL, login, key, a link to
 *    each workflow, the log's path, what to click first and the sandbox page; Ctrl+C (or closing the
 *    terminal) stops n8n and the sandbox.
 *    Made for trying it in the browser: the sandbox's data is recent (its newest activity minutes old,
 *    customers who left a booking unfinished in the last hours), Wait nodes wait DEMO_WAIT_SECONDS (a
 *    note on the canvas says so), the triggers check every minute and Session Abandoned counts a draft
 *    idle for 1 minute (the sticky notes say so: a draft left now is reported a minute or two later,
 *    on the sandbox's clock at real time), and the banner says how to make a customer abandon a
 *    booking now (POST /__sandbox/abandon). With a kept n8n the sandbox goes on with the last run's
 *    data and clock (step 3).
 *    --headless: `n8n start`, then runs each example once through the REST API, as the editor's
 *    "Execute workflow" / "Fetch Test Event" does (a manual run from its Manual Trigger, or from its
 *    first trigger) and prints item counts per node; exits 1 if any example fails. Wait nodes are
 *    shortened to 2 s for this run (the reminder sequence waits 23 and 48 hours).
 *    --headless --cli: Manual-Trigger examples run with `n8n execute` instead (mode 'cli', like a
 *    production run; one n8n process each, so about 15 s slower per example). Examples with a Data
 *    table node still run through the REST API: n8n 2.x's `execute` starts no backend modules, so
 *    the Data table node fails there ("the module is disabled").
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startSandbox, type Sandbox } from '../sandbox';
import {
	DEMO_SANDBOX_PORT,
	demoBanner,
	demoLogFile,
	demoSandboxState,
	demoUserFolder,
	forInteractiveDemo,
	lockUserFolder,
	planImport,
	readLedger,
	writeLedger,
} from '../harness/demo';
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
	fresh: boolean;
}

function parseArgs(argv: string[]): Args {
	const args: Args = { headless: false, build: true, examples: path.join(REPO, 'examples'), cli: false, fresh: false };
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
		else if (a === '--fresh') args.fresh = true;
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
		// the interactive demo keeps its n8n between runs; --headless runs the examples in a throw-away one
		const kept = !args.headless || args.userFolder !== undefined;
		const userFolder = args.userFolder ?? (args.headless ? makeUserFolder(undefined, 'booking-demo-n8n-') : demoUserFolder());
		if (!kept) cleanups.push(() => fs.rmSync(userFolder, { recursive: true, force: true }));
		if (kept && args.fresh && fs.existsSync(userFolder)) {
			lockUserFolder(userFolder)(); // not while another demo uses it
			fs.rmSync(userFolder, { recursive: true, force: true });
			say(`--fresh: removed the kept n8n ${userFolder}`);
		}
		cleanups.push(lockUserFolder(userFolder)); // first: a second demo on this folder stops at once
		const ledger = kept ? readLedger(userFolder) : undefined;

		const install = await ensureN8n(undefined, (m) => say(m));
		say(`n8n ${install.version} on node ${install.node.version} (${install.node.source}) ready`);
		const timings: Record<string, string> = { runtime: since() };

		const packDir = fs.mkdtempSync(path.join(os.tmpdir(), 'booking-demo-pack-'));
		cleanups.push(() => fs.rmSync(packDir, { recursive: true, force: true }));
		// the bundle n8n loads is all the demo needs: tsc's type check (most of `npm run build`) is left to the build
		const packed = await packPackage(REPO, packDir, { build: args.build ? 'bundle' : false, log: say });
		say(`packed ${path.basename(packed.tarball)}`);
		timings.pack = since();

		// the sandbox runs in this process: n8n is always spawned asynchronously, so it can answer
		// recent: the newest activity minutes old, customers who left a booking unfinished in the last hours
		const busyPorts: string[] = [];
		const sandboxPort = args.sandboxPort ?? ((await isFree(DEMO_SANDBOX_PORT)) ? DEMO_SANDBOX_PORT : 0);
		if (sandboxPort === 0) busyPorts.push(`sandbox ${DEMO_SANDBOX_PORT}`);
		// a kept n8n's published triggers remember the sandbox's data: its sandbox goes on with it
		const stateFile = kept ? demoSandboxState(userFolder) : undefined;
		const goesOn = stateFile !== undefined && fs.existsSync(stateFile);
		if (ledger && !goesOn) say("this n8n was kept by an older demo, whose sandbox did not keep its data: its published triggers may report the sandbox's data again (--fresh starts both afresh)");
		const sandbox = await startSandbox({ port: sandboxPort, seed: args.seed, recent: true, stateFile });
		cleanups.push(() => sandbox.close());
		say(`sandbox API on ${sandbox.url}${goesOn ? `, with the data of the last run (${sandboxClock(sandbox)})` : ''}`);

		say(`installing ${path.basename(packed.tarball)} into n8n's ${kept && ledger ? 'kept ' : ''}user folder ${userFolder}`);
		await installTarball(userFolder, packed.tarball);
		const cli = new N8nCli(install, userFolder);
		const credentialData = { apiKey: sandbox.keys.demo, baseUrl: sandbox.url };
		// --headless runs every example once: Wait nodes (the reminder sequence waits hours) become 2 s;
		// in the browser they wait DEMO_WAIT_SECONDS and the triggers check every minute
		const examples = loadExampleWorkflows(args.examples, CREDENTIAL, { pkg: PKG, credentialType: CRED_TYPE }).map((e) => ({
			...e,
			workflow: args.headless ? withShortWaits(e.workflow, 2) : forInteractiveDemo(e.workflow),
		}));
		const plan = planImport(ledger, examples, credentialData);
		if (plan.credential) {
			say(`importing the credential "${CREDENTIAL.name}" (n8n import:credentials: n8n starts for it, 10 to 30 s)`);
			await cli.importCredentials([{ ...CREDENTIAL, type: CRED_TYPE, data: credentialData }]);
		}
		timings.credential = since();
		if (plan.workflows.length) {
			say(`importing ${plan.workflows.length} example workflow(s) (n8n import:workflow: n8n starts for it, 10 to 30 s)`);
			await cli.importWorkflows(plan.workflows);
		}
		if (kept) writeLedger(userFolder, plan.next);
		if (plan.kept) say(`kept from the last run: ${plan.kept} example workflow(s), as you left them (--fresh starts clean)`);
		for (const file of plan.changed) say(`examples/${file} changed since it was imported: your copy is kept; --fresh imports the new one`);
		timings.imported = since();

		// n8n's own output (its log: warnings of the nodes, errors) goes to a file that outlives the demo
		const logFile = demoLogFile(args.userFolder);
		const log = fs.createWriteStream(logFile);
		cleanups.push(() => new Promise<void>((resolve) => log.end(resolve)));
		let server: N8nServer | undefined;
		const ensureServer = async (port?: number) => {
			if (server) return server;
			say(`starting n8n (15 to 60 s; its log: ${logFile})`);
			const s = await startN8n({ userFolder, install, port, echo: log, progress: say });
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
		if (port !== wanted) busyPorts.push(`n8n ${wanted}`);
		const s = await ensureServer(port);
		say(`n8n started on ${s.url}`);
		const rest = new N8nRest(s.url, install);
		try {
			await rest.setupOwner(DEFAULT_OWNER); // or logs in, in a kept n8n
		} catch {
			say(`could not log in as ${DEFAULT_OWNER.email} with the demo's password: log in with the one you set (--fresh starts clean)`);
		}
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
				keptFolder: kept ? userFolder : undefined,
				earlier: ledger ? { workflows: plan.kept, changed: plan.changed } : undefined,
				busyPorts,
			}),
		);
		// Ctrl+C, a kill, or the terminal closed: n8n and the sandbox are stopped and saved all the same.
		// The handlers stay: a second signal while stopping (Ctrl+C twice, or one forwarded by a wrapper)
		// would otherwise end this process at once and leave n8n running (its own process group).
		let stopping = false;
		await new Promise<void>((resolve) => {
			const stop = () => {
				if (stopping) say('stopping already: n8n first, then the sandbox');
				stopping = true;
				resolve();
			};
			for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
		});
		say('stopping ...');
		await cleanup();
		say(`n8n's log is kept: ${logFile}`);
		if (kept) say(`n8n's data is kept: ${userFolder} (the next npm run demo continues with it; --fresh starts clean)`);
		process.exit(0);
	} catch (err) {
		// a demo already running is the user's situation, not a bug: its message is enough
		const inUse = err instanceof Error && err.message.startsWith('another demo');
		process.stderr.write(`${err instanceof Error ? (inUse ? err.message : err.stack ?? err.message) : String(err)}\n`);
		await cleanup();
		process.exit(1);
	}
}

/** Where the sandbox's clock stands: on real time, or how far ahead (a control route moved it on). */
function sandboxClock(sandbox: Sandbox): string {
	const ahead = Math.round((sandbox.clock.now() - Date.now()) / 60_000);
	return ahead > 0 ? `its clock ${ahead} minutes ahead of real time, as the last run left it` : 'its clock on real time';
}

async function isFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

void main();
