/**
 * The packed package in a real n8n's editor, driven like a user in Debian's Chromium
 * (playwright-core): the node panel finds "Booking Requests", the action node's Form picker lists the
 * sandbox's forms, "Execute step" shows the requests in the output table, and the trigger's
 * "Fetch Test Event" shows a sample event. Screenshots of each step go to UI_ARTIFACTS_DIR (default
 * <tmp>/booking-requests-ui); with UI_UPDATE_DOCS=1 a passing run also copies them to docs/.
 *
 * Run: npx jest -c jest.ui.config.js   (needs `apt-get install -y chromium`)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installTarball } from '../support/n8n/communityPackage';
import { DEFAULT_OWNER, N8nRest } from '../support/n8n/rest';
import { makeUserFolder } from '../support/n8n/workflows';
import { N8nCli } from '../support/n8n/cli';
import { startN8n, type N8nServer } from '../support/n8n/server';
import { loadState } from '../e2e/helpers/state';
import { sortDefaultFirst, sortRequests, startSandbox, type Sandbox, type Workspace } from '../sandbox';
import { openEditorBrowser, type EditorBrowser } from './helpers/browser';
import { Editor } from './helpers/editor';

const CRED = { id: 'uiSandboxCred001', name: 'Booking Requests (sandbox)', type: 'bookingRequestsApi' };
const LIMIT = 10;

/** The screenshots kept in docs/ (file name -> what it shows). */
export const SCREENSHOTS = {
	nodePanel: 'node-panel-search.png',
	formList: 'action-form-list.png',
	outputTable: 'action-output-table.png',
	triggerEvent: 'trigger-test-event.png',
} as const;

const artifactsDir = path.resolve(process.env.UI_ARTIFACTS_DIR || path.join(os.tmpdir(), 'booking-requests-ui'));

describe('the editor, as a user uses it (Chromium)', () => {
	const state = loadState();
	let sandbox: Sandbox;
	let ws: Workspace;
	let server: N8nServer;
	let browser: EditorBrowser;
	let editor: Editor;
	let failures = 0;

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
		if (process.env.UI_UPDATE_DOCS === '1' && failures === 0 && files.every((f) => fs.existsSync(f))) {
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

	step('the node panel finds "Booking Requests" by its name', async () => {
		await editor.newWorkflow();
		await editor.openNodePanel();
		await editor.searchNodes('Booking Requests');
		const item = editor.panelItem('Booking Requests');
		await item.first().waitFor({ state: 'visible', timeout: 15_000 }).catch(async () => {
			throw new Error(`"Booking Requests" is not in the node panel; it lists: ${JSON.stringify(await editor.panelItemNames())}`);
		});
		await shot(SCREENSHOTS.nodePanel);

		await item.first().click();
		await editor.pickAction('Actions', 'Get many booking requests');
		expect(await editor.ndv().isVisible()).toBe(true);
	});

	step('Resource "Booking Request", Operation "Get Many": the Form picker lists the sandbox\'s forms', async () => {
		expect(await editor.selectedCredential()).toBe(CRED.name);
		await editor.chooseOption('resource', 'Booking Request');
		await editor.chooseOption('operation', 'Get Many');
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

	step('"Execute step" shows the form\'s newest requests in the output table', async () => {
		const chosen = sortDefaultFirst(ws.forms).find((f) => f.is_default) ?? ws.forms[0];
		const expected = sortRequests(ws.requests.filter((r) => r.form_id === chosen.id)).slice(0, LIMIT);
		expect(expected.length).toBeGreaterThan(0);

		const count = await editor.executeNode();
		expect(count).toBe(expected.length);
		await editor.outputMode('table');
		expect(await editor.outputUuids()).toEqual(expect.arrayContaining([expected[0].id]));
		const text = await editor.outputText();
		expect(text).toContain(expected[0].email);
		await editor.dismissToasts();
		await shot(SCREENSHOTS.outputTable);
		await editor.closeNdv();
	});

	step('the "Booking Requests Trigger": "Fetch Test Event" shows an abandoned session', async () => {
		await editor.openNodePanel();
		await editor.searchNodes('Booking Requests');
		await editor.panelItem('Booking Requests').first().click();
		await editor.pickAction('Triggers', 'On session abandoned');
		expect(await editor.selectedCredential()).toBe(CRED.name);

		const count = await editor.executeNode();
		expect(count).toBe(1);
		await editor.outputMode('table');
		const text = await editor.outputText();
		expect(text).toContain('session.abandoned');
		const [id] = await editor.outputUuids();
		const session = ws.sessions.find((s) => s.id === id);
		expect(session).toBeDefined();
		expect(session?.request_id).toBeNull();
		await editor.dismissToasts();
		await shot(SCREENSHOTS.triggerEvent);
	});
});
