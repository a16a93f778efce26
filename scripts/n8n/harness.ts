/**
 * Driving a real n8n: a fresh user folder, credential/workflow import, `n8n execute` with parsed
 * run data, and a small REST client for a running `n8n start` (owner set-up, credential test,
 * manual run of a workflow from a chosen trigger - the only way n8n runs a polling trigger once).
 *
 * n8n facts (2.40.7) this relies on:
 *  - `import:credentials --input=file.json`: an ARRAY of {id, name, type, data}; when `data` is an
 *    object (decrypted) n8n encrypts it with the user folder's key (.n8n/config). Credentials and
 *    workflows without --userId/--projectId go to the instance owner's personal project.
 *  - `import:workflow --input=file.json`: an array (or one object) of workflows; ids must be at
 *    most 16 chars (n8n 1.x rejects longer ids and then never saves static data).
 *  - `execute --id X --rawOutput`: starts only from a Manual Trigger (or Execute Workflow
 *    Trigger) node; prints `JSON.stringify(IRun, null, 2)` through the logger (so N8N_LOG_LEVEL
 *    must be info), mixed with other log lines on stdout. On failure it prints the same JSON after
 *    "Execution was NOT successful" and exits non-zero. parseExecuteOutput() cuts the JSON out.
 *  - A polling trigger runs its poll() once only in mode 'manual' (WorkflowExecute.executePollNode);
 *    the CLI runs in mode 'cli', where a poll node just passes input through. Manual mode is what
 *    the editor's "Fetch test event" uses: POST /rest/workflows/:id/run {triggerToStartFrom:{name}}.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { runN8n, type N8nInstall, type RunResult } from './runtime';

export interface CredentialImport {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	[key: string]: unknown;
}

export interface WorkflowImport {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	active?: boolean;
	settings?: Record<string, unknown>;
	pinData?: Record<string, unknown>;
	[key: string]: unknown;
}

/** A fresh, empty n8n user folder in the OS temp dir (n8n creates `.n8n/` inside). */
export function makeUserFolder(parent: string = os.tmpdir(), prefix = 'n8n-user-'): string {
	fs.mkdirSync(parent, { recursive: true });
	return fs.mkdtempSync(path.join(parent, prefix));
}

/** 16-char alphanumeric id (n8n ids are nanoids; n8n 1.x needs <= 16 chars). */
export function n8nId(seed?: string): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	if (seed) {
		// stable: derived from a hash of the seed
		const digest = createHash('sha256').update(seed).digest();
		return Array.from(digest.subarray(0, 16), (b) => alphabet[b % alphabet.length]).join('');
	}
	let s = '';
	for (let i = 0; i < 16; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
	return s;
}

function assertOk(what: string, res: RunResult, mustContain?: RegExp): void {
	if (res.code !== 0 || (mustContain && !mustContain.test(res.stdout + res.stderr))) {
		throw new Error(`${what} failed (exit ${res.code ?? res.signal}):\n${(res.stdout + '\n' + res.stderr).trim().split('\n').slice(-30).join('\n')}`);
	}
}

export class N8nCli {
	constructor(
		readonly install: N8nInstall,
		readonly userFolder: string,
		readonly env: NodeJS.ProcessEnv = {},
	) {}

	run(args: string[], timeoutMs?: number): Promise<RunResult> {
		return runN8n(args, { userFolder: this.userFolder, env: this.env, install: this.install, timeoutMs });
	}

	private writeTemp(name: string, data: unknown): string {
		const dir = path.join(this.userFolder, 'imports');
		fs.mkdirSync(dir, { recursive: true });
		const file = path.join(dir, `${Date.now()}-${Math.random().toString(36).slice(2)}-${name}`);
		fs.writeFileSync(file, JSON.stringify(data, null, 2));
		return file;
	}

	async importCredentials(creds: CredentialImport[]): Promise<void> {
		const file = this.writeTemp('credentials.json', creds);
		assertOk('n8n import:credentials', await this.run(['import:credentials', `--input=${file}`]), /Successfully imported/);
	}

	async importWorkflows(workflows: WorkflowImport[]): Promise<void> {
		const file = this.writeTemp(
			'workflows.json',
			workflows.map((w) => ({ active: false, settings: {}, ...w })),
		);
		assertOk('n8n import:workflow', await this.run(['import:workflow', `--input=${file}`]), /Successfully imported/);
	}

	/** `n8n execute --id <id> --rawOutput`, parsed. Never throws on a failed execution. */
	async execute(workflowId: string, timeoutMs?: number): Promise<ExecutionResult> {
		const res = await this.run(['execute', `--id=${workflowId}`, '--rawOutput'], timeoutMs);
		return parseExecuteOutput(res);
	}
}

// ---------------------------------------------------------------------------------------------
// example workflows (examples/*.json)
// ---------------------------------------------------------------------------------------------

export interface ExampleWorkflow {
	/** File name, e.g. `session-funnel.json`. */
	file: string;
	workflow: WorkflowImport;
	/**
	 * How to run it once: `execute` (`n8n execute`, needs a Manual Trigger) or `trigger` (a manual
	 * run of `startNode` through the REST API, the editor's "Fetch Test Event").
	 */
	via: 'execute' | 'trigger';
	/** The node the run starts from. */
	startNode: string;
}

const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';

function isTriggerNode(node: WorkflowNode): boolean {
	return /trigger$/i.test(node.type) || node.type === 'n8n-nodes-base.start';
}

/**
 * The example workflows of `dir` (sorted by file name), ready to import: every node of `pkg`
 * (`<pkg>.<node>`) is pointed at `credential` (type `credentialType`), ids are kept when n8n's
 * n8n 1.x and 2.x accept them (<= 16 chars) and derived from the file name otherwise.
 */
export function loadExampleWorkflows(
	dir: string,
	credential: { id: string; name: string },
	opts: { pkg?: string; credentialType?: string } = {},
): ExampleWorkflow[] {
	const pkg = opts.pkg ?? 'n8n-nodes-booking-requests';
	const credentialType = opts.credentialType ?? 'bookingRequestsApi';
	if (!fs.existsSync(dir)) return [];
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => {
			const base = path.basename(file, '.json');
			const raw = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as WorkflowImport;
			if (!Array.isArray(raw.nodes)) throw new Error(`${file}: not an n8n workflow (no "nodes" array)`);
			const workflow: WorkflowImport = {
				...raw,
				id: raw.id && String(raw.id).length <= 16 ? String(raw.id) : n8nId(`ex${base}`),
				name: raw.name || base,
				active: false,
				nodes: raw.nodes.map((node) =>
					node.type.startsWith(`${pkg}.`) ? { ...node, credentials: { ...(node.credentials ?? {}), [credentialType]: credential } } : node,
				),
			};
			// `n8n execute` starts from the FIRST trigger in the node list (Workflow.getStartNode), so a
			// Manual Trigger is only usable when it comes before every other trigger
			const triggers = workflow.nodes.filter((n) => isTriggerNode(n) && n.disabled !== true);
			const first = triggers[0];
			if (!first) throw new Error(`${file}: no trigger node to start from`);
			if (first.type === MANUAL_TRIGGER) return { file, workflow, via: 'execute' as const, startNode: first.name };
			if (triggers.some((n) => n.type === MANUAL_TRIGGER)) {
				throw new Error(`${file}: put the Manual Trigger before the other triggers in "nodes" (n8n execute starts from the first one)`);
			}
			return { file, workflow, via: 'trigger' as const, startNode: first.name };
		});
}

// ---------------------------------------------------------------------------------------------
// run data
// ---------------------------------------------------------------------------------------------

export interface NodeError {
	message: string;
	description?: string | null;
	httpCode?: string | number | null;
	name?: string;
	[key: string]: unknown;
}

export interface ExecutionResult {
	/** true when the run data has no workflow-level error. */
	ok: boolean;
	/** Items (json) per node name, output 0 of the node's last run. */
	items: Record<string, Array<Record<string, unknown>>>;
	/** Items of every output per node (for nodes with several outputs). */
	outputs: Record<string, Array<Array<Record<string, unknown>>>>;
	/** Error of each node that failed. */
	nodeErrors: Record<string, NodeError>;
	/** The workflow-level error (resultData.error), if any. */
	error?: NodeError;
	lastNodeExecuted?: string;
	/** The full IRun / execution data, for anything else. */
	raw: unknown;
	exitCode?: number | null;
	log: string;
}

interface TaskData {
	data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> };
	error?: NodeError;
}

interface RunDataLike {
	data?: {
		resultData?: {
			runData?: Record<string, TaskData[]>;
			error?: NodeError;
			lastNodeExecuted?: string;
		};
	};
	resultData?: {
		runData?: Record<string, TaskData[]>;
		error?: NodeError;
		lastNodeExecuted?: string;
	};
}

/** Turns an IRun (`{data:{resultData}}`) or IRunExecutionData (`{resultData}`) into items per node. */
export function summariseRun(run: unknown, log = '', exitCode?: number | null): ExecutionResult {
	const r = run as RunDataLike;
	const resultData = r.data?.resultData ?? r.resultData ?? {};
	const items: ExecutionResult['items'] = {};
	const outputs: ExecutionResult['outputs'] = {};
	const nodeErrors: ExecutionResult['nodeErrors'] = {};
	for (const [node, runs] of Object.entries(resultData.runData ?? {})) {
		const last = runs[runs.length - 1];
		if (!last) continue;
		const main = last.data?.main ?? [];
		outputs[node] = main.map((out) => (out ?? []).map((i) => i.json));
		items[node] = outputs[node][0] ?? [];
		if (last.error) nodeErrors[node] = last.error;
	}
	return {
		ok: !resultData.error,
		items,
		outputs,
		nodeErrors,
		error: resultData.error,
		lastNodeExecuted: resultData.lastNodeExecuted,
		raw: run,
		exitCode,
		log,
	};
}

/**
 * Cuts the pretty-printed IRun JSON out of `n8n execute --rawOutput` output: the block from a line
 * that is exactly `{` to the last line that is exactly `}` (other log lines are single-line).
 */
export function parseExecuteOutput(res: RunResult): ExecutionResult {
	const text = res.stdout;
	const lines = text.split(/\r?\n/);
	const log = `${res.stdout}\n${res.stderr}`;
	for (let i = 0; i < lines.length; i++) {
		if (lines[i] !== '{') continue;
		for (let j = lines.length - 1; j > i; j--) {
			if (lines[j] !== '}') continue;
			try {
				const parsed = JSON.parse(lines.slice(i, j + 1).join('\n')) as RunDataLike;
				if (parsed?.data?.resultData) return summariseRun(parsed, log, res.code);
			} catch {
				/* try a shorter block */
			}
		}
	}
	const tail = log.trim().split('\n').slice(-30).join('\n');
	throw new Error(`could not find run data in n8n execute output (exit ${res.code ?? res.signal}):\n${tail}`);
}

// ---------------------------------------------------------------------------------------------
// REST client for `n8n start`
// ---------------------------------------------------------------------------------------------

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export const DEFAULT_OWNER: Owner = {
	email: 'demo@example.com',
	password: 'Demo-password-1',
	firstName: 'Demo',
	lastName: 'Owner',
};

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

export class N8nRest {
	private cookie = '';
	private readonly browserId = `e2e-${Math.random().toString(36).slice(2)}`;

	constructor(
		readonly baseUrl: string,
		/** n8n install, used to load its `flatted` for execution data. */
		readonly install: N8nInstall,
	) {}

	async request<T = unknown>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
		const res = await fetch(`${this.baseUrl}/rest${route}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': this.browserId,
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const setCookie = res.headers.getSetCookie?.() ?? [];
		for (const c of setCookie) {
			const m = /^(n8n-auth=[^;]*)/.exec(c);
			if (m) this.cookie = m[1];
		}
		const text = await res.text();
		let parsed: unknown = text;
		try {
			parsed = JSON.parse(text);
		} catch {
			/* not JSON */
		}
		return { status: res.status, body: parsed as T };
	}

	private async ok<T>(method: string, route: string, body?: unknown): Promise<T> {
		const r = await this.request<{ data: T }>(method, route, body);
		if (r.status >= 400) throw new Error(`n8n ${method} /rest${route} -> ${r.status}: ${JSON.stringify(r.body).slice(0, 1000)}`);
		return (r.body as { data: T }).data;
	}

	/** Creates the owner account on a fresh instance (or logs in if it exists). */
	async setupOwner(owner: Owner = DEFAULT_OWNER): Promise<void> {
		const r = await this.request('POST', '/owner/setup', owner);
		if (r.status < 400) return;
		await this.login(owner);
	}

	async login(owner: Owner = DEFAULT_OWNER): Promise<void> {
		await this.ok('POST', '/login', { emailOrLdapLoginId: owner.email, password: owner.password });
	}

	/**
	 * Runs the credential type's `test` (test.request) through n8n's CredentialsTester, as the
	 * editor's "Test" / save does. `data` overrides the stored data of credential `id`.
	 */
	async testCredential(cred: { id: string; name?: string; type?: string; data?: Record<string, unknown> }): Promise<CredentialTestResult> {
		// like the editor: load the credential (secrets come back redacted), send it to /test;
		// n8n restores the redacted values from the stored, encrypted data before testing
		const stored = await this.ok<{ id: string; name: string; type: string; data?: Record<string, unknown> }>(
			'GET',
			`/credentials/${cred.id}?includeData=true`,
		);
		return this.ok<CredentialTestResult>('POST', '/credentials/test', {
			credentials: {
				id: stored.id,
				name: cred.name ?? stored.name,
				type: cred.type ?? stored.type,
				data: { ...(stored.data ?? {}), ...(cred.data ?? {}) },
			},
		});
	}

	/** Node types n8n has loaded (names like `n8n-nodes-booking-requests.bookingRequests`). */
	async nodeTypeNames(): Promise<string[]> {
		const r = await fetch(`${this.baseUrl}/types/nodes.json`, { headers: { 'browser-id': this.browserId, cookie: this.cookie } });
		const list = (await r.json()) as Array<{ name: string }>;
		return list.map((n) => n.name);
	}

	async credentialTypeNames(): Promise<string[]> {
		const r = await fetch(`${this.baseUrl}/types/credentials.json`, { headers: { 'browser-id': this.browserId, cookie: this.cookie } });
		const list = (await r.json()) as Array<{ name: string }>;
		return list.map((n) => n.name);
	}

	/**
	 * Manual run from a trigger node (the editor's "Fetch test event" / "Execute workflow"):
	 * mode 'manual', so a polling trigger's poll() runs once. Waits for the execution and
	 * returns its run data.
	 */
	async runFromTrigger(workflowId: string, triggerName: string, timeoutMs = 120_000): Promise<ExecutionResult> {
		// n8n 1.x reads the workflow from the body (2.x ignores it), so send it as the editor does.
		const workflowData = await this.ok<Record<string, unknown>>('GET', `/workflows/${workflowId}`);
		const started = await this.ok<{ executionId?: string; waitingForWebhook?: boolean }>('POST', `/workflows/${workflowId}/run`, {
			workflowData,
			triggerToStartFrom: { name: triggerName },
		});
		if (!started.executionId) throw new Error(`n8n did not start an execution: ${JSON.stringify(started)}`);
		return this.waitForExecution(started.executionId, timeoutMs);
	}

	async waitForExecution(executionId: string, timeoutMs = 120_000): Promise<ExecutionResult> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const r = await this.request<{ data: { status?: string; finished?: boolean; data?: unknown } }>('GET', `/executions/${executionId}`);
			const exec = r.status === 200 ? (r.body as { data: { status?: string; finished?: boolean; data?: unknown } }).data : undefined;
			if (exec && exec.status && !['new', 'running', 'waiting'].includes(exec.status) && exec.data) {
				const data = typeof exec.data === 'string' ? this.unflatten(exec.data) : exec.data;
				return summariseRun(data, `status=${exec.status}`);
			}
			if (Date.now() > deadline) throw new Error(`execution ${executionId} did not finish: ${JSON.stringify(r.body).slice(0, 500)}`);
			await new Promise((res) => setTimeout(res, 250));
		}
	}

	/** Execution data is stored and served in `flatted` format; use n8n's own copy to read it. */
	private unflatten(text: string): unknown {
		const req = createRequire(this.install.n8nBin);
		const flatted = req('flatted') as { parse: (s: string) => unknown };
		return flatted.parse(text);
	}
}
