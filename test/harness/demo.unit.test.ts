/**
 * The interactive demo (harness/demo.ts): the examples as it imports them agree with their sticky
 * notes, and its banner says where everything is. The examples' own files agree with their notes too.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { DEMO_WAIT_SECONDS, POLL_PHRASE, SANDBOX_PAGE, abandonCommand, demoBanner, forInteractiveDemo } from '../../harness/demo';
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

test('the example files: a sticky note that says how often the trigger checks says what the trigger does', () => {
	const claims = EXAMPLES.flatMap(pollClaims);
	expect(claims.length).toBeGreaterThanOrEqual(2);
	for (const claim of claims) expect(claim.said).toBe(claim.actual);
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

test('the banner: the editor, a link to each workflow and where they are in n8n, what to click, the log, the sandbox page', () => {
	const banner = demoBanner({
		editorUrl: 'http://localhost:5678',
		login: { email: 'owner@example.com', password: 'pw' },
		credentialName: CREDENTIAL.name,
		sandboxUrl: 'http://127.0.0.1:4010',
		keys: { demo: 'brk_demo', revoked: 'brk_revoked' },
		workflows: EXAMPLES.map(forInteractiveDemo),
		logFile: '/cache/demo/n8n.log',
		startedIn: 'runtime 1.0s',
	});
	expect(banner).toContain('n8n editor:      http://localhost:5678');
	expect(banner).toContain('Overview (left sidebar) → Workflows');
	for (const workflow of EXAMPLES) expect(banner).toContain(`${workflow.name}: http://localhost:5678/workflow/${workflow.id}`);
	expect(banner).toMatch(/click "Fetch Test Event"/);
	expect(banner).toMatch(/click "Publish" \(top right; n8n asks for a version name/);
	expect(banner).toContain(abandonCommand('http://127.0.0.1:4010'));
	expect(banner).toContain("n8n's log:       /cache/demo/n8n.log");
	expect(banner).toContain('Overview → Data tables');
	expect(banner).toContain(SANDBOX_PAGE);
	expect(fs.existsSync(path.join(ROOT, SANDBOX_PAGE))).toBe(true);
});
