/**
 * The interactive demo's parts that a test can check (scripts/demo.ts runs them): the example
 * workflows as the demo imports them, the n8n it keeps between runs and what it imports into it, where
 * it keeps n8n's log, and the banner it prints.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { cacheDir } from './n8n/install';
import { withShortWaits, type WorkflowImport, type WorkflowNode } from './n8n/workflows';

/** The interactive demo's Wait nodes (the reminder sequence waits 23 and 48 hours in its file). */
export const DEMO_WAIT_SECONDS = 30;
/**
 * The interactive demo's Abandoned After (30 and 60 minutes in the files): a customer who leaves a
 * draft now is reported a minute or two later, on the sandbox's clock running at real time, so the
 * times and minutes in the items are true.
 */
export const DEMO_ABANDONED_AFTER_MINUTES = 1;
/** The sandbox's port in the demo when it is free (docs/sandbox.md's examples use it). */
export const DEMO_SANDBOX_PORT = 4010;
/** The user's page of the sandbox's control routes, relative to the repository. */
export const SANDBOX_PAGE = 'docs/sandbox.md';

const TRIGGER_TYPE = 'n8n-nodes-booking-requests.bookingRequestsTrigger';
const STICKY_NOTE = 'n8n-nodes-base.stickyNote';
const WAIT = 'n8n-nodes-base.wait';
const DATA_TABLE = 'n8n-nodes-base.dataTable';
const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';
const EVERY_MINUTE = { item: [{ mode: 'everyMinute' }] };

/** What a sticky note says about how often the trigger checks ("checks every 5 minutes"). */
export const POLL_PHRASE = /checks every (\d+ minutes|minute|hour|\d+ hours)/g;
/** What a sticky note says about the trigger's Abandoned After ("*Session Abandoned* after 30 min"). */
export const ABANDONED_PHRASE = /\*Session Abandoned\* after (\d+) min\b/g;

/**
 * The workflow as the interactive demo imports it: Wait nodes of DEMO_WAIT_SECONDS (with a note on
 * the canvas saying so), triggers that check every minute, Session Abandoned after
 * DEMO_ABANDONED_AFTER_MINUTES, and sticky notes that say so (the file's own settings in brackets).
 * The files keep their real settings.
 */
export function forInteractiveDemo(workflow: WorkflowImport): WorkflowImport {
	const shortened = withShortWaits(workflow, DEMO_WAIT_SECONDS);
	return {
		...shortened,
		nodes: shortened.nodes.map((node) => {
			if (node.type === 'n8n-nodes-base.wait') return { ...node, notes: `Demo: waits ${DEMO_WAIT_SECONDS} s`, notesInFlow: true };
			if (node.type === TRIGGER_TYPE) return { ...node, parameters: forDemoTrigger(node.parameters) };
			if (node.type === STICKY_NOTE && typeof node.parameters.content === 'string') {
				const content = node.parameters.content
					.replace(POLL_PHRASE, (phrase, every: string) => (every === 'minute' ? phrase : `checks every minute in this demo (every ${every} in the file)`))
					.replace(ABANDONED_PHRASE, (phrase, minutes: string) =>
						Number(minutes) === DEMO_ABANDONED_AFTER_MINUTES ? phrase : `*Session Abandoned* after ${DEMO_ABANDONED_AFTER_MINUTES} min in this demo (${minutes} min in the file)`,
					);
				return { ...node, parameters: { ...node.parameters, content } };
			}
			return node;
		}),
	};
}

/** A trigger in the interactive demo: it checks every minute, and reports a draft idle for DEMO_ABANDONED_AFTER_MINUTES. */
function forDemoTrigger(parameters: WorkflowNode['parameters']): WorkflowNode['parameters'] {
	const events = parameters.events as string[] | undefined;
	const abandoned = events?.includes('sessionAbandoned') ? { abandonedAfterMinutes: DEMO_ABANDONED_AFTER_MINUTES } : {};
	return { ...parameters, pollTimes: EVERY_MINUTE, ...abandoned };
}

/**
 * Where the demo keeps n8n's output: `n8n.log`, the previous run's as `n8n.previous.log`, in `dir`:
 * `<cache>/demo`, outside the temporary n8n user folder, so it outlives the demo; or the folder given
 * with --user-folder, so that two demos on two folders do not write one log.
 */
export function demoLogFile(dir = path.join(cacheDir(), 'demo')): string {
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, 'n8n.log');
	if (fs.existsSync(file)) fs.renameSync(file, path.join(dir, 'n8n.previous.log'));
	return file;
}

/**
 * Where the interactive demo keeps its n8n between runs (database with the workflows, their
 * published versions, executions, Data tables; the credential; the package): `<cache>/demo/n8n`.
 */
export function demoUserFolder(): string {
	return path.join(cacheDir(), 'demo', 'n8n');
}

/**
 * What the demo imported into a kept n8n, in its user folder: a later run imports only what is not
 * there yet. Importing a workflow again would overwrite the user's edits and unpublish it (n8n's
 * import deactivates a workflow it replaces).
 */
export interface DemoLedger {
	/** SHA-256 of the credential's data (sandbox URL and key) as last imported. */
	credential?: string;
	/** Workflow id: its file and the SHA-256 of the workflow as imported. */
	workflows: Record<string, { file: string; sha: string }>;
}

const LEDGER_FILE = 'booking-demo.json';

/**
 * Where a kept n8n's sandbox keeps its data and clock (SandboxOptions.stateFile): in the n8n folder,
 * whose published triggers remember that data, so that --fresh starts both afresh together.
 */
export function demoSandboxState(userFolder: string): string {
	return path.join(userFolder, 'booking-demo-sandbox.json');
}

export function readLedger(userFolder: string): DemoLedger | undefined {
	try {
		const ledger = JSON.parse(fs.readFileSync(path.join(userFolder, LEDGER_FILE), 'utf8')) as DemoLedger;
		return ledger && typeof ledger.workflows === 'object' && ledger.workflows !== null ? ledger : undefined;
	} catch {
		return undefined;
	}
}

export function writeLedger(userFolder: string, ledger: DemoLedger): void {
	fs.mkdirSync(userFolder, { recursive: true });
	fs.writeFileSync(path.join(userFolder, LEDGER_FILE), `${JSON.stringify(ledger, null, 2)}\n`);
}

const sha256 = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

export interface ImportPlan {
	/** Whether the credential must be imported (new, or the sandbox's URL or key changed: n8n updates it by id). */
	credential: boolean;
	/** The example workflows to import: those the ledger does not have. */
	workflows: WorkflowImport[];
	/** Files of the workflows kept from an earlier run although the example changed since. */
	changed: string[];
	/** How many workflows are kept from an earlier run. */
	kept: number;
	/** The ledger once the plan is carried out. */
	next: DemoLedger;
}

/** What a run imports into the demo's n8n, given what an earlier run imported (`ledger`; none: everything). */
export function planImport(ledger: DemoLedger | undefined, examples: Array<{ file: string; workflow: WorkflowImport }>, credentialData: Record<string, unknown>): ImportPlan {
	const credentialSha = sha256(credentialData);
	const before = ledger?.workflows ?? {};
	const next: DemoLedger = { ...ledger, credential: credentialSha, workflows: { ...before } };
	const workflows: WorkflowImport[] = [];
	const changed: string[] = [];
	for (const { file, workflow } of examples) {
		const sha = sha256(workflow);
		const earlier = before[workflow.id];
		if (!earlier) {
			workflows.push(workflow);
			next.workflows[workflow.id] = { file, sha };
		} else if (earlier.sha !== sha) changed.push(file);
	}
	return { credential: ledger?.credential !== credentialSha, workflows, changed, kept: examples.length - workflows.length, next };
}

/**
 * A pid file that keeps two demos off one n8n folder (one SQLite database): answers a release, or
 * throws when a live process holds it.
 */
export function lockUserFolder(userFolder: string): () => void {
	const file = path.join(userFolder, 'booking-demo.pid');
	fs.mkdirSync(userFolder, { recursive: true });
	const holder = Number(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : NaN);
	if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
		throw new Error(`another demo (pid ${holder}) is using ${userFolder}: stop it (Ctrl+C in its terminal), or give this one --user-folder DIR`);
	}
	fs.writeFileSync(file, String(process.pid));
	return () => fs.rmSync(file, { force: true });
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return (err as NodeJS.ErrnoException).code === 'EPERM';
	}
}

export interface BannerInput {
	editorUrl: string;
	login: { email: string; password: string };
	credentialName: string;
	sandboxUrl: string;
	keys: { demo: string; revoked: string };
	workflows: WorkflowImport[];
	logFile: string;
	startedIn: string;
	/** The n8n user folder the demo keeps between runs (none: a temporary one, removed on exit). */
	keptFolder?: string;
	/** What this run found of an earlier one in the kept folder (none: a first run). */
	earlier?: { workflows: number; changed: string[] };
	/** Ports asked for that were taken, e.g. `n8n 5678`. */
	busyPorts?: string[];
}

/** The curl that makes a customer abandon a booking now (docs/sandbox.md has it too). */
export function abandonCommand(sandboxUrl: string): string {
	return `curl -s -X POST ${sandboxUrl}/__sandbox/abandon -H 'content-type: application/json' -d '{"contact": {"firstname": "Sam", "lastname": "Lee", "email": "sam@example.com"}}'`;
}

/** The banner of the interactive demo: where everything is and what to click first. */
export function demoBanner(input: BannerInput): string {
	const { editorUrl, workflows } = input;
	const link = (workflow: WorkflowImport) => `${editorUrl}/workflow/${workflow.id}`;
	const has = (workflow: WorkflowImport, type: string) => workflow.nodes.some((node) => node.type === type);
	const isTrigger = (workflow: WorkflowImport) => has(workflow, TRIGGER_TYPE);
	const retarget = workflows.find((w) => isTrigger(w) && !has(w, WAIT));
	const sequence = workflows.find((w) => has(w, WAIT));
	// the CRM sync's published trigger writes to the table its Backfill creates; the report makes its own
	const crmSync = workflows.find((w) => has(w, DATA_TABLE) && isTrigger(w));
	const report = workflows.find((w) => has(w, DATA_TABLE) && !isTrigger(w));
	const backfill = crmSync?.nodes.find((node) => node.type === MANUAL_TRIGGER)?.name;
	return [
		'',
		`  n8n editor:      ${editorUrl}  (open it in your browser)`,
		`  login:           ${input.login.email} / ${input.login.password}`,
		`  credential:      "${input.credentialName}" (already set up)`,
		`  sandbox API:     ${input.sandboxUrl}`,
		`  demo API key:    ${input.keys.demo}`,
		`  revoked key:     ${input.keys.revoked} (to see a 401)`,
		`  n8n's log:       ${input.logFile}`,
		`  started in:      ${input.startedIn}`,
		...keptLines(input),
		...(input.busyPorts?.length ? [`  ports:           ${input.busyPorts.join(', ')} taken, so others were picked (choose with --port N --sandbox-port N)`] : []),
		'',
		`  The example workflows: in n8n, ${OVERVIEW} → Workflows, or open them here:`,
		...workflows.map((w) => `    ${w.name}: ${link(w)}`),
		'',
		'  Try this first:',
		`  1. Open "${retarget?.name ?? 'Retarget abandoned booking sessions'}"${retarget ? ` (${link(retarget)})` : ''}, double-click`,
		'     "Booking Requests Trigger", click "Fetch Test Event": customers who left a booking unfinished in the last hours.',
		'  2. Close the panel and click "Execute workflow": the reminder e-mail composed for each of them.',
		'  3. See it fire by itself: click "Publish" (top right; n8n asks for a version name, any will do, e.g. "demo"),',
		`     ${input.earlier ? 'unless it is still published from an earlier run, ' : ''}then make a customer abandon a booking now:`,
		`       ${abandonCommand(input.sandboxUrl)}`,
		`     In this demo a draft counts as abandoned after ${DEMO_ABANDONED_AFTER_MINUTES} minute and the triggers check every minute:`,
		"     within about two minutes the workflow's \"Executions\" tab (top of the canvas) shows a run with Sam's reminder.",
		...(sequence ? [`  The reminder sequence ("${sequence.name}") waits ${DEMO_WAIT_SECONDS} s here instead of 23 and 48 hours.`] : []),
		...(crmSync
			? [
					`  "${crmSync.name}": run its backfill BEFORE you publish it (Execute workflow ▾ → from "${backfill ?? 'Backfill (run once)'}"):`,
					'     it creates the Data Table the trigger writes to and copies the requests so far.',
				]
			: []),
		...(report ? [`  "${report.name}": click "Execute workflow"; its rows are then in Overview → Data tables.`] : []),
		'',
		`  One command per recipe (customers abandon and book, requests created and changed, ids listed): ${SANDBOX_PAGE}`,
		'',
		input.keptFolder ? '  Ctrl+C stops n8n and the sandbox; n8n keeps your workflows for the next run.' : '  Ctrl+C stops n8n and the sandbox.',
		'',
	].join('\n');
}

/** Where n8n 2.x (2.40.7, 2.41.1) lists workflows and tables: at 1440x900 its sidebar shows icons without names. */
export const OVERVIEW = 'Overview (the house icon in the left sidebar)';

function keptLines(input: BannerInput): string[] {
	if (!input.keptFolder) return [];
	const lines = [`  n8n's data:      ${input.keptFolder}`];
	if (!input.earlier) lines.push('                   kept between runs: workflows, published versions, tables, executions (--fresh starts clean)');
	else {
		lines.push(`                   kept from the last run: ${input.earlier.workflows} example workflow(s) as you left them, published or not (--fresh starts clean)`);
		for (const file of input.earlier.changed) lines.push(`                   examples/${file} changed since: --fresh imports the new one (your copy is kept until then)`);
	}
	return lines;
}
