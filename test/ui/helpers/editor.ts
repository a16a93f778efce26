/**
 * What a user does in n8n's workflow editor, as small steps on a Playwright page. Elements are found
 * by n8n's own `data-test-id`s (the ones n8n's Playwright suite uses) and by visible texts.
 */
import type { Locator, Page } from 'playwright-core';

/** n8n 2.x's ParameterInput commits a typed text value this long after the last keystroke. */
export const CREDENTIAL_INPUT_DEBOUNCE_MS = 200;

export const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

export class Editor {
	constructor(
		readonly page: Page,
		readonly baseUrl: string,
	) {}

	byTestId(id: string): Locator {
		return this.page.getByTestId(id);
	}

	/** A new, empty workflow with the canvas ready (its "Add first step" button shown). */
	async newWorkflow(): Promise<void> {
		await this.page.goto(`${this.baseUrl}/workflow/new`, { waitUntil: 'domcontentloaded' });
		await this.byTestId('canvas-add-button').waitFor({ state: 'visible', timeout: 60_000 });
	}

	/** Opens the node panel: the canvas's "Add first step" on an empty workflow, else the "+" button. */
	async openNodePanel(): Promise<void> {
		const firstStep = this.byTestId('canvas-add-button');
		if (await firstStep.isVisible().catch(() => false)) await firstStep.click();
		else await this.byTestId('node-creator-plus-button').click();
		await this.byTestId('node-creator-search-bar').waitFor({ state: 'visible' });
	}

	/** Types into the node panel's search (clearing it first). */
	async searchNodes(text: string): Promise<void> {
		const search = this.byTestId('node-creator-search-bar');
		await search.fill('');
		await search.pressSequentially(text, { delay: 20 });
	}

	/** The node panel's entries whose name is exactly `name`. */
	panelItem(name: string): Locator {
		return this.byTestId('node-creator-item-name').filter({ hasText: new RegExp(`^\\s*${escapeRe(name)}\\s*$`) });
	}

	async panelItemNames(): Promise<string[]> {
		return (await this.byTestId('node-creator-item-name').allTextContents()).map((t) => t.trim());
	}

	/**
	 * Clicks an action / trigger of a node's actions view, expanding its category ("Actions (5)",
	 * "Triggers (3)") first when it is collapsed.
	 */
	async pickAction(category: 'Actions' | 'Triggers', name: string): Promise<void> {
		const item = this.panelItem(name);
		if (!(await item.isVisible().catch(() => false))) {
			await this.byTestId('node-creator-category-item').filter({ hasText: new RegExp(`^\\s*${category}\\b`) }).click();
		}
		await item.click();
		await this.ndv().waitFor({ state: 'visible' });
	}

	/** The node details view (the node's dialog). */
	ndv(): Locator {
		return this.byTestId('ndv');
	}

	async closeNdv(): Promise<void> {
		// 2.x: the dialog's close button; 1.x: "Back to canvas"
		const close = this.byTestId('ndv-close-button').or(this.page.getByText('Back to canvas', { exact: true }));
		await close.first().click();
		await this.ndv().waitFor({ state: 'hidden' });
	}

	parameter(name: string): Locator {
		return this.byTestId(`parameter-input-${name}`);
	}

	/** Text of the credential selected in the NDV. */
	async selectedCredential(): Promise<string> {
		const select = this.byTestId('node-credentials-select');
		const input = select.locator('input');
		if ((await input.count()) > 0) return (await input.first().inputValue()).trim();
		return ((await select.textContent()) ?? '').trim();
	}

	/** Current value (label) of an options parameter. */
	async optionValue(name: string): Promise<string> {
		const input = this.parameter(name).locator('input');
		if ((await input.count()) > 0) return (await input.first().inputValue()).trim();
		return ((await this.parameter(name).textContent()) ?? '').trim();
	}

	/** Opens an options parameter's dropdown and picks the option whose label starts with `label`. */
	async chooseOption(name: string, label: string): Promise<void> {
		await this.parameter(name).click();
		// an option shows its name (.option-headline) above its description: match the name exactly
		const exact = new RegExp(`^\\s*${escapeRe(label)}\\s*$`);
		const option = this.visibleDropdownItems().filter({ has: this.page.locator('.option-headline', { hasText: exact }) });
		await option.first().click();
		const input = this.parameter(name).locator('input').first();
		await waitUntil(async () => (await input.inputValue()).trim() === label, 10_000, `${name} = "${label}"`);
	}

	visibleDropdownItems(): Locator {
		return this.page.locator('.el-select-dropdown__item:visible, .el-select-dropdown li[role="option"]:visible');
	}

	/** Adds an entry of a collection parameter ("Add Filter" -> `label`). */
	async addCollectionOption(label: string): Promise<void> {
		// n8n 2.x marks the "Add Filter" / "Add Option" select; in 1.x it is a select with that placeholder
		const add = this.byTestId('collection-parameter-add').or(
			this.byTestId('node-parameters').locator('input[placeholder^="Add "]:visible'),
		);
		await add.first().click();
		const option = this.byTestId('collection-parameter-option')
			.filter({ hasText: new RegExp(`^\\s*${escapeRe(label)}\\s*$`) })
			.or(this.visibleDropdownItems().filter({ hasText: new RegExp(`^\\s*${escapeRe(label)}\\s*$`) }));
		await option.first().click();
	}

	resourceLocator(name: string): Locator {
		return this.byTestId(`resource-locator-${name}`);
	}

	/**
	 * Opens a resource locator's "From list" dropdown and waits until it shows items or an error.
	 * Returns the item labels; throws with n8n's message when the list could not be loaded.
	 */
	async openList(name: string, expectedCount: number): Promise<string[]> {
		const rl = this.resourceLocator(name);
		const mode = await rl.getByTestId('rlc-mode-selector').locator('input').first().inputValue();
		if (!/list/i.test(mode)) throw new Error(`the ${name} picker is in mode "${mode}", expected "From list"`);
		await rl.getByTestId('rlc-input').click();
		const items = this.byTestId('rlc-item');
		const error = this.byTestId('rlc-error-container').or(this.byTestId('rlc-error-message'));
		await items
			.nth(Math.max(0, expectedCount - 1))
			.or(error.first())
			.waitFor({ state: 'visible', timeout: 60_000 })
			.catch(() => undefined);
		if (await error.first().isVisible().catch(() => false)) {
			throw new Error(`the ${name} list did not load: ${((await error.first().textContent()) ?? '').trim()}`);
		}
		return (await items.allTextContents()).map((t) => t.trim());
	}

	async pickListItem(label: string): Promise<void> {
		await this.byTestId('rlc-item').filter({ hasText: label }).first().click();
	}

	/**
	 * Clicks the NDV's execute button ("Execute step" / "Fetch Test Event") and waits for the run to
	 * end. Throws with n8n's error message when the run shows an error; returns the item count shown.
	 */
	async executeNode(timeoutMs = 120_000): Promise<number> {
		await this.byTestId('node-execute-button').first().click();
		const count = this.byTestId('ndv-items-count').or(this.byTestId('run-data-item-count'));
		const error = this.byTestId('node-error-message');
		await count.or(error).first().waitFor({ state: 'visible', timeout: timeoutMs });
		if (await error.first().isVisible().catch(() => false)) {
			const description = await this.byTestId('node-error-description').first().textContent().catch(() => '');
			throw new Error(`the node's execution shows an error: ${((await error.first().textContent()) ?? '').trim()} ${(description ?? '').trim()}`);
		}
		const text = ((await count.first().textContent()) ?? '').trim();
		const m = /(\d+)\s+items?/.exec(text);
		if (!m) throw new Error(`unexpected item count text "${text}"`);
		return Number(m[1]);
	}

	/** The output panel's display mode (Table / JSON / Schema); waits until the view shows data. */
	async outputMode(mode: 'table' | 'json' | 'schema'): Promise<void> {
		await this.byTestId('output-panel').getByTestId(`radio-button-${mode}`).click();
		const container = this.byTestId('output-panel').getByTestId('ndv-data-container');
		const ready = mode === 'table' ? container.locator('table tbody tr').first() : container;
		await ready.waitFor({ state: 'visible' });
		await waitUntil(async () => ((await container.textContent()) ?? '').trim() !== '', 10_000, `the ${mode} view to show data`);
	}

	/** Column names of the output table (every column, also those scrolled out of view). */
	async outputColumns(): Promise<string[]> {
		const heads = this.byTestId('output-panel').locator('[data-test-id="ndv-data-container"] table thead th');
		return (await heads.allTextContents()).map((t) => t.trim()).filter((t) => t !== '');
	}

	/** Text of the output panel's data (table cells, JSON ...). */
	async outputText(): Promise<string> {
		return ((await this.byTestId('output-panel').getByTestId('ndv-data-container').textContent()) ?? '').trim();
	}

	/** UUIDs in the output table in document order (row by row, the id column first). */
	async outputUuids(): Promise<string[]> {
		const rows = this.byTestId('output-panel').locator('[data-test-id="ndv-data-container"] table tbody tr');
		const ids: string[] = [];
		for (const text of await rows.allTextContents()) {
			const first = text.match(UUID_RE)?.[0];
			if (first) ids.push(first.toLowerCase());
		}
		return ids;
	}

	/** The "Docs" link of the open node details view (n8n appends its tracking query to it). */
	async ndvDocsHref(): Promise<string> {
		const link = this.ndv().getByRole('link', { name: /Docs/ }).first();
		return (await link.getAttribute('href')) ?? '';
	}

	/** Subtitle shown under a node on the canvas (its `subtitle` expression, evaluated by the editor). */
	canvasText(text: string): Locator {
		return this.page.getByText(text, { exact: true });
	}

	/** A node on the canvas, by its type. */
	canvasNode(type: string): Locator {
		return this.page.locator(`[data-test-id="canvas-node"][data-node-type="${type}"]`).first();
	}

	/** The credential dialog (create / edit). */
	credentialModal(): Locator {
		return this.byTestId('editCredential-modal');
	}

	/** Opens "Create new credential" from the NDV's credential select. */
	async createCredentialFromNdv(): Promise<void> {
		await this.byTestId('node-credentials-select').click();
		await this.page.getByText(/Create new credential/i).first().click();
		await this.credentialModal().waitFor({ state: 'visible' });
	}

	/**
	 * Saves the credential dialog, waits for n8n's connection test (the editor runs it on save) and
	 * returns the message the dialog shows: '' when the test passed (a new credential's dialog then
	 * closes), else the text under "Couldn’t connect with these settings" (opened with "More details"
	 * when it is folded).
	 *
	 * `expected`: the field values just typed. n8n's ParameterInput commits a typed value to the
	 * credential only 200 ms after the last keystroke (a debounce); until then a saved credential's
	 * dialog shows "Saved" — a span that swallows clicks, not a button — and a new one's Save button is
	 * disabled. So this waits for an enabled Save button (the editor has the edit), lets the other
	 * fields' debounces run out, and then checks that the connection test n8n ran carried exactly
	 * these values (the request body of POST /rest/credentials/test), so the message returned is the
	 * answer for what was typed, never for an earlier value.
	 */
	async saveCredentialAndReadTest(expected: Record<string, string>, timeoutMs = 30_000): Promise<string> {
		const modal = this.credentialModal();
		const save = this.byTestId('credential-save-button').locator('button');
		await waitUntil(
			async () => (await save.count()) > 0 && (await save.first().isEnabled()),
			10_000,
			`the credential dialog's Save button to take the edit (${Object.keys(expected).join(', ')})`,
		);
		await this.page.waitForTimeout(CREDENTIAL_INPUT_DEBOUNCE_MS + 100);
		const [response] = await Promise.all([
			this.page.waitForResponse((r) => /\/rest\/credentials\/test/.test(r.url()) && r.request().method() === 'POST', { timeout: timeoutMs }),
			save.first().click(),
		]);
		const tested = (response.request().postDataJSON() as { credentials?: { data?: Record<string, unknown> } } | null)?.credentials?.data ?? {};
		for (const [field, value] of Object.entries(expected)) {
			if (tested[field] !== value) {
				throw new Error(`n8n tested the credential with ${field} = ${JSON.stringify(tested[field])}, not the typed ${JSON.stringify(value)}`);
			}
		}
		const result = ((await response.json()) as { data?: { status?: string; message?: string } }).data;
		if (result?.status === 'OK') {
			// a new credential that passes closes the dialog; an existing one shows the success banner
			await modal
				.waitFor({ state: 'hidden', timeout: 10_000 })
				.catch(async () => await this.byTestId('credentials-config-container-test-success').waitFor({ state: 'visible' }));
			return '';
		}
		const message = String(result?.message ?? '');
		const more = modal.getByText('More details');
		if (await more.isVisible().catch(() => false)) await more.click();
		await modal.getByText(message, { exact: true }).waitFor({ state: 'visible' });
		return message;
	}

	/** Clicks away toasts that could cover a screenshot. */
	async dismissToasts(): Promise<void> {
		const close = this.page.locator('.el-notification .el-notification__closeBtn:visible');
		for (let i = (await close.count()) - 1; i >= 0; i--) await close.nth(i).click().catch(() => undefined);
		await this.page.locator('.el-notification:visible').first().waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
	}
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 100));
	}
}

function escapeRe(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
