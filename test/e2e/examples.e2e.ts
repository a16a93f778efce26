/**
 * The example workflows of examples/ in a real n8n (the packed package, the sandbox API in this
 * process), exactly as `npm run demo -- --headless` loads them:
 *  - sync-new-requests-to-crm.json: the first run syncs every request, the next run only the new
 *    ones (the cursor in workflow static data survives between `n8n execute` runs), a run with
 *    nothing new stops before the CRM step;
 *  - session-funnel.json: completed sessions joined to their booking requests;
 *  - retarget-abandoned-sessions.json: the trigger's manual run ("Fetch Test Event") through the
 *    REST API; with "Only Sessions With an E-Mail" on, the e-mail step gets only sessions with an
 *    e-mail, addressed by first name from the trigger's flat fields.
 */
import * as path from 'node:path';
import { installTarball } from '../support/n8n/communityPackage';
import { loadExampleWorkflows, makeUserFolder, type ExampleWorkflow, type ExecutionResult } from '../support/n8n/workflows';
import { N8nCli } from '../support/n8n/cli';
import { N8nRest } from '../support/n8n/rest';
import { sortRequests, sortSessions, startSandbox, type BookingRequest, type Sandbox, type Session } from '../sandbox';
import { withN8nServer } from './helpers/server';
import { loadState } from './helpers/state';

const CRED_TYPE = 'bookingRequestsApi';
const CREDENTIAL = { id: 'brExamplesCred01', name: 'Booking Requests (examples e2e)' };

// node names in the example files
const SYNC = {
	manual: 'When clicking ‘Execute workflow’',
	schedule: 'Every hour',
	cursor: 'Since the last synced request',
	list: 'Booking Requests: new requests',
	crm: 'CRM: upsert contact (stand-in)',
	save: 'Remember the newest request',
};
const FUNNEL = { list: 'Booking Requests: completed sessions', join: 'Join session and request' };
const RETARGET = { trigger: 'Booking Requests Trigger', mail: 'E-mail: send reminder (stand-in)' };

/** The sandbox's objects as they travel over the API (JSON). */
const asJson = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function ok(run: ExecutionResult, what: string): ExecutionResult {
	if (!run.ok) throw new Error(`${what} failed: ${run.error?.message ?? '?'} ${run.error?.description ?? ''}`);
	return run;
}

/** What the CRM stand-in makes of a request. */
function crmContact(r: BookingRequest): Record<string, unknown> {
	const attribution = (r.attribution ?? {}) as Record<string, string>;
	return asJson({
		email: r.email,
		first_name: r.first_name,
		last_name: r.last_name,
		phone: r.phone,
		city: r.city,
		zip: r.zip,
		lead_source: attribution.utm_source || r.source || null,
		notes: r.intake_responses
			.filter((a) => a.answer.trim() !== '' && a.question.trim() !== '')
			.map((a) => `${a.question.trim()}: ${a.answer.trim()}`)
			.join('\n'),
		status: r.status,
		booking_request_id: r.id,
		booked_at: r.created_at,
	});
}

describe('example workflows (examples/*.json) in a real n8n', () => {
	const state = loadState();
	let sandbox: Sandbox;
	let cli: N8nCli;
	let userFolder: string;
	let examples: Map<string, ExampleWorkflow>;

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
		cli = new N8nCli(state.install, userFolder);
		await cli.importCredentials([{ ...CREDENTIAL, type: CRED_TYPE, data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } }]);
		const list = loadExampleWorkflows(path.join(state.repoDir, 'examples'), CREDENTIAL);
		examples = new Map(list.map((e) => [e.file, e]));
		await cli.importWorkflows(list.map((e) => e.workflow));
	});

	afterAll(async () => {
		await sandbox?.close();
	});

	test('there are exactly the three documented examples, each runnable without a third-party account', () => {
		expect([...examples.keys()]).toEqual(['retarget-abandoned-sessions.json', 'session-funnel.json', 'sync-new-requests-to-crm.json']);
		for (const { file, workflow } of examples.values()) {
			const types = workflow.nodes.map((n) => n.type);
			// only this package and n8n's own nodes: no CRM or e-mail account needed
			for (const t of types) expect(`${file}: ${t}`).toMatch(/: (n8n-nodes-base|n8n-nodes-booking-requests)\./);
			expect(types).toContain('n8n-nodes-base.stickyNote');
		}
		expect(example('sync-new-requests-to-crm.json').via).toBe('execute');
		expect(example('session-funnel.json').via).toBe('execute');
		expect(example('retarget-abandoned-sessions.json').via).toBe('trigger');
	});

	describe('sync-new-requests-to-crm.json', () => {
		const run = () => cli.execute(example('sync-new-requests-to-crm.json').workflow.id);

		test('first run: every request reaches the CRM step, mapped; the cursor is the newest created_at', async () => {
			const requests = sortRequests(sandbox.workspace().requests);
			const r = ok(await run(), 'sync run 1');
			// started from the Manual Trigger, not the Schedule Trigger
			expect(r.items[SYNC.manual]).toHaveLength(1);
			expect(r.items[SYNC.schedule]).toBeUndefined();
			expect(r.items[SYNC.cursor]).toEqual([{ createdAfter: '' }]);
			expect(r.items[SYNC.list]).toHaveLength(requests.length);
			expect(r.items[SYNC.crm]).toEqual(requests.map(crmContact));
			expect(r.items[SYNC.save]).toEqual([{ synced: requests.length, lastCreatedAt: requests[0].created_at }]);
		});

		test('next run: only the requests created since (the cursor survived in static data)', async () => {
			const before = sortRequests(sandbox.workspace().requests)[0];
			const added = [sandbox.addRequest(), sandbox.addRequest()];
			const r = ok(await run(), 'sync run 2');
			expect(r.items[SYNC.cursor]).toEqual([{ createdAfter: before.created_at }]);
			expect(r.items[SYNC.crm]).toEqual(sortRequests(added).map(crmContact));
			expect(r.items[SYNC.save]).toEqual([{ synced: 2, lastCreatedAt: sortRequests(added)[0].created_at }]);
		});

		test('a run with nothing new stops after the listing and keeps the cursor', async () => {
			const newest = sortRequests(sandbox.workspace().requests)[0];
			const r = ok(await run(), 'sync run 3');
			expect(r.items[SYNC.cursor]).toEqual([{ createdAfter: newest.created_at }]);
			expect(r.items[SYNC.list]).toEqual([]);
			expect(r.items[SYNC.crm]).toBeUndefined();
			expect(r.items[SYNC.save]).toBeUndefined();
		});
	});

	describe('session-funnel.json', () => {
		test('10 completed sessions, each joined to its booking request', async () => {
			const ws = sandbox.workspace();
			const expected = sortSessions(ws.sessions.filter((s) => s.request_id !== null)).slice(0, 10);
			const r = ok(await cli.execute(example('session-funnel.json').workflow.id), 'funnel');
			expect(r.items[FUNNEL.list]).toHaveLength(10);
			const rows = r.items[FUNNEL.join];
			expect(rows.map((row) => row.session_id)).toEqual(expected.map((s) => s.id));
			rows.forEach((row, i) => {
				const s = expected[i];
				const req = ws.requests.find((x) => x.id === s.request_id)!;
				expect(row).toEqual(
					asJson({
						session_id: s.id,
						session_step: s.step,
						session_source: s.source,
						session_created_at: s.created_at,
						request_id: req.id,
						request_status: req.status,
						lead_status: req.lead_status,
						request_created_at: req.created_at,
						email: req.email,
						minutes_to_book: s.created_at === null ? null : Math.round((Date.parse(req.created_at) - Date.parse(s.created_at)) / 60000),
					}),
				);
			});
		});
	});

	describe('retarget-abandoned-sessions.json (trigger manual run through the REST API)', () => {
		let rest: N8nRest;
		const run = () => rest.runFromTrigger(example('retarget-abandoned-sessions.json').workflow.id, RETARGET.trigger);

		withN8nServer(
			() => ({ userFolder, install: state.install }),
			(client) => (rest = client),
		);

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

	// declared last, so it runs after every run above (jest runs tests in declaration order)
	test('no example ever tripped the API rate limit', () => {
		const stats = sandbox.stats();
		// and every run cost what the README says: sync 3 (260 requests) + 1 + 1 (nothing new),
		// funnel 1 list + 10 included requests, retarget 1 session-list read per manual run (3 runs)
		// + 1 read of the form names (cached for the later runs in the same n8n process)
		expect(stats.accepted).toBe(3 + 1 + 1 + (1 + 10) + 3 + 1);
		expect(stats.rateLimited).toBe(0);
	});
});
