/**
 * Issue 8, hostile input: ids that come from the workflow's input items, and Base URLs a user may
 * paste. Invalid ids are clear errors that cost no request; nothing of an id ever reaches a URL path
 * unencoded; a Base URL is normalised or refused before the key is sent anywhere.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Harness } from '../../harness/inProcessN8n';
import { withSandbox } from '../support/sandboxSuite';
import type { Sandbox } from '../../sandbox';
import { UUID_RE, hashKey, sortDefaultFirst, sortRequests } from '../../sandbox';
import { pacing429s, withoutOwn429s } from '../support/pacing429';
import { normaliseBaseUrl } from '../../nodes/shared/transport/baseUrl';
import { idsOf, rl, sleep } from './helpers';

let sandbox: Sandbox;
let harness: Harness;

withSandbox({ sizes: { requests: 40, sessions: 30, forms: 3, profiles: 6 } }, (started, ready) => {
	sandbox = started;
	harness = ready;
});

const API_PATH = /^\/api\/v1\/(requests|abandoned-sessions|forms|profiles)$|^\/api\/v1\/requests\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Whatever a test did: every request that reached the server has a contract path and UUID filters only. */
afterEach(() => {
	for (const entry of sandbox.log) {
		if (entry.path.startsWith('/prefix') || entry.path.startsWith('/api/v1/api/v1')) continue; // Base URL cases
		expect(entry.path).toMatch(API_PATH);
		for (const name of ['form_id', 'business_profile_id']) {
			if (name in entry.query) expect(entry.query[name]).toMatch(UUID_RE);
		}
		expect(Object.keys(entry.query).every((name) => ['page', 'per_page', 'form_id', 'business_profile_id'].includes(name))).toBe(true);
	}
});

const HOSTILE_IDS: Array<[string, unknown]> = [
	['empty', ''],
	['whitespace', '   \t '],
	['a relative path', '../forms'],
	['an encoded relative path', '..%2Fforms'],
	['a URL', 'https://evil.example/steal?x=1'],
	['a 10,000-character string', 'a'.repeat(10_000)],
	['a UUID followed by a path', '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f/../../forms'],
	['a UUID followed by a query', '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f?page=2'],
	['a UUID with a NUL byte', '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f\u0000'],
	['a number', 12345],
	['null', null],
];

describe('Get request: the id comes from the input item', () => {
	const get: INodeParameters = { resource: 'bookingRequest', operation: 'get', requestId: '={{ $json.rid }}' };

	test.each(HOSTILE_IDS)('%s: a short, clear error and no request', async (_label, rid) => {
		const result = await harness.runAction(get, { input: [{ rid } as IDataObject] });
		expect(result.items).toEqual([]);
		expect(result.error?.message).toMatch(/^Parameter "Request ID" must be a UUID, got /);
		expect(result.error?.message.length).toBeLessThan(120);
		expect(result.error?.description).toMatch(/No request was sent/);
		expect(sandbox.log).toHaveLength(0);
	});

	test("a valid UUID of another workspace: 404 as 'not in this workspace', one request, the id as the whole path segment", async () => {
		const otherId = sandbox.workspace(sandbox.keys.other).requests[0].id;
		const result = await harness.runAction(get, { input: [{ rid: otherId }] });
		expect(result.error?.message).toBe(`Not found: booking request ${otherId} does not exist in this workspace`);
		expect(result.error?.description).toMatch(/belongs to another workspace/);
		expect(sandbox.log.map((entry) => [entry.path, entry.status])).toEqual([[`/api/v1/requests/${otherId}`, 404]]);
	});

	test('an upper-case UUID with spaces around it is normalised, not rejected', async () => {
		const request = sortRequests(sandbox.workspace().requests)[0];
		const result = await harness.runAction(get, { input: [{ rid: `  ${request.id.toUpperCase()}\n` }] });
		expect(result.error).toBeUndefined();
		expect(idsOf(result.items)).toEqual([request.id]);
		expect(sandbox.log.map((entry) => entry.path)).toEqual([`/api/v1/requests/${request.id}`]);
	});

	test('Continue On Fail: every hostile item gets its own error item, the valid ones still run, only they cost requests', async () => {
		const good = sortRequests(sandbox.workspace().requests)[1].id;
		const otherId = sandbox.workspace(sandbox.keys.other).requests[1].id;
		const input = [...HOSTILE_IDS.map(([, rid]) => ({ rid }) as IDataObject), { rid: good }, { rid: otherId }];
		const result = await harness.runAction(get, { input, continueOnFail: true });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(input.length);
		result.items.forEach((item, index) => expect(item.pairedItem).toEqual({ item: index }));
		for (const item of result.items.slice(0, HOSTILE_IDS.length)) {
			expect(String(item.json.error)).toMatch(/^Parameter "Request ID" must be a UUID, got /);
		}
		expect(result.items[HOSTILE_IDS.length].json.id).toBe(good);
		expect(result.items[HOSTILE_IDS.length + 1].json).toEqual({ error: `Not found: booking request ${otherId} does not exist in this workspace` });
		// The API's own 429s left out (a stall of this busy process can bring the second call in short of
		// the first one's second); pacing429s judges whether the pacing caused any.
		expect(withoutOwn429s(sandbox.log).map((entry) => entry.path)).toEqual([`/api/v1/requests/${good}`, `/api/v1/requests/${otherId}`]);
		expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	});
});

describe('list filters: the form / business profile id comes from the input item', () => {
	const cases: Array<[string, string, INodeParameters]> = [
		['requests by form', 'Form', { resource: 'bookingRequest', operation: 'getAll', filters: { formId: rl('={{ $json.fid }}') } }],
		[
			'requests by business profile',
			'Business Profile',
			{ resource: 'bookingRequest', operation: 'getAll', filters: { businessProfileId: rl('={{ $json.fid }}') } },
		],
		['sessions by form', 'Form', { resource: 'bookingSession', operation: 'getAll', filters: { formId: rl('={{ $json.fid }}') } }],
		['profiles by form', 'Form', { resource: 'businessProfile', operation: 'getAll', filters: { formId: rl('={{ $json.fid }}') } }],
	];
	const hostile = HOSTILE_IDS.filter(([label]) => label !== 'empty' && label !== 'null');

	test.each(cases)('%s: every hostile value is a clear error naming the filter, and no request', async (_label, parameter, parameters) => {
		for (const [, fid] of hostile) {
			const result = await harness.runAction(parameters, { input: [{ fid } as IDataObject] });
			expect(result.items).toEqual([]);
			// whitespace counts as empty: "resolved to an empty value"
			expect(result.error?.message).toMatch(new RegExp(`^Parameter "${parameter}" (must be a UUID, got |resolved to an empty value$)`));
			expect(result.error?.message.length).toBeLessThan(120);
		}
		expect(sandbox.log).toHaveLength(0);
	});

	// A filter whose expression resolves to an empty value must not silently become "no filter" (which
	// would list the whole workspace): a clear error and no request.
	test.each(cases)('%s: an expression that resolves to an empty id is an error, not "no filter"', async (_label, parameter, parameters) => {
		const result = await harness.runAction(parameters, { input: [{ fid: '' }] });
		expect(result.error?.message).toMatch(new RegExp(`^Parameter "${parameter}" `));
		expect(sandbox.log).toHaveLength(0);
	});

	test("a valid form id of another workspace filters to nothing (the API's answer), it is not an error", async () => {
		const otherForm = sandbox.workspace(sandbox.keys.other).forms[0].id;
		const result = await harness.runAction(
			{ resource: 'bookingRequest', operation: 'getAll', returnAll: true, filters: { formId: rl('={{ $json.fid }}') } },
			{ input: [{ fid: otherForm.toUpperCase() }] },
		);
		expect(result.error).toBeUndefined();
		expect(result.items).toEqual([]);
		expect(sandbox.log.map((entry) => entry.query.form_id)).toEqual([otherForm]);
	});
});

describe('Base URL', () => {
	// Each spelling of the Base URL has its own limiter; keep the sandbox's per-key budget clean between cases.
	beforeEach(async () => await sleep(1_100));

	const forms = { resource: 'bookingForm', operation: 'getAll', returnAll: true } as INodeParameters;
	const expectedForms = () => sortDefaultFirst(sandbox.workspace().forms).map((form) => form.id);

	test.each([
		['a trailing slash', '/'],
		['several trailing slashes', '///'],
		['a query and a fragment', '/?utm=1#top'],
	])('with %s: normalised, the API is reached at /api/v1/…', async (_label, suffix) => {
		harness.credentials = { apiKey: sandbox.keys.demo, baseUrl: `${sandbox.url}${suffix}` };
		const result = await harness.runAction(forms);
		expect(result.error).toBeUndefined();
		expect(idsOf(result.items)).toEqual(expectedForms());
		expect(sandbox.log.map((entry) => `${entry.path} ${JSON.stringify(entry.query)}`)).toEqual([
			'/api/v1/forms {"page":"1","per_page":"100"}',
		]);
	});

	test('with a path prefix: the prefix is kept in front of /api/v1/ (an API behind a reverse proxy path)', async () => {
		harness.credentials = { apiKey: sandbox.keys.demo, baseUrl: `${sandbox.url}/prefix/` };
		const result = await harness.runAction(forms);
		expect(sandbox.log.map((entry) => entry.path)).toEqual(['/prefix/api/v1/forms']);
		// The sandbox serves no prefix: its 404 becomes the Base URL hint, not a crash or a retry loop.
		expect(result.error?.message).toBe('The API path was not found (404)');
		expect(result.error?.description).toContain(`${sandbox.url}/prefix`);
	});

	test('with /api/v1 included by mistake: the 404 says to remove it', async () => {
		harness.credentials = { apiKey: sandbox.keys.demo, baseUrl: `${sandbox.url}/api/v1` };
		const result = await harness.runAction(forms);
		expect(sandbox.log.map((entry) => entry.path)).toEqual(['/api/v1/api/v1/forms']);
		expect(result.error?.message).toBe('The API path was not found (404)');
		expect(result.error?.description).toMatch(/must not include them/);
	});

});

describe('Base URL that is refused', () => {
	const forms = { resource: 'bookingForm', operation: 'getAll', returnAll: true } as INodeParameters;

	test.each([
		['http:// to a remote host', 'http://api.example.com', 'Refusing to send the API key over plain http:// to a remote host'],
		['http:// to a host that only starts like localhost', 'http://localhost.example.com:8080', 'Refusing to send the API key over plain http:// to a remote host'],
		['http:// to a host that only starts like 127.0.0.1', 'http://127.0.0.1.example.com', 'Refusing to send the API key over plain http:// to a remote host'],
		['http:// to a private address', 'http://10.0.0.5', 'Refusing to send the API key over plain http:// to a remote host'],
		['a user name and password', 'http://user:secret@127.0.0.1:1', 'The Base URL contains a user name or password'],
		['another scheme', 'ftp://127.0.0.1/', 'The Base URL uses the unsupported scheme "ftp:"'],
		['not a URL', 'api.example.com', 'The Base URL is not a valid URL'],
	])('%s is refused before anything is sent', async (_label, baseUrl, message) => {
		harness.credentials = { apiKey: sandbox.keys.demo, baseUrl };
		const result = await harness.runAction(forms);
		expect(result.error?.message).toBe(message);
		expect(String(result.error?.description).length).toBeGreaterThan(10);
		expect(sandbox.log).toHaveLength(0);
	});
});

describe('Base URL that only looks local', () => {
	// `*.localhost` names are resolved through the system resolver (a DNS query here), so they are not
	// treated as loopback: refused like any other http:// host.
	test('http://api.localhost is refused (its address comes from DNS, not from the name)', () => {
		expect(normaliseBaseUrl('http://api.localhost:8080')).toMatchObject({ problem: 'Refusing to send the API key over plain http:// to a remote host' });
	});

	test('http://localhost, 127.0.0.0/8 and [::1] are loopback and allowed', () => {
		for (const url of ['http://localhost:5678', 'http://127.0.0.1:1', 'http://127.10.20.30', 'http://[::1]:8080/base/']) {
			expect(normaliseBaseUrl(url)).toHaveProperty('url');
		}
	});
});

describe('Base URL with the wrong scheme', () => {
	const forms = { resource: 'bookingForm', operation: 'getAll', returnAll: true } as INodeParameters;

	test('https:// to a server that only speaks http: a clear TLS error at once, not a raw OpenSSL message or a retry loop', async () => {
		// A plain http server that counts the connections made to it (the sandbox does not log a TLS hello).
		const server = http.createServer((_req, res) => res.end('{}'));
		let connections = 0;
		server.on('connection', () => connections++);
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = server.address() as AddressInfo;
			harness.credentials = { apiKey: sandbox.keys.demo, baseUrl: `https://127.0.0.1:${port}` };
			const result = await harness.runAction(forms);
			expect(result.error?.message).toBe('Could not set up a secure (https) connection to the Booking Requests API');
			expect(result.error?.description).toMatch(/^TLS error EPROTO\. Check the Base URL in the 'Booking Requests \(test\)' credential/);
			// at once: one connection, no retry
			expect(connections).toBe(1);
		} finally {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});
});
