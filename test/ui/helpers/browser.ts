/**
 * Debian's Chromium (`apt-get install -y chromium`) driven by playwright-core: no browser download,
 * headless, a fresh profile per run, logged in to n8n before the first page loads.
 *
 * n8n's editor sends a `browser-id` header (localStorage `n8n-browserId`) with every REST call and
 * the `n8n-auth` cookie is bound to it, so the test logs in through the browser context's own
 * request API with a known browser id and puts the same id into localStorage before any page runs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, selectors, type BrowserContext, type Page } from 'playwright-core';
import type { Owner } from '../../../harness/n8n/rest';
import { chromiumCandidates } from '../../../harness/services/prerequisites';

export const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--disable-quic',
	'--no-first-run',
];

/** Env UI_CHROMIUM overrides; Debian's package installs /usr/bin/chromium (the same places as the tier's check). */
export function chromiumPath(): string {
	const candidates = chromiumCandidates();
	const found = candidates.find((p) => fs.existsSync(p));
	if (!found) {
		throw new Error(
			`no Chromium found (looked at ${candidates.join(', ')}). Install Debian's: apt-get update && apt-get install -y chromium ` +
				'(or point UI_CHROMIUM at a Chromium binary)',
		);
	}
	return found;
}

export interface EditorBrowser {
	context: BrowserContext;
	page: Page;
	/** Messages of console errors and uncaught page errors, for diagnostics. */
	errors: string[];
	close(): Promise<void>;
}

let testIdSet = false;

export async function openEditorBrowser(opts: {
	baseUrl: string;
	owner: Owner;
	viewport?: { width: number; height: number };
}): Promise<EditorBrowser> {
	if (!testIdSet) {
		// n8n's editor marks its elements with data-test-id (not Playwright's default data-testid)
		selectors.setTestIdAttribute('data-test-id');
		testIdSet = true;
	}
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'booking-requests-chromium-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: chromiumPath(),
		headless: true,
		args: CHROMIUM_ARGS,
		viewport: opts.viewport ?? { width: 1440, height: 900 },
		deviceScaleFactor: 1,
		locale: 'en-US',
		timezoneId: 'UTC',
	});
	context.setDefaultTimeout(30_000);
	const browserId = `ui-test-${Math.random().toString(36).slice(2)}`;
	await context.addInitScript({ content: `window.localStorage.setItem('n8n-browserId', ${JSON.stringify(browserId)});` });
	const login = await context.request.post(`${opts.baseUrl}/rest/login`, {
		headers: { 'browser-id': browserId },
		data: { emailOrLdapLoginId: opts.owner.email, password: opts.owner.password },
	});
	if (!login.ok()) throw new Error(`browser login failed: ${login.status()} ${(await login.text()).slice(0, 500)}`);

	const page = context.pages()[0] ?? (await context.newPage());
	const errors: string[] = [];
	page.on('console', (m) => {
		if (m.type() === 'error') errors.push(m.text().slice(0, 500));
	});
	page.on('pageerror', (e) => errors.push(`pageerror: ${e.message.slice(0, 500)}`));
	return {
		context,
		page,
		errors,
		close: async () => {
			await context.close().catch(() => undefined);
			fs.rmSync(userDataDir, { recursive: true, force: true });
		},
	};
}
