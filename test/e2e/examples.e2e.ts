/**
 * The example workflows of examples/ in a real n8n (the packed package, the sandbox API in this
 * process), exactly as `npm run demo -- --headless` loads them:
 *  - funnel-report.json: imported and known to n8n (its run and its table: funnel-report.e2e.ts);
 *  - every example whose trigger reports Session Abandoned: the newest trigger version with Skip
 *    Customers Who Booked on (as n8n resolves the node's parameters), and, polled as a published
 *    trigger (n8n-core in this process, its own sandbox), no reminder to a customer who booked after
 *    leaving the draft (version 1, where Skip is off by default, would remind her);
 *  - retarget-abandoned-sessions.json: the trigger's manual run ("Fetch Test Event") through the
 *    REST API; with "Only Sessions With an E-Mail" on, the e-mail step gets only sessions with an
 *    e-mail, addressed by first name from the trigger's flat fields;
 *  - retarget-reminder-sequence.json: three reminders with two checks "booked since?" (Find by
 *    Customer) between them, its Wait nodes shortened to seconds: a customer who books after the
 *    first reminder gets no second one, one who books after the second gets no third, and one who
 *    never books gets all three. It runs with the workspace's second key (its own rate budget and
 *    stats), so the demo key's call count below stays as it was.
 */
import * as path from 'node:path';
import { installTarball } from '../../harness/n8n/communityPackage';
import { loadExampleWorkflows, makeUserFolder, withShortWaits, type ExampleWorkflow, type ExecutionResult } from '../../harness/n8n/workflows';
import { N8nCli } from '../../harness/n8n/cli';
import type { N8nRest } from '../../harness/n8n/rest';
import { hashKey, startSandbox, type Sandbox, type Session } from '../../sandbox';
import { createHarness, type Harness, type PollState } from '../../harness/inProcessN8n';
import { BookingRequestsTrigger } from '../../nodes/BookingRequestsTrigger/BookingRequestsTrigger.node';
import { NodeHelpers, type INode, type INodeParameters } from 'n8n-workflow';
import { loadState } from './helpers/state';
import { pacing429s } from '../support/pacing429';
import { withN8nServer } from './helpers/server';

const CRED_TYPE = 'bookingRequestsApi';
const PKG = 'n8n-nodes-booking-requests';
const CREDENTIAL = { id: 'brExamplesCred01', name: 'Booking Requests (examples e2e)' };
/** The reminder sequence's credential: the demo workspace's second key. */
const SEQUENCE_CREDENTIAL = { id: 'brExamplesCred02', name: 'Booking Requests (examples e2e, second key)' };
const SEQUENCE_FILE = 'retarget-reminder-sequence.json';
/** Its Wait nodes (23 h and 48 h in the file) in this test. */
const SEQUENCE_WAIT_SECONDS = 10;

// node names in the example files
const RETARGET = { trigger: 'Booking Requests Trigger', mail: 'E-mail: send reminder (stand-in)' };
const SEQUENCE = {
	trigger: 'Booking Requests Trigger',
	first: 'E-mail: first reminder (stand-in)',
	check1: 'Booked since? (1)',
	second: 'E-mail: second reminder (stand-in)',
	check2: 'Booked since? (2)',
	third: 'E-mail: third reminder (stand-in)',
};

function ok(run: ExecutionResult, what: string): ExecutionResult {
	if (!run.ok) throw new Error(`${what} failed: ${run.error?.message ?? '?'} ${run.error?.description ?? ''}`);
	return run;
}

describe('example workflows (examples/*.json) in a real n8n', () => {
	const state = loadState();
	let sandbox: Sandbox;
	let userFolder: string;
	let examples: Map<string, ExampleWorkflow>;
	/** The REST API of the one `n8n start` for the runs below (started after the imports). */
	let rest: N8nRest;

	const example = (file: string): ExampleWorkflow => {
		const e = examples.get(file);
		if (!e) throw new Error(`examples/${file} is missing`);
		return e;
	};

	beforeAll(async () => {
		if (!('tarball' in state.pack)) throw new Error(`the package could not be built/packed:\n${state.pack.error}`);
		// the demo's data set (default sizes, seed 42)
		sandbox = await startSandbox({ port: 0, seed: 42 });
		userFolder = makeUserFolder(state.workDir, 'examples-');
		await installTarball(userFolder, state.pack.tarball);
		const cli = new N8nCli(state.install, userFolder);
		await cli.importCredentials([
			{ ...CREDENTIAL, type: CRED_TYPE, data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } },
			{ ...SEQUENCE_CREDENTIAL, type: CRED_TYPE, data: { apiKey: sandbox.keys.second, baseUrl: sandbox.url } },
		]);
		const list = loadExampleWorkflows(path.join(state.repoDir, 'examples'), CREDENTIAL);
		examples = new Map(list.map((e) => [e.file, e]));
		// the reminder sequence as imported for its test: the second key, waits of seconds
		const sequence = loadExampleWorkflows(path.join(state.repoDir, 'examples'), SEQUENCE_CREDENTIAL).find((e) => e.file === SEQUENCE_FILE);
		await cli.importWorkflows(
			list.map((e) => (e.file === SEQUENCE_FILE && sequence ? withShortWaits(sequence.workflow, SEQUENCE_WAIT_SECONDS) : e.workflow)),
		);
	});
	withN8nServer(() => ({ userFolder, install: state.install }), (started) => (rest = started));

	afterAll(async () => {
		await sandbox?.close();
	});

	test('there are exactly the four documented examples, each runnable without a third-party account', () => {
		expect([...examples.keys()]).toEqual([
			'funnel-report.json',
			'retarget-abandoned-sessions.json',
			'retarget-reminder-sequence.json',
			'sync-requests-to-crm.json',
		]);
		for (const { file, workflow } of examples.values()) {
			const types = workflow.nodes.map((n) => n.type);
			// only this package and n8n's own nodes: no CRM or e-mail account needed
			for (const t of types) expect(`${file}: ${t}`).toMatch(/: (n8n-nodes-base|n8n-nodes-booking-requests)\./);
			expect(types).toContain('n8n-nodes-base.stickyNote');
		}
		expect(example('sync-requests-to-crm.json').via).toBe('execute');
		expect(example('funnel-report.json').via).toBe('trigger');
		expect(example('retarget-abandoned-sessions.json').via).toBe('trigger');
		expect(example(SEQUENCE_FILE).via).toBe('trigger');
		// as shipped: reminders about 1 h, 24 h and 72 h after the customer left
		const sequence = example(SEQUENCE_FILE).workflow.nodes;
		expect(sequence.find((n) => n.name === SEQUENCE.trigger)?.parameters).toMatchObject({ events: ['sessionAbandoned'], abandonedAfterMinutes: 60 });
		expect(sequence.filter((n) => n.type === 'n8n-nodes-base.wait').map((n) => [n.parameters.amount, n.parameters.unit])).toEqual([
			[23, 'hours'],
			[48, 'hours'],
		]);
	});

	describe('no example reminds customers who booked (Session Abandoned with Skip Customers Who Booked on)', () => {
		/** Every trigger node of the examples that reports Session Abandoned. */
		const abandonedTriggers = () =>
			[...examples.values()].flatMap(({ file, workflow }) =>
				workflow.nodes
					.filter((node) => node.type === `${PKG}.bookingRequestsTrigger` && ((node.parameters.events as string[] | undefined) ?? ['sessionAbandoned']).includes('sessionAbandoned'))
					.map((node) => ({ file, node })),
			);

		test('every such trigger is of the newest version and Skip Customers Who Booked resolves to on, as n8n reads the node', () => {
			const description = new BookingRequestsTrigger().description;
			const newest = Math.max(...(Array.isArray(description.version) ? description.version : [description.version]));
			const found = abandonedTriggers();
			expect(found.map(({ file }) => file).sort()).toEqual(['retarget-abandoned-sessions.json', 'retarget-reminder-sequence.json']);
			for (const { file, node } of found) {
				// the parameters as n8n resolves them for this node's version (defaults of that version filled in)
				const resolved = NodeHelpers.getNodeParameters(description.properties, node.parameters as INodeParameters, true, false, node as unknown as INode, description);
				expect({ file, typeVersion: node.typeVersion, skipIfBooked: resolved?.skipIfBooked }).toEqual({ file, typeVersion: newest, skipIfBooked: true });
			}
		});

		describe('published, each such trigger (its own parameters and version) does not remind a customer who booked in the meantime', () => {
			// n8n's engine in this process (n8n-core's PollContext, mode 'trigger' as for a published
			// workflow), against a sandbox of its own: the polls are the trigger's, not n8n's schedule.
			let own: Sandbox;
			let harness: Harness;
			beforeAll(async () => {
				own = await startSandbox({ port: 0, seed: 11, sizes: { requests: 20, sessions: 20, forms: 2, profiles: 2 } });
				harness = createHarness({ apiKey: own.keys.demo, baseUrl: own.url });
			});
			afterAll(async () => {
				await own?.close();
			});

			/** Baseline poll, then Ana books after leaving a draft and Ben just leaves his; the next poll's items. */
			async function remindedAfterBooking(parameters: INodeParameters, typeVersion: number, tag: string): Promise<Array<Record<string, unknown>>> {
				// a day later than the scenario before: its drafts are long abandoned when this trigger is published
				own.clock.advance(24 * 60 * 60_000);
				const state: PollState = { staticData: {} };
				await harness.poll(parameters, state, 'trigger', { typeVersion });
				const ana = { firstname: 'Ana', lastname: 'Booked', email: `ana.${tag}@example.com`, phone: '(512) 555-0144' };
				const ben = { firstname: 'Ben', lastname: 'Left', email: `ben.${tag}@example.com`, phone: '(512) 555-0155' };
				own.startSession({ contact: ana });
				own.startSession({ contact: ben });
				own.clock.advance(60_000);
				// Ana books through another channel (her draft stays open), with her e-mail in other case
				own.addRequest({ first_name: 'Ana', last_name: 'Booked', email: ana.email.toUpperCase(), phone: '+15125550144' });
				own.clock.advance(Number(parameters.abandonedAfterMinutes ?? 30) * 60_000 + 60_000);
				const out = await harness.poll(parameters, state, 'trigger', { typeVersion });
				return (out?.[0] ?? []).map((item) => item.json as Record<string, unknown>);
			}

			test.each(['retarget-abandoned-sessions.json', 'retarget-reminder-sequence.json'])('%s', async (file) => {
				const trigger = example(file).workflow.nodes.find((node) => node.type === `${PKG}.bookingRequestsTrigger`)!;
				const items = await remindedAfterBooking(trigger.parameters as INodeParameters, trigger.typeVersion, file.split('.')[0]);
				expect(items.map((item) => item.email)).toEqual([`ben.${file.split('.')[0]}@example.com`]);
			});

			test('the check has teeth: the same trigger of version 1 (Skip off by default) reminds her', async () => {
				const trigger = example('retarget-abandoned-sessions.json').workflow.nodes.find((node) => node.type === `${PKG}.bookingRequestsTrigger`)!;
				const { skipIfBooked: _skip, ...parameters } = trigger.parameters as INodeParameters;
				const items = await remindedAfterBooking(parameters, 1, 'v1');
				expect(items.map((item) => item.email).sort()).toEqual(['ana.v1@example.com', 'ben.v1@example.com']);
			});
		});
	});

	describe('retarget-abandoned-sessions.json (trigger manual run through the REST API)', () => {
		const run = () => rest.runFromTrigger(example('retarget-abandoned-sessions.json').workflow.id, RETARGET.trigger);

		test('seeded data: up to 3 samples, abandoned sessions with an e-mail, each gets a reminder from the flat fields', async () => {
			const r = ok(await run(), 'retarget (seeded)');
			const samples = r.items[RETARGET.trigger];
			expect(samples.length).toBeGreaterThan(0);
			expect(samples.length).toBeLessThanOrEqual(3);
			const forms = new Map(sandbox.workspace().forms.map((f) => [f.id, f.name]));
			for (const sample of samples) {
				expect(sample.event).toBe('session.abandoned');
				const session = sandbox.workspace().sessions.find((s) => s.id === sample.session_id);
				expect(session?.request_id).toBeNull();
				expect(sample.email).toBe(session?.data.contact?.email);
				expect(sample.form_name).toBe(forms.get(String(sample.form_id)));
			}
			expect(r.items[RETARGET.mail].map((m) => [m.to, m.session_id])).toEqual(samples.map((s) => [s.email, s.session_id]));
			expect(String(r.items[RETARGET.mail][0].body)).toMatch(new RegExp(`^Hi ${samples[0].first_name ?? 'there'},`));
		});

		test('a session abandoned without an e-mail never reaches the e-mail step', async () => {
			const started = sandbox.startSession();
			const noEmail: Session = sandbox.saveSession(started.id, { step: 'address', data: { zip: '78701', contact: { firstname: 'Nomail', lastname: 'Customer' } } });
			sandbox.clock.advance(31 * 60_000); // idle for longer than "Abandoned After (30 minutes)"
			const r = ok(await run(), 'retarget (no e-mail)');
			expect(r.items[RETARGET.trigger].map((i) => i.session_id)).not.toContain(noEmail.id);
			for (const item of r.items[RETARGET.trigger]) expect(item.email).toEqual(expect.stringContaining('@'));
			expect((r.items[RETARGET.mail] ?? []).map((m) => m.session_id)).not.toContain(noEmail.id);
		});

		test('a session abandoned with an e-mail gets a reminder addressed by first name, with its form and how long ago', async () => {
			const session = sandbox.startSession({ contact: { firstname: 'Zoë', lastname: 'Nguyễn', email: 'zoe.nguyen@example.com' } });
			sandbox.clock.advance(31 * 60_000);
			const r = ok(await run(), 'retarget (e-mail)');
			const form = sandbox.workspace().forms.find((f) => f.id === session.form_id)!;
			expect(r.items[RETARGET.trigger][0]).toMatchObject({ session_id: session.id, email: 'zoe.nguyen@example.com', first_name: 'Zoë', form_name: form.name, idle_minutes: 31 });
			expect(r.items[RETARGET.mail][0]).toEqual({
				to: 'zoe.nguyen@example.com',
				subject: 'Zoë, your booking is almost done',
				body: `Hi Zoë,\n\nyou started a booking with us (${form.name}) 31 minutes ago but did not finish it. Everything you entered is saved: pick a time and you are done.\n\nSee you soon!`,
				session_id: session.id,
				last_step: 'address',
			});
		});
	});

	describe('retarget-reminder-sequence.json (three reminders, "booked since?" before the second and the third)', () => {
		let runEnded = false;
		/** Resolves once the sandbox has answered `count` requests of the second key on `path` since log index `from`. */
		async function answered(from: number, path: string, count: number): Promise<void> {
			const key = hashKey(sandbox.keys.second);
			for (;;) {
				const seen = sandbox.log.slice(from).filter((e) => e.keyHash === key && e.path === path && e.status !== 0).length;
				if (seen >= count) return;
				if (runEnded) throw new Error(`the run ended before ${count} answered request(s) on ${path}`);
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
		}

		test('who booked after the first reminder gets no second, after the second no third; who never books gets all three', async () => {
			// three customers leave a booking; the draft holds the phone as typed, the requests hold it international
			const mia = sandbox.startSession({ contact: { firstname: 'Mia', lastname: 'Kent', email: 'Mia.Kent@Example.com', phone: '(512) 555-0111' } });
			const noah = sandbox.startSession({ contact: { firstname: 'Noah', lastname: 'Park', email: 'noah.park@example.com', phone: '(512) 555-0122' } });
			const lena = sandbox.startSession({ contact: { firstname: 'Lena', lastname: 'Ortiz', email: 'lena.ortiz@example.com', phone: '(737) 555-0133' } });
			sandbox.clock.advance(61 * 60_000); // idle for longer than "Abandoned After (60 minutes)"
			const from = sandbox.log.length;
			const workflowId = example(SEQUENCE_FILE).workflow.id;
			const running = rest.runFromTrigger(workflowId, SEQUENCE.trigger, 5 * 60_000).finally(() => (runEnded = true));

			// after the trigger's reads (sessions, form names) the first reminders go out; Mia books
			// during the first wait (e-mail in other case, with a space), and a near namesake of Noah too
			await answered(from, '/api/v1/abandoned-sessions', 1);
			await new Promise((resolve) => setTimeout(resolve, 1500));
			const miaBooking = sandbox.addRequest({ first_name: 'Mia', last_name: 'Kent', email: ' mia.kent@EXAMPLE.com', phone: '+15125550111' });
			const miaBookedAt = Date.now();
			sandbox.addRequest({ first_name: 'Noah', last_name: 'Parker', email: 'noah.parker@example.com', phone: '+15125550123' });

			// the trigger read the request list once (Skip Customers Who Booked) and the first check reads it
			// once per customer; then Lena books, found by her phone only
			await answered(from, '/api/v1/requests', 1 + 3);
			const lenaBooking = sandbox.addRequest({ first_name: 'Lena', last_name: 'Ortiz', email: 'lena@ortiz-family.example', phone: '+17375550133' });
			const lenaBookedAt = Date.now();

			const r = ok(await running, 'reminder sequence');
			const to = (node: string) => (r.items[node] ?? []).map((m) => m.to);
			const received = (email: string) =>
				[SEQUENCE.first, SEQUENCE.second, SEQUENCE.third].filter((node) => to(node).includes(email)).map((node) => (r.items[node] ?? []).find((m) => m.to === email)?.reminder);
			// eslint-disable-next-line no-console
			console.log(
				`[reminder sequence] reminders received: Mia ${JSON.stringify(received('Mia.Kent@Example.com'))}, ` +
					`Noah ${JSON.stringify(received('noah.park@example.com'))}, Lena ${JSON.stringify(received('lena.ortiz@example.com'))}; ` +
					`calls: ${JSON.stringify(sandbox.log.slice(from).filter((e) => e.keyHash === hashKey(sandbox.keys.second)).map((e) => `${e.path}?page=${e.query.page}&per_page=${e.query.per_page} -> ${e.status}`))}`,
			);

			expect(r.items[SEQUENCE.trigger].map((i) => i.session_id).sort()).toEqual([mia.id, noah.id, lena.id].sort());
			expect(to(SEQUENCE.first).sort()).toEqual(['Mia.Kent@Example.com', 'lena.ortiz@example.com', 'noah.park@example.com']);
			expect(r.items[SEQUENCE.check1].map((c) => [c.email, c.booked, (c.requests as Array<{ id: string }>).map((q) => q.id)])).toEqual(
				expect.arrayContaining([
					['mia.kent@example.com', true, [miaBooking.id]],
					['noah.park@example.com', false, []],
					['lena.ortiz@example.com', false, []],
				]),
			);
			expect(to(SEQUENCE.second).sort()).toEqual(['lena.ortiz@example.com', 'noah.park@example.com']);
			expect(r.items[SEQUENCE.check2].map((c) => [c.email, c.booked, (c.requests as Array<{ id: string }>).map((q) => q.id)])).toEqual(
				expect.arrayContaining([
					['noah.park@example.com', false, []],
					['lena.ortiz@example.com', true, [lenaBooking.id]],
				]),
			);
			expect(to(SEQUENCE.third)).toEqual(['noah.park@example.com']);
			expect(r.items[SEQUENCE.third][0]).toMatchObject({ subject: 'Last reminder: finish your booking, Noah', reminder: 3, session_id: noah.id });
			expect(received('Mia.Kent@Example.com')).toEqual([1]);
			expect(received('lena.ortiz@example.com')).toEqual([1, 2]);
			expect(received('noah.park@example.com')).toEqual([1, 2, 3]);

			// the bookings happened where the scenario says: Mia's after the first reminder and before
			// the first check, Lena's after the first check and before the second
			type RunData = { resultData: { runData: Record<string, Array<{ startTime: number }>> } };
			const raw = r.raw as RunData & { data?: RunData }; // the REST API's execution data, as summariseRun reads it
			const runData = (raw.data ?? raw).resultData.runData;
			const startOf = (node: string) => runData[node][0].startTime;
			expect(startOf(SEQUENCE.first)).toBeLessThan(miaBookedAt);
			expect(miaBookedAt).toBeLessThan(startOf(SEQUENCE.check1));
			expect(startOf(SEQUENCE.check1)).toBeLessThan(lenaBookedAt);
			expect(lenaBookedAt).toBeLessThan(startOf(SEQUENCE.check2));

			// the trigger's 1 read (Skip Customers Who Booked), then each check is 1 read of the request list
			// per customer (nothing older than the sessions is read)
			const reads = sandbox.log.slice(from).filter((e) => e.keyHash === hashKey(sandbox.keys.second) && e.path === '/api/v1/requests');
			expect(reads.map((e) => [e.query.page, e.query.per_page, e.status])).toEqual(Array.from({ length: 1 + 5 }, () => ['1', '100', 200]));
			expect(pacing429s(sandbox.log, hashKey(sandbox.keys.second))).toEqual([]);
		});
	});

	// declared last, so it runs after every run above (jest runs tests in declaration order)
	test('no example ever tripped the API rate limit', () => {
		const stats = sandbox.stats();
		// and every run cost what the README says: retarget 2 reads per manual run (3 runs: the request
		// list, as Skip Customers Who Booked is on, and the session list) + 1 read of the form names
		// (cached for the later runs in the same n8n process)
		expect(stats.accepted).toBe(3 * 2 + 1);
		expect(pacing429s(sandbox.log)).toEqual([]);
	});
});
