/**
 * `npm run demo` twice, as a returning user runs it (scripts/demo.ts as a child process, its n8n kept
 * in a folder of its own, the e2e suite's n8n install):
 *  1. the first run: the banner; the user publishes "Retarget abandoned booking sessions" (the
 *     editor's Publish, through the REST API) and a customer leaves a draft; the published trigger
 *     reports it. Ctrl+C.
 *  2. the second run goes on with the first run's world (the sandbox's own record still holds that
 *     customer's session), and the banner's first command makes a new customer: the first run's
 *     published trigger reports that customer exactly once (at its check after the draft is idle, and
 *     not again at the check after that), and the first run's customer is not reported again.
 * The oracle is the sandbox's own record of the sessions each command made (the control routes'
 * answers and lists); what the trigger reported is read from n8n's executions. Before the fix the
 * second run made the first run's world again, its first abandon got the same session id as the
 * first run's, and the published trigger, remembering that session, reported nothing.
 *
 * Cost: the demo's triggers check every minute (at a random second) and count a draft as abandoned
 * after 1 minute; the first run's customer is left idle a minute at once (`idleMinutes`: the sandbox's
 * clock moves on, which the second run must go on from), the second run's is the banner's command as
 * printed, idle in real time. About 1 to 2 minutes of waiting per run, and one more check: 285 s in
 * all, measured on 2 busy cores (each demo started in about 25 s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

import { N8nRest } from '../../harness/n8n/rest';
import { cleanEnv, freePort, killTree, sleep } from '../../harness/n8n/process';
import { makeUserFolder } from '../../harness/n8n/workflows';
import { hashKey, type RequestLogEntry, type Session } from '../../sandbox';
import { restData } from './helpers/dataTable';
import { loadState } from './helpers/state';

const RETARGET = 'Retarget abandoned booking sessions';
const TRIGGER = 'Booking Requests Trigger';
const SESSIONS_PATH = '/api/v1/abandoned-sessions';

/** What the banner says: where n8n and the sandbox are, the Retarget workflow, the first command to try. */
interface Banner {
	editorUrl: string;
	sandboxUrl: string;
	demoKey: string;
	retargetId: string;
	abandon: { url: string; body: unknown };
}

function parseBanner(out: string): Banner {
	const match = (re: RegExp, what: string) => {
		const m = re.exec(out);
		if (!m) throw new Error(`the banner has no ${what}:\n${out}`);
		return m;
	};
	const command = match(/^\s*curl -s -X POST (\S+) -H 'content-type: application\/json' -d '([^']*)'$/m, 'abandon command');
	return {
		editorUrl: match(/n8n editor:\s+(\S+)/, 'editor URL')[1],
		sandboxUrl: match(/sandbox API:\s+(\S+)/, 'sandbox URL')[1],
		demoKey: match(/demo API key:\s+(\S+)/, 'demo key')[1],
		retargetId: match(new RegExp(`${RETARGET}: \\S+/workflow/(\\S+)`), 'Retarget link')[1],
		abandon: { url: command[1], body: JSON.parse(command[2]) as unknown },
	};
}

/** One `npm run demo` (scripts/demo.ts) until the test stops it as Ctrl+C does. */
class DemoRun {
	private out = '';
	private exited: Promise<number | null>;
	private constructor(readonly child: ChildProcess) {
		child.stdout!.on('data', (d: Buffer) => (this.out += d.toString('utf8')));
		child.stderr!.on('data', (d: Buffer) => (this.out += d.toString('utf8')));
		this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
	}

	static start(repoDir: string, args: string[]): DemoRun {
		return new DemoRun(spawn(process.execPath, ['scripts/ts-run.js', 'scripts/demo.ts', ...args], { cwd: repoDir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] }));
	}

	output(): string {
		return this.out;
	}

	/** Resolves with the banner once the demo printed it (its last line: what Ctrl+C does). */
	async banner(timeoutMs = 5 * 60_000): Promise<Banner> {
		const deadline = Date.now() + timeoutMs;
		let code: number | null | undefined;
		void this.exited.then((c) => (code = c));
		while (!this.out.includes('Ctrl+C stops n8n and the sandbox')) {
			if (code !== undefined) throw new Error(`the demo ended (exit ${code}) before its banner:\n${this.out}`);
			if (Date.now() > deadline) throw new Error(`no banner within ${timeoutMs / 1000} s:\n${this.out}`);
			await sleep(250);
		}
		return parseBanner(this.out);
	}

	/** Ctrl+C: the demo stops n8n, then the sandbox (which saves its state), and exits 0. */
	async stop(): Promise<number | null> {
		this.child.kill('SIGINT');
		const timer = setTimeout(() => killTree(this.child, 'SIGKILL'), 90_000);
		const code = await this.exited;
		clearTimeout(timer);
		return code;
	}
}

/** The sandbox's control routes (its own record, not the code under test). */
async function control<T>(sandboxUrl: string, method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
	const res = await fetch(`${sandboxUrl}/__sandbox/${route}`, {
		method,
		headers: { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (res.status !== 200) throw new Error(`${method} /__sandbox/${route} -> ${res.status}: ${await res.text()}`);
	return (await res.json()) as T;
}

/** The demo key's reads of the session list so far (the sandbox's request log). */
async function sessionReads(banner: Banner): Promise<RequestLogEntry[]> {
	const log = await control<RequestLogEntry[]>(banner.sandboxUrl, 'GET', 'log');
	return log.filter((entry) => entry.keyHash === hashKey(banner.demoKey) && entry.path === SESSIONS_PATH && entry.status === 200);
}

/** Resolves once a poll of the trigger has read the session list after `after` reads, and its reads are over. */
async function nextPoll(banner: Banner, after: number, timeoutMs = 3 * 60_000): Promise<number> {
	const deadline = Date.now() + timeoutMs;
	while ((await sessionReads(banner)).length <= after) {
		if (Date.now() > deadline) throw new Error(`the published trigger did not poll within ${timeoutMs / 1000} s`);
		await sleep(500);
	}
	// the poll's other reads follow 1 s apart (the rate limit): it is over once the key is quiet
	const key = hashKey(banner.demoKey);
	for (;;) {
		const log = await control<RequestLogEntry[]>(banner.sandboxUrl, 'GET', 'log');
		const last = log.filter((entry) => entry.keyHash === key).at(-1);
		if (last && Date.now() - last.at > 2500) return (await sessionReads(banner)).length;
		await sleep(500);
	}
}

/** The session ids the workflow's trigger reported, one entry per report, from n8n's finished trigger executions. */
async function reported(rest: N8nRest, workflowId: string): Promise<string[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const page = await restData<{ results: Array<{ id: string; mode: string; status: string }> }>(rest, 'GET', `/executions?filter=${filter}&limit=100`);
	const ids: string[] = [];
	for (const execution of page.results.filter((e) => e.mode === 'trigger')) {
		const run = await rest.waitForExecution(execution.id);
		ids.push(...(run.items[TRIGGER] ?? []).map((item) => String(item.session_id)));
	}
	return ids;
}

/** Resolves once the trigger has reported `sessionId`; the reports so far. */
async function reportOf(rest: N8nRest, workflowId: string, sessionId: string, timeoutMs = 4 * 60_000): Promise<string[]> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const ids = await reported(rest, workflowId);
		if (ids.includes(sessionId)) return ids;
		if (Date.now() > deadline) throw new Error(`session ${sessionId} was not reported within ${timeoutMs / 1000} s; reported: ${JSON.stringify(ids)}`);
		await sleep(2000);
	}
}

const count = (ids: string[], id: string) => ids.filter((x) => x === id).length;

describe('npm run demo twice: the second run goes on where the first stopped', () => {
	const state = loadState();
	const log = (message: string) => process.stderr.write(`[demo e2e +${((Date.now() - t0) / 1000).toFixed(1)} s] ${message}\n`);
	const t0 = Date.now();
	let userFolder: string;
	let args: string[];
	let current: DemoRun | undefined;
	let first: { session: Session; ids: Set<string>; workflowId: string } | undefined;

	beforeAll(async () => {
		if (!('tarball' in state.pack)) throw new Error(`the package could not be built/packed:\n${state.pack.error}`);
		userFolder = makeUserFolder(state.workDir, 'demo-');
		// the build the global setup made (--no-build); a kept n8n of its own; ports of its own
		args = ['--no-build', '--user-folder', path.join(userFolder, 'n8n'), '--port', String(await freePort()), '--sandbox-port', String(await freePort())];
	});

	afterAll(async () => {
		if (current) await current.stop();
	});

	async function startDemo(): Promise<{ banner: Banner; rest: N8nRest }> {
		current = DemoRun.start(state.repoDir, args);
		const banner = await current.banner();
		const used = /n8n (\S+) on node/.exec(current.output())?.[1];
		if (used !== state.install.version) throw new Error(`the demo ran n8n ${used}, the e2e suite ${state.install.version}: the demo's n8n is installed in the test's time`);
		const rest = new N8nRest(banner.editorUrl, state.install);
		await rest.login();
		log(`demo started: ${banner.editorUrl}, sandbox ${banner.sandboxUrl}`);
		return { banner, rest };
	}

	async function stopDemo(): Promise<void> {
		const code = await current?.stop();
		expect({ code, kept: current?.output().includes("n8n's data is kept") }).toEqual({ code: 0, kept: true });
		current = undefined;
	}

	test('the first run: published, Retarget reports a customer who left a draft', async () => {
		const { banner, rest } = await startDemo();
		const workflow = await restData<{ versionId: string; name: string }>(rest, 'GET', `/workflows/${banner.retargetId}`);
		expect(workflow.name).toBe(RETARGET);
		const before = (await sessionReads(banner)).length;
		await restData(rest, 'POST', `/workflows/${banner.retargetId}/activate`, { versionId: workflow.versionId });
		await nextPoll(banner, before); // the poll at publishing: nothing from before is reported
		log('published; its first poll is over');

		// a customer leaves a draft, already a minute idle (the sandbox's clock moves on a minute)
		const { session } = await control<{ session: Session }>(banner.sandboxUrl, 'POST', 'abandon', { ...(banner.abandon.body as object), idleMinutes: 1 });
		const ids = await reportOf(rest, banner.retargetId, session.id);
		expect(count(ids, session.id)).toBe(1);
		log(`reported ${session.id}`);
		const world = await control<{ requests: Array<{ id: string }>; sessions: Array<{ id: string }> }>(banner.sandboxUrl, 'GET', 'workspace');
		first = { session, ids: new Set([...world.requests, ...world.sessions].map((row) => row.id)), workflowId: banner.retargetId };
		await stopDemo();
	});

	test("the second run: the same world; the banner's command makes a new customer, whom the first run's published trigger reports exactly once", async () => {
		if (!first) throw new Error('the first run did not get as far as a report');
		const { banner, rest } = await startDemo();
		expect(banner.retargetId).toBe(first.workflowId);
		// the sandbox's own record: the first run's customer is still there, as the trigger remembers her
		const kept = await control<{ items: Array<{ id: string }> }>(banner.sandboxUrl, 'GET', 'sessions?status=abandoned&limit=100');
		expect(kept.items.map((s) => s.id)).toContain(first.session.id);

		// the banner's first command, as printed
		const res = await fetch(banner.abandon.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(banner.abandon.body) });
		expect(res.status).toBe(200);
		const { session, offsetMs } = (await res.json()) as { session: Session; offsetMs: number };
		expect(first.ids.has(session.id)).toBe(false);
		expect(session.data.contact?.phone).not.toBe(first.session.data.contact?.phone);
		expect(offsetMs).toBeLessThanOrEqual(60_000); // the clock went on from the first run's, not further
		log(`the banner's command made ${session.id}`);

		await reportOf(rest, banner.retargetId, session.id);
		const reads = (await sessionReads(banner)).length;
		log('reported; waiting for the check after');
		await nextPoll(banner, reads); // the check after the report: it must not report her again
		const ids = await reported(rest, banner.retargetId);
		expect({ second: count(ids, session.id), first: count(ids, first.session.id) }).toEqual({ second: 1, first: 1 });
		await stopDemo();
	});
});
