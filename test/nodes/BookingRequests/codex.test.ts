/**
 * What the node panel and the canvas show without running anything: codex aliases and docs links of
 * both nodes, and the subtitles evaluated by n8n's own expression engine.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { BookingRequests } from '../../../nodes/BookingRequests/BookingRequests.node';
import { BookingRequestsTrigger } from '../../../nodes/BookingRequestsTrigger/BookingRequestsTrigger.node';
import { DOCS_URLS, REPOSITORY_URL } from '../../../nodes/shared/docs';
import { createHarness } from '../../../harness/inProcessN8n';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const codexOf = (file: string) =>
	JSON.parse(fs.readFileSync(path.join(ROOT, 'nodes', file), 'utf8')) as {
		categories: string[];
		subcategories: Record<string, string[]>;
		alias: string[];
		resources: { primaryDocumentation: Array<{ url: string }>; credentialDocumentation: Array<{ url: string }> };
	};

const CODEX = {
	action: { codex: codexOf('BookingRequests/BookingRequests.node.json'), docs: DOCS_URLS.actionNode },
	trigger: { codex: codexOf('BookingRequestsTrigger/BookingRequestsTrigger.node.json'), docs: DOCS_URLS.trigger },
};

/** The words a marketer types into the node panel; n8n searches display names and aliases. */
const MARKETER_WORDS = ['abandoned', 'appointment', 'booking form', 'lead', 'cart', 'retarget'];

describe.each(Object.entries(CODEX))('codex of the %s node', (_name, { codex, docs }) => {
	test('aliases hold the words a marketer types; categories and subcategories are set', () => {
		const aliases = codex.alias.map((alias) => alias.toLowerCase());
		for (const word of MARKETER_WORDS) expect(aliases).toContain(word);
		expect(codex.categories).toEqual(['Marketing', 'Sales']);
		expect(Object.keys(codex.subcategories)).toEqual(codex.categories);
	});

	test('docs links: one page per topic, no #anchor for n8n\'s "?utm_…" to break, and the page exists', () => {
		expect(codex.resources.primaryDocumentation).toEqual([{ url: docs }]);
		expect(codex.resources.credentialDocumentation).toEqual([{ url: DOCS_URLS.credentials }]);
		for (const url of [docs, DOCS_URLS.credentials]) {
			expect(url).not.toContain('#');
			expect(url.startsWith(`${REPOSITORY_URL}/blob/main/docs/`)).toBe(true);
			expect(fs.existsSync(path.join(ROOT, 'docs', path.basename(url)))).toBe(true);
			// what the editor builds: `${url}?utm_source=…` still names the page
			expect(new URL(`${url}?utm_source=n8n_app&utm_medium=node_settings_modal-credential_link`).pathname.endsWith('.md')).toBe(true);
		}
	});
});

test('package.json names repository, homepage and issue tracker at the same (placeholder) address', () => {
	const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
	expect(pkg.homepage).toBe(`${REPOSITORY_URL}#readme`);
	expect(pkg.repository).toEqual({ type: 'git', url: `git+${REPOSITORY_URL}.git` });
	expect(pkg.bugs).toEqual({ url: `${REPOSITORY_URL}/issues` });
});

describe('canvas subtitles, as n8n evaluates them', () => {
	const harness = createHarness({ apiKey: 'x', baseUrl: 'https://api.example.com' });

	function subtitle(type: 'action' | 'trigger', parameters: INodeParameters): unknown {
		const nodeType = type === 'action' ? new BookingRequests() : new BookingRequestsTrigger();
		const description = nodeType.description;
		const node: INode = {
			id: 'n',
			name: 'n',
			type: `n8n-nodes-booking-requests.${description.name}`,
			typeVersion: 1,
			position: [0, 0],
			parameters: NodeHelpers.getNodeParameters(description.properties, parameters, true, false, null, description) ?? {},
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: harness.nodeTypes });
		return workflow.expression.getSimpleParameterValue(node, description.subtitle as string, 'internal', {});
	}

	test.each([
		[{ resource: 'bookingRequest', operation: 'getAll' }, 'Get Many: Booking Requests'],
		[{ resource: 'bookingRequest', operation: 'get' }, 'Get: Booking Request'],
		[{ resource: 'bookingRequest', operation: 'findByCustomer' }, 'Find by Customer: Booking Requests'],
		[{ resource: 'bookingSession', operation: 'getAll' }, 'Get Many: Booking Sessions'],
		[{ resource: 'bookingForm', operation: 'getAll' }, 'Get Many: Booking Forms'],
		[{ resource: 'businessProfile', operation: 'getAll' }, 'Get Many: Business Profiles'],
	])('action node %j: "%s"', (parameters, expected) => {
		expect(subtitle('action', parameters)).toBe(expected);
	});

	test.each([
		[{ events: ['sessionAbandoned'] }, 'Abandoned after 30 min'],
		[{ events: ['sessionAbandoned', 'requestCreated'], abandonedAfterMinutes: 90 }, 'Abandoned after 90 min, New Request'],
		[{ events: ['sessionCompleted', 'requestCreated'] }, 'Completed, New Request'],
	])('trigger %j: "%s"', (parameters, expected) => {
		expect(subtitle('trigger', parameters)).toBe(expected);
	});
});

describe('operation files own their parameters (each *.operation.ts: description + execute)', () => {
	const resources = {
		bookingRequest: require('../../../nodes/BookingRequests/actions/bookingRequest'),
		bookingSession: require('../../../nodes/BookingRequests/actions/bookingSession'),
		bookingForm: require('../../../nodes/BookingRequests/actions/bookingForm'),
		businessProfile: require('../../../nodes/BookingRequests/actions/businessProfile'),
	} as Record<string, Record<string, { description?: Array<{ displayOptions?: { show?: Record<string, unknown> } }>; execute?: unknown }>>;

	test.each(Object.keys(resources))('%s: every operation is scoped to its resource and operation; index.ts adds only the Operation selector', (resource) => {
		const module = resources[resource];
		const operations = Object.entries(module).filter(([key]) => key !== 'description');
		expect(operations.length).toBeGreaterThan(0);
		let parameters = 0;
		for (const [operation, file] of operations) {
			expect(typeof file.execute).toBe('function');
			for (const property of file.description ?? []) {
				expect(property.displayOptions?.show).toMatchObject({ resource: [resource], operation: [operation] });
				parameters++;
			}
		}
		const assembled = module.description as unknown as Array<{ name: string }>;
		expect(assembled.length).toBe(parameters + 1);
		expect(assembled[0].name).toBe('operation');
	});
});
