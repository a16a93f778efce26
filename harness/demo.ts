/**
 * The interactive demo's parts that a test can check (scripts/demo.ts runs them): the example
 * workflows as the demo imports them, where it keeps n8n's log, and the banner it prints.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { cacheDir } from './n8n/install';
import { withShortWaits, type WorkflowImport } from './n8n/workflows';

/** The interactive demo's Wait nodes (the reminder sequence waits 23 and 48 hours in its file). */
export const DEMO_WAIT_SECONDS = 30;
/** The sandbox's port in the demo when it is free (docs/sandbox.md's examples use it). */
export const DEMO_SANDBOX_PORT = 4010;
/** The user's page of the sandbox's control routes, relative to the repository. */
export const SANDBOX_PAGE = 'docs/sandbox.md';

const TRIGGER_TYPE = 'n8n-nodes-booking-requests.bookingRequestsTrigger';
const STICKY_NOTE = 'n8n-nodes-base.stickyNote';
const EVERY_MINUTE = { item: [{ mode: 'everyMinute' }] };

/** What a sticky note says about how often the trigger checks ("checks every 5 minutes"). */
export const POLL_PHRASE = /checks every (\d+ minutes|minute|hour|\d+ hours)/g;

/**
 * The workflow as the interactive demo imports it: Wait nodes of DEMO_WAIT_SECONDS (with a note on
 * the canvas saying so), triggers that check every minute, and sticky notes that say so (the file's
 * own interval in brackets). The files keep their real settings.
 */
export function forInteractiveDemo(workflow: WorkflowImport): WorkflowImport {
	const shortened = withShortWaits(workflow, DEMO_WAIT_SECONDS);
	return {
		...shortened,
		nodes: shortened.nodes.map((node) => {
			if (node.type === 'n8n-nodes-base.wait') return { ...node, notes: `Demo: waits ${DEMO_WAIT_SECONDS} s`, notesInFlow: true };
			if (node.type === TRIGGER_TYPE) return { ...node, parameters: { ...node.parameters, pollTimes: EVERY_MINUTE } };
			if (node.type === STICKY_NOTE && typeof node.parameters.content === 'string') {
				const content = node.parameters.content.replace(POLL_PHRASE, (phrase, every: string) =>
					every === 'minute' ? phrase : `checks every minute in this demo (every ${every} in the file)`,
				);
				return { ...node, parameters: { ...node.parameters, content } };
			}
			return node;
		}),
	};
}

/**
 * Where the demo keeps n8n's output: `<cache>/demo/n8n.log`, the previous run's as `n8n.previous.log`.
 * Outside the temporary n8n user folder, so it outlives the demo.
 */
export function demoLogFile(): string {
	const dir = path.join(cacheDir(), 'demo');
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, 'n8n.log');
	if (fs.existsSync(file)) fs.renameSync(file, path.join(dir, 'n8n.previous.log'));
	return file;
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
}

/** The curl that makes a customer abandon a booking now (docs/sandbox.md has it too). */
export function abandonCommand(sandboxUrl: string): string {
	return `curl -s -X POST ${sandboxUrl}/__sandbox/abandon -H 'content-type: application/json' -d '{"contact": {"firstname": "Sam", "email": "sam@example.com"}}'`;
}

/** The banner of the interactive demo: where everything is and what to click first. */
export function demoBanner(input: BannerInput): string {
	const { editorUrl, workflows } = input;
	const link = (workflow: WorkflowImport) => `${editorUrl}/workflow/${workflow.id}`;
	const isTrigger = (workflow: WorkflowImport) => workflow.nodes.some((node) => node.type === TRIGGER_TYPE);
	const retarget = workflows.find((w) => isTrigger(w) && !w.nodes.some((node) => node.type === 'n8n-nodes-base.wait'));
	const sequence = workflows.find((w) => w.nodes.some((node) => node.type === 'n8n-nodes-base.wait'));
	const dataTable = workflows.find((w) => w.nodes.some((node) => node.type === 'n8n-nodes-base.dataTable'));
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
		'',
		'  The example workflows: in n8n, Overview (left sidebar) → Workflows, or open them here:',
		...workflows.map((w) => `    ${w.name}: ${link(w)}`),
		'',
		'  Try this first:',
		`  1. Open "${retarget?.name ?? 'Retarget abandoned booking sessions'}"${retarget ? ` (${link(retarget)})` : ''}, double-click`,
		'     "Booking Requests Trigger", click "Fetch Test Event": customers who left a booking unfinished in the last hours.',
		'  2. Close the panel and click "Execute workflow": the reminder e-mail composed for each of them.',
		'  3. See it fire by itself: click "Publish" (top right; n8n asks for a version name, any will do, e.g. "demo"),',
		'     then make a customer abandon a booking now (the sandbox clock moves on 61 minutes):',
		`       ${abandonCommand(input.sandboxUrl)}`,
		'     In this demo the triggers check every minute: within a minute the workflow\'s "Executions" tab',
		"     (top of the canvas) shows a run with Sam's reminder.",
		...(sequence ? [`  The reminder sequence ("${sequence.name}") waits ${DEMO_WAIT_SECONDS} s here instead of 23 and 48 hours.`] : []),
		...(dataTable ? [`  "${dataTable.name}" writes to a Data Table: Overview → Data tables, after its backfill ran.`] : []),
		'',
		`  One command per recipe (customers abandon and book, requests created and changed, ids listed): ${SANDBOX_PAGE}`,
		'',
		'  Ctrl+C stops n8n and the sandbox.',
		'',
	].join('\n');
}
