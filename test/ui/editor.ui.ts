/**
 * The packed package in a real n8n's editor, driven like a user in Debian's Chromium
 * (playwright-core): the node panel finds the nodes by the words a marketer types ("abandoned",
 * "appointment" ...), the trigger's "Fetch Test Event" shows flat items (email, first_name,
 * form_name ...), its "Docs" link survives n8n's tracking query, the canvas shows human subtitles, the
 * action node's Form picker lists the sandbox's forms and "Execute step" shows the requests, and the
 * credential dialog explains a key of the wrong shape and an unknown host. Screenshots of each step go
 * to UI_ARTIFACTS_DIR (default <tmp>/booking-requests-ui); with UI_UPDATE_DOCS=1 a passing run also
 * copies them to docs/.
 *
 * Run: npm run test:ui   (needs `apt-get install -y chromium`)
 */
import { TEST_MESSAGES } from '../../credentials/BookingRequestsApi.credentials';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { envOverride } from '../../harness/env';
import { installTarball } from '../../harness/n8n/communityPackage';
import { DEFAULT_OWNER, N8nRest } from '../../harness/n8n/rest';
import { loadExampleWorkflows, makeUserFolder, withShortWaits, type ExampleWorkflow } from '../../harness/n8n/workflows';
import { N8nCli } from '../../harness/n8n/cli';
import { startN8n, type N8nServer } from '../../harness/n8n/server';
import { loadState } from '../e2e/helpers/state';
import { hashKey, sortDefaultFirst, sortRequests, startSandbox, type Sandbox, type Workspace } from '../../sandbox';
import { openEditorBrowser, type EditorBrowser } from './helpers/browser';
import { Editor } from './helpers/editor';
import { DOCS_URLS } from '../../nodes/shared/docs';

const CRED = { id: 'uiSandboxCred001', name: 'Booking Requests (sandbox)', type: 'bookingRequestsApi' };
const LIMIT = 10;

/** The screenshots kept in docs/ (file name -> what it shows). */
export const SCREENSHOTS = {
	nodePanel: 'node-panel-search.png',
	triggerEvent: 'trigger-test-event.png',
	formList: 'action-form-list.png',
	outputTable: 'action-output-table.png',
	credentialDialog: 'credential-dialog.png',
} as const;

/** A Base URL whose host name never resolves (the .invalid TLD is reserved for that). */
const BAD_HOST = 'no-such-host.invalid';

/**
 * What the credential dialog shows after Save (n8n runs the credential's Test): the one place to
 * update when the Test's texts change. '' = the test passed (the dialog closes).
 */
export const CREDENTIAL_TEST_MESSAGES = {
	/** apiKey 'brk_12345' (a key of the wrong shape, not sent), Base URL = the sandbox: the declarative test's 401 rule */
	wrongKeyShape: TEST_MESSAGES.unauthorized,
	/** the sandbox's demo key, Base URL https://no-such-host.invalid: n8n gives the network error's code */
	unreachableHost: /^(ENOTFOUND|EAI_AGAIN)$/,
	/** the sandbox's demo key, Base URL = the sandbox */
	working: '',
} as const;

/** The notice under the API Key field while the typed key does not have the contract's shape. */
const KEY_SHAPE_NOTICE = 'This does not look like a Booking Requests API key';

/** Words a marketer types into the node panel; each must list the package's node. */
const SEARCH_WORDS = ['abandoned', 'appointment', 'booking form', 'lead', 'cart', 'retarget'];
/** Fields of the trigger's simplified session item a reminder e-mail maps. */
const FLAT_FIELDS = ['session_id', 'form_name', 'email', 'first_name', 'last_name', 'phone', 'idle_minutes', 'utm_source', 'scheduled_date'];

const artifactsDir = path.resolve(envOverride('UI_ARTIFACTS_DIR') ?? path.join(os.tmpdir(), 'booking-requests-ui'));

describe('the editor, as a user uses it (Chromium)', () => {
	const state = loadState();
	let sandbox: Sandbox;
	let ws: Workspace;
	let server: N8nServer;
	let browser: EditorBrowser;
	let editor: Editor;
	let failures = 0;
	let examples: ExampleWorkflow[] = [];

	const shot = async (file: string) => {
		await editor.page.screenshot({ path: path.join(artifactsDir, file) });
	};

	beforeAll(async () => {
		if (!('tarball' in state.pack)) throw new Error(`the package could not be built/packed:\n${state.pack.error}`);
		fs.rmSync(artifactsDir, { recursive: true, force: true });
		fs.mkdirSync(artifactsDir, { recursive: true });

		sandbox = await startSandbox({ port: 0, seed: 42 });
		ws = sandbox.workspace();
		const userFolder = makeUserFolder(state.workDir, 'n8n-ui-');
		await installTarball(userFolder, state.pack.tarball);
		// the credential exists before the editor opens, so the nodes select it by themselves
		await new N8nCli(state.install, userFolder).importCredentials([
			{ ...CRED, data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } },
		]);
		// the demo's examples, as `npm run demo` imports them (waits shortened)
		examples = loadExampleWorkflows(path.join(state.repoDir, 'examples'), CRED);
		await new N8nCli(state.install, userFolder).importWorkflows(examples.map((example) => withShortWaits(example.workflow, 2)));
		server = await startN8n({ userFolder, install: state.install });
		await new N8nRest(server.url, state.install).setupOwner(DEFAULT_OWNER);
		browser = await openEditorBrowser({ baseUrl: server.url, owner: DEFAULT_OWNER });
		editor = new Editor(browser.page, server.url);
	});

	afterAll(async () => {
		await browser?.close();
		await server?.stop();
		await sandbox?.close();
		const files = Object.values(SCREENSHOTS).map((f) => path.join(artifactsDir, f));
		if (envOverride('UI_UPDATE_DOCS') === '1' && failures === 0 && files.every((f) => fs.existsSync(f))) {
			const docs = path.join(state.repoDir, 'docs');
			fs.mkdirSync(docs, { recursive: true });
			for (const f of files) fs.copyFileSync(f, path.join(docs, path.basename(f)));
			process.stderr.write(`[ui] screenshots copied to ${docs}\n`);
		}
		process.stderr.write(`[ui] screenshots in ${artifactsDir}\n`);
	});

	/** Runs a step; on failure keeps a screenshot (failed-<name>.png) and the page's errors. */
	function step(name: string, fn: () => Promise<void>, timeout?: number) {
		test(
			name,
			async () => {
				try {
					await fn();
				} catch (err) {
					failures++;
					const file = path.join(artifactsDir, `failed-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.png`);
					await editor?.page.screenshot({ path: file }).catch(() => undefined);
					const pageErrors = browser?.errors.slice(-10).join('\n  ') ?? '';
					const n8nTail = server?.output().split('\n').slice(-15).join('\n  ') ?? '';
					const original = err instanceof Error ? err : new Error(String(err));
					const wrapped = new Error(
						`${original.message}\n  screenshot: ${file}` +
							(pageErrors ? `\n  browser errors:\n  ${pageErrors}` : '') +
							(n8nTail ? `\n  n8n output (tail):\n  ${n8nTail}` : ''),
					);
					wrapped.stack = `${wrapped.message}\n${(original.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).join('\n')}`;
					throw wrapped;
				}
			},
			timeout,
		);
	}

	step('the node panel finds the package\'s node by "abandoned" (and the other words a marketer types)', async () => {
		await editor.newWorkflow();
		await editor.openNodePanel();
		for (const word of SEARCH_WORDS) {
			await editor.searchNodes(word);
			const item = editor.panelItem('Booking Requests');
			await item.first().waitFor({ state: 'visible', timeout: 15_000 }).catch(async () => {
				throw new Error(`searching "${word}" does not list "Booking Requests"; the panel lists: ${JSON.stringify(await editor.panelItemNames())}`);
			});
		}
		await editor.searchNodes('abandoned');
		await editor.panelItem('Booking Requests').first().waitFor({ state: 'visible' });
		// On an empty workflow the panel lists triggers: this is the Booking Requests Trigger.
		expect(await editor.byTestId('node-creator').innerText()).toContain('Starts a workflow when a customer leaves a booking unfinished');
		await shot(SCREENSHOTS.nodePanel);
	});

	step('the trigger\'s "Fetch Test Event" shows flat items: e-mail, names, form name, idle minutes', async () => {
		await editor.panelItem('Booking Requests').first().click();
		await editor.pickAction('Triggers', 'On session abandoned');
		expect(await editor.selectedCredential()).toBe(CRED.name);

		const count = await editor.executeNode();
		expect(count).toBe(3);
		await editor.outputMode('table');
		const ids = await editor.outputUuids();
		for (const id of ids.slice(0, 3)) expect(ws.sessions.find((s) => s.id === id)?.request_id).toBeNull();
		await editor.outputMode('schema');
		const schema = await editor.outputText();
		for (const field of FLAT_FIELDS) expect(schema).toContain(field);
		const first = ws.sessions.find((s) => s.id === ids[0]);
		expect(schema).toContain(String(first?.data.contact?.email));
		expect(schema).toContain(String(ws.forms.find((f) => f.id === first?.form_id)?.name));
		await editor.dismissToasts();
		await shot(SCREENSHOTS.triggerEvent);
	});

	step('its "Docs" link survives n8n\'s tracking query: one page, no #anchor', async () => {
		const href = await editor.ndvDocsHref();
		const url = new URL(href);
		expect(url.searchParams.get('utm_source')).toBe('n8n_app');
		expect(url.hash).toBe('');
		expect(`${url.origin}${url.pathname}`).toBe(DOCS_URLS.trigger);
		expect(fs.existsSync(path.join(state.repoDir, 'docs', path.basename(url.pathname)))).toBe(true);
		await editor.closeNdv();
		await editor.canvasText('Abandoned after 30 min').waitFor({ state: 'visible' });
	});

	step('Booking Requests → Get Many: the Form picker lists the sandbox\'s forms', async () => {
		// a workflow of its own: after the trigger it would run once per sample
		await editor.newWorkflow();
		await editor.openNodePanel();
		await editor.searchNodes('Booking Requests');
		await editor.panelItem('Booking Requests').first().click();
		await editor.pickAction('Actions', 'Get many booking requests');
		expect(await editor.selectedCredential()).toBe(CRED.name);
		expect(await editor.optionValue('resource')).toBe('Booking Request');
		expect(await editor.optionValue('operation')).toBe('Get Many');
		const limit = editor.parameter('limit').locator('input').first();
		await limit.fill(String(LIMIT));
		await limit.press('Tab');

		await editor.addCollectionOption('Form');
		const forms = sortDefaultFirst(ws.forms);
		const labels = await editor.openList('formId', forms.length);
		expect(labels).toEqual(forms.map((f) => (f.is_default ? `${f.name} (default)` : f.name)));
		await shot(SCREENSHOTS.formList);

		const chosen = forms.find((f) => f.is_default) ?? forms[0];
		await editor.pickListItem(chosen.name);
	});

	step('"Execute step" shows the form\'s newest requests, simplified with their address and attribution', async () => {
		const chosen = sortDefaultFirst(ws.forms).find((f) => f.is_default) ?? ws.forms[0];
		const expected = sortRequests(ws.requests.filter((r) => r.form_id === chosen.id)).slice(0, LIMIT);
		expect(expected.length).toBeGreaterThan(0);

		const count = await editor.executeNode();
		expect(count).toBe(expected.length);
		await editor.outputMode('table');
		expect(await editor.outputUuids()).toEqual(expect.arrayContaining([expected[0].id]));
		expect(await editor.outputText()).toContain(expected[0].email);
		const columns = await editor.outputColumns();
		expect(columns).toEqual(expect.arrayContaining(['email', 'address', 'city', 'zip', 'country', 'selected_services', 'intake_answers', 'completed_at', 'utm_source', 'page_url']));
		expect(columns).not.toContain('intake_responses');
		expect(columns).not.toContain('attribution');
		await editor.dismissToasts();
		await shot(SCREENSHOTS.outputTable);
		await editor.closeNdv();
		await editor.canvasText('Get Many: Booking Requests').waitFor({ state: 'visible' });
	});

	step('the credential dialog says where key and Base URL come from, asks nothing about Redis, and explains a wrong key and an unknown host', async () => {
		await editor.canvasNode('n8n-nodes-booking-requests.bookingRequests').dblclick();
		await editor.ndv().waitFor({ state: 'visible' });
		await editor.createCredentialFromNdv();
		const modal = editor.credentialModal();
		expect(await modal.innerText()).toContain('Create an API key in your Booking Requests dashboard under Integrations → API');
		// the n8n Cloud edition (this package) asks nothing about Redis or worker processes: those fields
		// are the queue edition's only
		expect(await editor.parameter('shareRateLimit').count()).toBe(0);
		expect(await editor.parameter('redisUrl').count()).toBe(0);
		expect(await modal.innerText()).not.toMatch(/Redis|worker/i);

		const fillCredential = async (fields: { apiKey?: string; baseUrl?: string }) => {
			for (const [name, value] of Object.entries(fields)) await editor.parameter(name).locator('input').first().fill(value);
			return fields as Record<string, string>;
		};
		// a character no key holds: the notice's conditions (no regular expression, see credentials/fieldChecks.ts) see it
		const typed = await fillCredential({ apiKey: 'brk-12345', baseUrl: sandbox.url });
		// the field says it while the key is typed, before any test
		await modal.getByText(KEY_SHAPE_NOTICE).waitFor({ state: 'visible' });
		const wrongShape = await editor.saveCredentialAndReadTest(typed);
		expect(wrongShape).toBe(CREDENTIAL_TEST_MESSAGES.wrongKeyShape);
		// the Test button did not send that key (its call is GET /api/v1/forms?per_page=1, with an empty
		// Authorization header; the Form picker of the open node may still list forms with the new credential: that is the node's call)
		expect(sandbox.log.filter((entry) => entry.keyHash === hashKey('brk-12345') && entry.query.per_page === '1')).toEqual([]);
		await editor.dismissToasts();
		await shot(SCREENSHOTS.credentialDialog);

		const badHost = await editor.saveCredentialAndReadTest(await fillCredential({ apiKey: sandbox.keys.demo, baseUrl: `https://${BAD_HOST}` }));
		expect(badHost).toMatch(CREDENTIAL_TEST_MESSAGES.unreachableHost);
		// a key of the right shape: no shape notice
		expect(await modal.getByText(KEY_SHAPE_NOTICE).count()).toBe(0);

		const working = await editor.saveCredentialAndReadTest(await fillCredential({ baseUrl: sandbox.url }));
		expect(working).toBe(CREDENTIAL_TEST_MESSAGES.working);
	});

	step('each example of the demo opens in the editor with every node known (a screenshot each)', async () => {
		expect(examples.length).toBeGreaterThanOrEqual(4);
		await editor.page.keyboard.press('Escape');
		for (const example of examples) {
			await editor.page.goto(`${server.url}/workflow/${example.workflow.id}`, { waitUntil: 'domcontentloaded' });
			const nodes = example.workflow.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote');
			const canvasNodes = editor.page.locator('[data-test-id="canvas-node"]');
			await canvasNodes.nth(nodes.length - 1).waitFor({ state: 'visible', timeout: 60_000 });
			const text = await editor.page.locator('body').innerText();
			for (const node of nodes) expect([example.file, text.includes(node.name)]).toEqual([example.file, true]);
			// a node of a package n8n does not know shows "Install this node to use it"
			expect([example.file, /install this node/i.test(text)]).toEqual([example.file, false]);
			await shot(`example-${path.basename(example.file, '.json')}.png`);
		}
	});
});
