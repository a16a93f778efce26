/**
 * docs/sandbox.md runs as written: each command of its `bash` examples is run with bash and curl, in
 * the page's order, against a sandbox started as the demo starts it, and gives the object the page
 * says (no error; the contact the example sends, in the object's own spelling). After each example a
 * published Booking Requests Trigger (the demo's retargeting settings, Abandoned After 1 minute, with
 * the CRM events, in n8n-core's real PollContext) checks once the time the page says to wait has
 * passed (the sandbox's clock moved on; what must come before a check is one example), so the page's
 * claims about what the trigger then reports are checked too. The commands of one example run a few
 * seconds apart, as a person runs them. The control routes are not rate limited; the trigger's
 * checks run at a 100 ms rate gap.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { GAP_MS, setPacingGapForTests } from '../../harness/limiterSettings';
import { DEMO_ABANDONED_AFTER_MINUTES, abandonCommand } from '../../harness/demo';
import { createHarness, type PollState } from '../../harness/inProcessN8n';
import { startSandbox, type Sandbox } from '../../sandbox';
import { asRequestFields, splitContact } from '../../sandbox/contact';

jest.setTimeout(180_000);

const PAGE = path.resolve(__dirname, '../../docs/sandbox.md');
const DEFAULT_URL = 'SANDBOX=http://127.0.0.1:4010';

/** The page's `bash` examples, in order. */
function examples(): string[] {
	return [...fs.readFileSync(PAGE, 'utf8').matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((match) => match[1].trim());
}

/** The commands of an example: each line with the lines it continues (`\` at the end). */
function commandsOf(example: string): string[] {
	return example.split(/(?<!\\)\n/).map((command) => command.trim());
}

/**
 * The time after an example before the trigger checks: the page says Sam's reminder comes within about
 * two minutes in the demo (Abandoned After 1 minute, a check every minute); and the seconds a person
 * takes to run the next command of one example.
 */
const BEFORE_CHECK_MS = 2 * 60_000;
const NEXT_COMMAND_MS = 5_000;
function runBash(script: string, sandboxUrl: string): Promise<string> {
	return new Promise((resolve, reject) => {
		execFile('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, SANDBOX: sandboxUrl }, timeout: 30_000 }, (error, stdout, stderr) => {
			if (error) reject(new Error(`${script}\n${error.message}\n${stderr}`));
			else resolve(stdout);
		});
	});
}

/** The JSON body an example sends (`-d '…'`), or {}. */
function bodyOf(example: string): Record<string, unknown> {
	const data = /-d '([^']*)'/.exec(example)?.[1];
	return data ? (JSON.parse(data) as Record<string, unknown>) : {};
}

/** The answer of one command is the object the page says it makes (`offsetMs`: the clock's before it). */
function expectAnswer(command: string, answer: IDataObject, offsetMs: number): void {
	expect(answer.error).toBeUndefined();
	const { contact } = splitContact(bodyOf(command));
	const session = answer.session as IDataObject | undefined;
	const request = answer.request as IDataObject | undefined;
	if (/\/abandon"/.test(command)) {
		expect(session).toMatchObject({ step: 'address', request_id: null, data: { contact } });
		expect(answer.offsetMs).toBe(offsetMs); // the route did not move the sandbox's clock
	} else if (/\/complete"/.test(command)) {
		expect(session?.request_id).toBe(request?.id);
	} else if (/\/bookings"/.test(command)) {
		expect(request).toMatchObject(asRequestFields(contact));
		expect(session).toMatchObject({ step: 'confirm', data: {}, request_id: request?.id });
	} else if (/\/sessions"/.test(command) && command.includes('-X POST')) {
		expect(answer).toMatchObject({ step: 'address', request_id: null, attribution: bodyOf(command).attribution, data: { contact } });
	} else if (/\/requests"/.test(command) && command.includes('-X POST')) {
		expect(answer).toMatchObject({ ...bodyOf(command), ...asRequestFields(contact) });
	} else if (/\/update"/.test(command)) {
		expect(answer).toMatchObject({ status: 'complete', lead_status: 'contacted', internal_notes: 'Called back' });
	} else {
		expect((answer.items as unknown[]).length).toBeGreaterThan(0);
	}
}

let sandbox: Sandbox;
beforeAll(async () => {
	// the demo's data; a shorter rate gap for the trigger's checks (what is checked does not need the real 1 s)
	setPacingGapForTests(110);
	sandbox = await startSandbox({ recent: true, minGapMs: 100 });
});
afterAll(async () => {
	setPacingGapForTests(GAP_MS);
	await sandbox.close();
});

test('the page sets the URL the demo and `npm run sandbox` use, then only calls control routes through it', () => {
	const [first, ...rest] = examples();
	expect(first).toBe(DEFAULT_URL);
	expect(rest.length).toBeGreaterThanOrEqual(10);
	for (const command of rest.flatMap(commandsOf)) expect(command).toMatch(/^curl -s (-X POST )?"\$SANDBOX\/__sandbox\/[^"]+"/);
	expect(rest.some((example) => commandsOf(example).length > 1)).toBe(true); // one runs two commands together
});

test('every example runs as written and makes what the page says; the trigger then reports what the page says', async () => {
	const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
	// The demo's retargeting trigger (newest version) with the CRM recipe's events.
	const parameters = {
		events: ['sessionAbandoned', 'sessionCompleted', 'requestCreated', 'requestUpdated'],
		abandonedAfterMinutes: DEMO_ABANDONED_AFTER_MINUTES,
		skipIfBooked: true,
		options: { onlyWithEmail: true },
	};
	const state: PollState = { staticData: {} };
	const events: IDataObject[] = [];
	const check = async () => {
		const result = await harness.poll(parameters, state, 'trigger', { typeVersion: 1.1 });
		state.staticData = JSON.parse(JSON.stringify(state.staticData)) as IDataObject;
		events.push(...(result ? result[0].map((item) => item.json) : []));
	};
	await check(); // publishing: nothing from before

	let passed = 0; // how far the test moved the sandbox's clock on: the time a person takes
	const pass = (ms: number) => {
		sandbox.clock.advance(ms);
		passed += ms;
	};
	for (const example of examples().slice(1)) {
		for (const [i, command] of commandsOf(example).entries()) {
			if (i > 0) pass(NEXT_COMMAND_MS);
			expectAnswer(command, JSON.parse(await runBash(command, sandbox.url)) as IDataObject, passed);
		}
		pass(BEFORE_CHECK_MS);
		await check();
	}

	const of = (event: string, email: string) => events.filter((item) => item.event === event && item.email === email);
	// Retargeting: Sam is reported abandoned once; after booking, Session Completed says recovered.
	expect(of('session.abandoned', 'sam@example.com')).toHaveLength(1);
	expect(of('session.completed', 'sam@example.com').map((item) => item.recovered)).toContain(true);
	expect(of('request.created', 'sam@example.com')).toHaveLength(2);
	// Max booked before the check that would have reported the draft: no reminder, the booking reported.
	expect(of('session.abandoned', 'max@example.com')).toHaveLength(0);
	expect(of('session.completed', 'max@example.com')).toHaveLength(1);
	// CRM: Ada's request is new, then updated with the fields that changed.
	expect(of('request.created', 'ada@example.com')).toHaveLength(1);
	const [updated] = of('request.updated', 'ada@example.com');
	expect(updated.changed_fields).toEqual(expect.arrayContaining(['status', 'lead_status', 'internal_notes', 'completed_at']));
	expect(updated.previous).toMatchObject({ status: 'pending', completed_at: null });
	// Funnel: the report's read (sessions of the last 7 days with their requests) has Kim's podcast row
	// next to the demo data's sources
	const { items, error } = await harness.runAction({
		resource: 'bookingSession',
		operation: 'getAll',
		returnAll: true,
		filters: { updatedAfter: new Date(Date.now() - 7 * 86_400_000).toISOString() },
		options: { includeRequest: true },
	});
	expect(error).toBeUndefined();
	const bySource = new Map<string, IDataObject[]>();
	for (const { json } of items) bySource.set(String(json.utm_source ?? '(none)'), [...(bySource.get(String(json.utm_source ?? '(none)')) ?? []), json]);
	expect(bySource.get('podcast')?.map((session) => [session.email, session.request_id !== null])).toEqual([['kim@example.com', true]]);
	for (const source of ['google', 'facebook', 'newsletter']) expect(bySource.get(source)?.length).toBeGreaterThan(0);
	expect(bySource.get('(none)')?.length ?? 0).toBeLessThan(items.length / 2);
});

test("the demo banner's command (a customer abandons a booking now) runs as written", async () => {
	const answer = JSON.parse(await runBash(abandonCommand(sandbox.url), sandbox.url)) as { session: { data: { contact: { email: string } }; request_id: null } };
	expect(answer.session.data.contact.email).toBe('sam@example.com');
	expect(answer.session.request_id).toBeNull();
});
