/**
 * The interactive demo (harness/demo.ts): the examples as it imports them agree with their sticky
 * notes, a kept n8n gets only what it does not have yet, and its banner says where everything is. The
 * examples' own files agree with their notes too.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
	ABANDONED_PHRASE,
	DEMO_ABANDONED_AFTER_MINUTES,
	DEMO_WAIT_SECONDS,
	OVERVIEW,
	POLL_PHRASE,
	SANDBOX_PAGE,
	abandonCommand,
	demoBanner,
	demoSandboxState,
	forInteractiveDemo,
	lockUserFolder,
	planImport,
	readLedger,
	writeLedger,
	type BannerInput,
} from '../../harness/demo';
import { loadExampleWorkflows, type WorkflowImport, type WorkflowNode } from '../../harness/n8n/workflows';

const ROOT = path.resolve(__dirname, '../..');
const CREDENTIAL = { id: 'demoSandboxCred1', name: 'Booking Requests (sandbox, demo key)' };
const EXAMPLES = loadExampleWorkflows(path.join(ROOT, 'examples'), CREDENTIAL).map((example) => example.workflow);
const TRIGGER = 'n8n-nodes-booking-requests.bookingRequestsTrigger';

/** How often a trigger checks, as a sticky note says it ("5 minutes", "minute"). */
function interval(trigger: WorkflowNode): string {
	const [poll] = (trigger.parameters.pollTimes as { item: Array<{ mode: string; value?: number; unit?: string }> }).item;
	if (poll.mode === 'everyMinute') return 'minute';
	if (poll.mode === 'everyHour') return 'hour';
	if (poll.mode === 'everyX') return `${poll.value} ${poll.unit}`;
	throw new Error(`poll mode ${poll.mode}: add it here`);
}

/** Every "checks every …" of the workflow's sticky notes, with the interval its trigger has. */
function pollClaims(workflow: WorkflowImport): Array<{ said: string; actual: string }> {
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER);
	const notes = workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote').map((node) => String(node.parameters.content));
	return notes.flatMap((note) => [...note.matchAll(POLL_PHRASE)].map((match) => ({ said: match[1], actual: trigger ? interval(trigger) : '(no trigger)' })));
}

/** Every "*Session Abandoned* after N min" of the workflow's sticky notes, with the trigger's Abandoned After. */
function abandonedClaims(workflow: WorkflowImport): Array<{ said: number; actual: unknown }> {
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER);
	const notes = workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote').map((node) => String(node.parameters.content));
	return notes.flatMap((note) => [...note.matchAll(ABANDONED_PHRASE)].map((match) => ({ said: Number(match[1]), actual: trigger?.parameters.abandonedAfterMinutes })));
}

test('the example files: a sticky note that says how often the trigger checks, or after how long a draft counts as abandoned, says what the trigger does', () => {
	const claims = EXAMPLES.flatMap(pollClaims);
	expect(claims.length).toBeGreaterThanOrEqual(2);
	for (const claim of claims) expect(claim.said).toBe(claim.actual);
	const abandoned = EXAMPLES.flatMap(abandonedClaims);
	expect(abandoned.map((claim) => claim.said).sort()).toEqual([30, 60]);
	for (const claim of abandoned) expect(claim.said).toBe(claim.actual);
});

test('in the interactive demo a draft counts as abandoned after 1 minute (idle in real time, no jump of the clock); the notes say so', () => {
	expect(DEMO_ABANDONED_AFTER_MINUTES).toBe(1);
	const abandonedTriggers = EXAMPLES.map(forInteractiveDemo).flatMap((workflow) =>
		workflow.nodes.filter((node) => node.type === TRIGGER && (node.parameters.events as string[]).includes('sessionAbandoned')),
	);
	expect(abandonedTriggers).toHaveLength(2);
	for (const trigger of abandonedTriggers) expect(trigger.parameters.abandonedAfterMinutes).toBe(1);
	for (const claim of EXAMPLES.map(forInteractiveDemo).flatMap(abandonedClaims)) expect(claim.said).toBe(1);
	const retarget = forInteractiveDemo(EXAMPLES.find((workflow) => workflow.name === 'Retarget abandoned booking sessions') as WorkflowImport);
	expect(retarget.nodes.find((node) => node.type === 'n8n-nodes-base.stickyNote')?.parameters.content).toContain('*Session Abandoned* after 1 min in this demo (30 min in the file)');
	// a trigger without Session Abandoned (the CRM sync) keeps its settings but the poll
	const crm = forInteractiveDemo(EXAMPLES.find((workflow) => workflow.id === 'exSyncRequests') as WorkflowImport).nodes.find((node) => node.type === TRIGGER);
	expect(crm?.parameters.abandonedAfterMinutes).toBeUndefined();
});

test('in the interactive demo: triggers check every minute, the sticky notes say so, Wait nodes wait 30 s with a note', () => {
	for (const workflow of EXAMPLES.map(forInteractiveDemo)) {
		for (const trigger of workflow.nodes.filter((node) => node.type === TRIGGER)) expect(interval(trigger)).toBe('minute');
		for (const claim of pollClaims(workflow)) expect(claim.said).toBe('minute');
		for (const wait of workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.wait')) {
			expect(wait.parameters).toMatchObject({ resume: 'timeInterval', unit: 'seconds', amount: DEMO_WAIT_SECONDS });
			expect(wait.notes).toBe(`Demo: waits ${DEMO_WAIT_SECONDS} s`);
		}
	}
	const retarget = forInteractiveDemo(EXAMPLES.find((workflow) => workflow.name === 'Retarget abandoned booking sessions') as WorkflowImport);
	const note = retarget.nodes.find((node) => node.type === 'n8n-nodes-base.stickyNote');
	expect(note?.parameters.content).toContain('the trigger checks every minute in this demo (every 5 minutes in the file)');
});

const BANNER: BannerInput = {
	editorUrl: 'http://localhost:5678',
	login: { email: 'owner@example.com', password: 'pw' },
	credentialName: CREDENTIAL.name,
	sandboxUrl: 'http://127.0.0.1:4010',
	keys: { demo: 'brk_demo', revoked: 'brk_revoked' },
	workflows: EXAMPLES.map(forInteractiveDemo),
	logFile: '/cache/demo/n8n.log',
	startedIn: 'runtime 1.0s',
};

test('the banner: the editor, a link to each workflow and where they are in n8n, what to click, the log, the sandbox page', () => {
	const banner = demoBanner(BANNER);
	expect(banner).toContain('n8n editor:      http://localhost:5678');
	// n8n 2.x (2.40.7, 2.41.1) at 1440x900: the sidebar shows icons without names
	expect(OVERVIEW).toBe('Overview (the house icon in the left sidebar)');
	expect(banner).toContain(`${OVERVIEW} → Workflows`);
	for (const workflow of EXAMPLES) expect(banner).toContain(`${workflow.name}: http://localhost:5678/workflow/${workflow.id}`);
	expect(banner).toMatch(/click "Fetch Test Event"/);
	expect(banner).toMatch(/click "Publish" \(top right; n8n asks for a version name/);
	expect(banner).toContain(abandonCommand('http://127.0.0.1:4010'));
	// what the command then does, as the demo's workflows are set up: no clock to move, a minute of real time
	expect(banner).toContain('In this demo a draft counts as abandoned after 1 minute and the triggers check every minute:');
	expect(banner).toContain('within about two minutes the workflow\'s "Executions" tab');
	expect(banner).not.toMatch(/61 minutes|stays ahead|still published/);
	expect(banner).toContain("n8n's log:       /cache/demo/n8n.log");
	expect(banner).toContain(SANDBOX_PAGE);
	expect(fs.existsSync(path.join(ROOT, SANDBOX_PAGE))).toBe(true);
	expect(banner).not.toMatch(/n8n's data|ports:/); // a temporary n8n, the ports asked for
});

test('the banner on the Data Tables: the CRM sync is backfilled before it is published; the funnel report has no backfill, it runs', () => {
	const banner = demoBanner(BANNER);
	expect(banner).toContain('"Sync booking requests to a CRM (new and updated)": run its backfill BEFORE you publish it (Execute workflow ▾ → from "Backfill (run once)")');
	expect(banner).toContain('"Weekly funnel report: sessions to bookings by form and source": click "Execute workflow"; its rows are then in Overview → Data tables.');
	expect(banner.match(/backfill/gi)).toHaveLength(2); // both in the CRM sync's lines
});

test("the banner's abandon command sends the contact docs/sandbox.md promises (Sam Lee)", () => {
	const command = abandonCommand('http://127.0.0.1:4010');
	const body = JSON.parse(/-d '([^']*)'/.exec(command)?.[1] ?? '{}') as { contact: Record<string, string> };
	expect(body.contact).toEqual({ firstname: 'Sam', lastname: 'Lee', email: 'sam@example.com' });
	const page = fs.readFileSync(path.join(ROOT, SANDBOX_PAGE), 'utf8');
	expect(page).toContain(`-d '${JSON.stringify(body).replace(/":/g, '": ').replace(/,"/g, ', "')}'`);
});

test('the banner of a kept n8n: where it is, what it kept, examples changed since, ports that were taken', () => {
	const first = demoBanner({ ...BANNER, keptFolder: '/cache/demo/n8n', busyPorts: ['n8n 5678'] });
	expect(first).toContain("n8n's data:      /cache/demo/n8n");
	expect(first).toContain('kept between runs: workflows, published versions, tables, executions (--fresh starts clean)');
	expect(first).toContain('ports:           n8n 5678 taken, so others were picked (choose with --port N --sandbox-port N)');
	expect(first).toContain('n8n keeps your workflows for the next run');
	const later = demoBanner({ ...BANNER, keptFolder: '/cache/demo/n8n', earlier: { workflows: 4, changed: ['sync-requests-to-crm.json'] } });
	expect(later).toContain('unless it is still published from an earlier run, then make a customer abandon a booking now:');
	expect(later).toContain('kept from the last run: 4 example workflow(s) as you left them, published or not (--fresh starts clean)');
	expect(later).toContain('examples/sync-requests-to-crm.json changed since: --fresh imports the new one');
});

describe('a kept n8n: what a run imports into it', () => {
	const examples = loadExampleWorkflows(path.join(ROOT, 'examples'), CREDENTIAL).map(({ file, workflow }) => ({ file, workflow: forInteractiveDemo(workflow) }));
	const sandbox = { apiKey: 'brk_demo', baseUrl: 'http://127.0.0.1:4010' };

	test('a first run imports the credential and every example', () => {
		const plan = planImport(undefined, examples, sandbox);
		expect(plan.credential).toBe(true);
		expect(plan.workflows.map((w) => w.id)).toEqual(examples.map((e) => e.workflow.id));
		expect(plan.kept).toBe(0);
		expect(Object.keys(plan.next.workflows)).toHaveLength(examples.length);
	});

	test('a later run imports nothing again (n8n would overwrite and unpublish the workflow), the credential only when the sandbox moved', () => {
		const first = planImport(undefined, examples, sandbox);
		const again = planImport(first.next, examples, sandbox);
		expect(again).toMatchObject({ credential: false, workflows: [], changed: [], kept: examples.length });
		expect(planImport(first.next, examples, { ...sandbox, baseUrl: 'http://127.0.0.1:4011' }).credential).toBe(true);
	});

	test('an example added since is imported; one changed since is kept and named', () => {
		const [changedOne, ...others] = examples;
		const earlier = planImport(undefined, others.slice(1), sandbox).next;
		earlier.workflows[changedOne.workflow.id] = { file: changedOne.file, sha: 'an older version' };
		const plan = planImport(earlier, examples, sandbox);
		expect(plan.workflows.map((w) => w.id)).toEqual([others[0].workflow.id]);
		expect(plan.changed).toEqual([changedOne.file]);
		expect(plan.kept).toBe(examples.length - 1);
		expect(plan.next.workflows[changedOne.workflow.id].sha).toBe('an older version');
	});

	test('the ledger is read back as written; a missing or broken one is none', () => {
		const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-ledger-'));
		try {
			expect(readLedger(folder)).toBeUndefined();
			const { next } = planImport(undefined, examples, sandbox);
			writeLedger(folder, next);
			expect(readLedger(folder)).toEqual(next);
			fs.writeFileSync(path.join(folder, 'booking-demo.json'), '{"not": "a ledger"');
			expect(readLedger(folder)).toBeUndefined();
		} finally {
			fs.rmSync(folder, { recursive: true, force: true });
		}
	});

	test("the sandbox's data and clock are kept in the n8n folder: --fresh, which removes the folder, starts both afresh", () => {
		expect(path.dirname(demoSandboxState('/cache/demo/n8n'))).toBe('/cache/demo/n8n');
	});

	test('one demo at a time per n8n folder; a lock left by a dead process is taken over', () => {
		const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-lock-'));
		try {
			fs.writeFileSync(path.join(folder, 'booking-demo.pid'), String(process.ppid));
			expect(() => lockUserFolder(folder)).toThrow(`another demo (pid ${process.ppid}) is using ${folder}`);
			fs.writeFileSync(path.join(folder, 'booking-demo.pid'), '999999999');
			const release = lockUserFolder(folder);
			expect(fs.readFileSync(path.join(folder, 'booking-demo.pid'), 'utf8')).toBe(String(process.pid));
			release();
			expect(fs.existsSync(path.join(folder, 'booking-demo.pid'))).toBe(false);
		} finally {
			fs.rmSync(folder, { recursive: true, force: true });
		}
	});
});

test("the CRM sync says what to do when its table is missing (published before its Backfill): on the canvas, in troubleshooting and the sandbox page", () => {
	const sync = EXAMPLES.find((workflow) => workflow.nodes.some((node) => node.name === 'Backfill (run once)')) as WorkflowImport;
	const error = 'Data table with name "booking_requests" not found';
	const notes = sync.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote').map((node) => String(node.parameters.content));
	const note = notes.find((content) => content.includes(error));
	expect(note).toContain('from **Backfill (run once)**');
	expect(note).toMatch(/copies the requests of the failed runs/);
	const upsert = sync.nodes.find((node) => node.type === 'n8n-nodes-base.dataTable' && node.parameters.operation === 'upsert');
	expect(upsert).toMatchObject({ notes: 'Table missing? Run the Backfill first', notesInFlow: true });
	for (const page of ['docs/troubleshooting.md', SANDBOX_PAGE]) {
		const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
		expect(text).toContain(`\`${error}\``);
		expect(text).toContain('from Backfill (run once)');
	}
});
