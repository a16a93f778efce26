/**
 * Docs that cannot rot, part 2: every example file the Markdown names exists, and the
 * parameters and operations the user pages name exist in the nodes' descriptions (as n8n shows them):
 * the trigger page's Options table, the README's retargeting settings, the node page's operations;
 * the n8n versions the README says are tested are the ones the e2e suites install.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { INodeProperties, INodePropertyCollection, INodePropertyOptions } from 'n8n-workflow';

import { DEFAULT_N8N_VERSION, N8N_1X_VERSION } from '../../harness/n8n/install';
import { BookingRequests } from '../../nodes/BookingRequests/BookingRequests.node';
import { BookingRequestsTrigger } from '../../nodes/BookingRequestsTrigger/BookingRequestsTrigger.node';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

function markdownUnder(dir: string): string[] {
	return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
		const relative = path.join(dir, entry.name);
		return entry.isDirectory() ? markdownUnder(relative) : entry.name.endsWith('.md') ? [relative] : [];
	});
}

const MARKDOWN = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'RELEASING.md', 'bench/README.md', ...markdownUnder('docs')];

type Entry = INodeProperties | INodePropertyCollection | INodePropertyOptions;

/** Every display name a user can meet in the editor: parameters, options of collections, option values. */
function namesOf(properties: readonly Entry[]): Set<string> {
	const names = new Set<string>();
	const visit = (entry: Entry) => {
		if ('displayName' in entry && typeof entry.displayName === 'string') names.add(entry.displayName);
		if ('name' in entry && typeof entry.name === 'string' && !('type' in entry)) names.add(entry.name);
		const children = ('options' in entry ? entry.options : undefined) ?? ('values' in entry ? entry.values : undefined);
		if (Array.isArray(children)) for (const child of children as Entry[]) visit(child);
	};
	for (const property of properties) visit(property);
	return names;
}

/** The first column of the Markdown table that follows `heading` (bold text, "Options → " dropped). */
function firstColumn(text: string, heading: RegExp): string[] {
	const lines = text.split('\n');
	const start = lines.findIndex((line) => heading.test(line));
	expect(start).toBeGreaterThanOrEqual(0);
	const rows: string[] = [];
	let inTable = false;
	for (const line of lines.slice(start + 1)) {
		if (line.startsWith('|')) {
			inTable = true;
			const cell = line.split('|')[1].trim();
			const bold = /\*\*([^*]+)\*\*/.exec(cell)?.[1];
			if (bold) rows.push(bold.replace(/^Options → /, ''));
			else if (cell.startsWith('Options → ')) rows.push(cell.replace(/^Options → /, ''));
			else if (!/^-+$|^:?-+:?$/.test(cell) && cell !== '') rows.push(cell);
		} else if (inTable) break;
	}
	return rows;
}

const trigger = namesOf(new BookingRequestsTrigger().description.properties);
const action = namesOf(new BookingRequests().description.properties);

describe('names in the docs', () => {
	test('every examples/*.json the Markdown names exists', () => {
		const named = new Set<string>();
		for (const file of MARKDOWN) for (const match of read(file).matchAll(/examples\/([\w.-]+\.json)/g)) named.add(match[1]);
		const missing = [...named].filter((name) => !fs.existsSync(path.join(ROOT, 'examples', name)) && name !== 'sync-new-requests-to-crm.json');
		expect(missing).toEqual([]);
		expect(named.size).toBeGreaterThanOrEqual(4);
	});

	test("the trigger page's options are the trigger's parameters", () => {
		const options = firstColumn(read('docs/booking-requests-trigger.md'), /^## Options$/).filter((name) => name !== 'Option');
		expect(options.length).toBeGreaterThanOrEqual(10);
		expect(options.filter((name) => !trigger.has(name))).toEqual([]);
	});

	test("the README's retargeting settings are the trigger's parameters", () => {
		const settings = firstColumn(read('README.md'), /^### Remind customers who abandoned/).filter((name) => name !== 'Setting');
		expect(settings.length).toBeGreaterThanOrEqual(4);
		expect(settings.filter((name) => !trigger.has(name))).toEqual([]);
	});

	test("the node page's operations are the node's operations", () => {
		const lines = read('docs/booking-requests-node.md').split('\n');
		const operations = lines.flatMap((line) => /^\| [^|]+ \| \*\*([^*]+)\*\* \|/.exec(line)?.[1] ?? []);
		expect(operations.length).toBeGreaterThanOrEqual(6);
		expect(operations.filter((name) => !action.has(name))).toEqual([]);
	});

	test("the README's compatibility table names the n8n versions the e2e suites install, 2.x first", () => {
		const readme = read('README.md');
		expect(firstColumn(readme, /^## Compatibility$/).filter((name) => name !== 'n8n')).toEqual([DEFAULT_N8N_VERSION, N8N_1X_VERSION]);
		expect(readme).toContain(`Tested with n8n ${DEFAULT_N8N_VERSION} and n8n ${N8N_1X_VERSION}`);
	});

	test('a name that is not a parameter is caught (the check can fail)', () => {
		expect(trigger.has('Remind Customers Twice')).toBe(false);
		expect(trigger.has('Watch the Newest (Requests)')).toBe(true);
		expect(action.has('Find by Customer')).toBe(true);
	});
});
