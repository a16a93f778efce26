/**
 * n8n workflow and credential files as the CLI imports them, the example workflows of examples/,
 * and run data turned into items per node.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { RunResult } from './process';


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
// ---------------------------------------------------------------------------------------------
// example workflows (examples/*.json)
// ---------------------------------------------------------------------------------------------

export interface ExampleWorkflow {
	/** File name, e.g. `funnel-report.json`. */
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

/**
 * The workflow with every Wait node (time interval) shortened to `seconds`: the reminder sequence
 * waits hours in production; a test or the headless demo runs it end to end in seconds (n8n waits
 * in its process below 65 s, so the run ends without n8n's waiting-execution store).
 */
export function withShortWaits(workflow: WorkflowImport, seconds: number | ((node: WorkflowNode) => number)): WorkflowImport {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) =>
			node.type === 'n8n-nodes-base.wait'
				? { ...node, parameters: { ...node.parameters, resume: 'timeInterval', unit: 'seconds', amount: typeof seconds === 'number' ? seconds : seconds(node) } }
				: node,
		),
	};
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
