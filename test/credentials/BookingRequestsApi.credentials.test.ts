import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { IHttpRequestOptions, INode, INodeCredentialTestResult, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { BookingRequestsApi, TEST_MESSAGES } from '../../credentials/BookingRequestsApi.credentials';
import { EDITION_CREDENTIAL_PROPERTIES as CLOUD_FIELDS } from '../../credentials/editionFields';
import { EDITION_CREDENTIAL_PROPERTIES as QUEUE_FIELDS } from '../../queue/credentialFields';
import { BookingRequests } from '../../nodes/BookingRequests/BookingRequests.node';
import { BookingRequestsTrigger } from '../../nodes/BookingRequestsTrigger/BookingRequestsTrigger.node';
import { DOCS_URLS } from '../../nodes/shared/docs';
import { hashKey } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import { pressTest } from '../support/credentialTester';
import { createHarness, type TestCredentials } from '../../harness/inProcessN8n';
import { withSandbox } from '../support/sandboxSuite';

const KEY = 'brk_0123456789abcdef0123456789abcdef';
/** What the editor holds in a saved password field. */
const SAVED_SECRET = '__n8n_BLANK_VALUE_e5362baf-c777-4d57-a609-6eaf1f9e87f6';

/** Resolves the credential's generic authenticate block the way n8n does, for a given Base URL. */
async function authorizationFor(baseUrl: string, apiKey = KEY): Promise<unknown> {
	const harness = createHarness({ apiKey, baseUrl });
	const node: INode = { id: 'n', name: 'n', type: 'n8n-nodes-booking-requests.bookingRequests', typeVersion: 1, position: [0, 0], parameters: {} };
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: harness.nodeTypes });
	const options: IHttpRequestOptions = { url: '/api/v1/forms', headers: {} };
	const result = await harness.credentialsHelper.authenticate({ apiKey, baseUrl }, 'bookingRequestsApi', options, workflow, node);
	return result.headers?.Authorization;
}

/** A local HTTP server answering every request with `answer` (a website, a redirect ...). */
async function localServer(answer: (res: http.ServerResponse) => void): Promise<{ url: string; hits: number; close: () => Promise<void> }> {
	const state = { hits: 0 };
	const server = http.createServer((_req, res) => {
		state.hits++;
		answer(res);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		get hits() {
			return state.hits;
		},
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
	const server = http.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

describe('Booking Requests API credential: fields', () => {
	const credential = new BookingRequestsApi();
	const field = (name: string) => credential.properties.find((property) => property.name === name) as INodeProperties;
	/** Whether the editor shows `name` for these field values (n8n-workflow's own displayParameter, as the credential dialog uses it). */
	const shown = (name: string, values: INodeParameters) => NodeHelpers.displayParameter({ apiKey: '', baseUrl: '', ...values }, field(name), null, null);

	test('a password-typed API key and a required Base URL without a made-up default', () => {
		expect(field('apiKey')).toMatchObject({ typeOptions: { password: true }, required: true });
		expect(field('baseUrl')).toMatchObject({ default: '', required: true, placeholder: 'https://api.example.com' });
	});

	test('a notice says where the key and the Base URL come from', () => {
		const notice = credential.properties[0];
		expect(notice.type).toBe('notice');
		expect(notice.displayName).toMatch(/Integrations → API/);
		expect(notice.displayName).toMatch(/Base URL .* without \/api\/v1/);
	});

	// The notices' conditions use no regular expression (n8n evaluates them on every run: see
	// test/credentials/noSafeRegex.test.ts): what they cannot tell is explained by the 401 (below).
	test.each([
		['', false],
		[KEY, false],
		[`  ${KEY} `, false],
		[SAVED_SECRET, false],
		['__n8n_EMPTY_VALUE_7b1af746-3729-4c60-9b9b-e08eb29e58da', false],
		[KEY.replace('_', '-'), true],
		['correct horse battery staple', true],
		['hunter2!', true],
		[`Bearer ${KEY}`, true],
		[`"${KEY}"`, true],
		[`_${KEY.slice(4)}`, true],
		['brk_', true],
		// Left to the 401's explanation of the shape: the length and the hexadecimal digits.
		[KEY.slice(0, -1), false],
		[`${KEY}0`, false],
		[`${KEY.slice(0, 4)}${'z'.repeat(32)}`, false],
	])('API key %j: the shape notice shown = %s', (apiKey, expected) => {
		expect(shown('formatNotice', { apiKey })).toBe(expected);
	});

	test.each([
		['', false, false],
		['https://api.example.com', false, false],
		['https://api.example.com/prefix/', false, false],
		['http://localhost', false, false],
		['http://localhost:4010', false, false],
		['http://localhost/prefix', false, false],
		['http://127.0.0.1:4010', false, false],
		['http://[::1]:4010', false, false],
		['http://api.example.com', true, false],
		['http://localhost.evil.example', true, false],
		['http://[::1].evil.example', true, false],
		['api.example.com', true, false],
		['ftp://api.example.com', true, false],
		['https://api.example.com/api/v1', false, true],
		['https://api.example.com/api/v1/', false, true],
		['http://api.example.com/api/v1', true, true],
		// Left to the nodes' own check before sending (transport/baseUrl.ts refuses it).
		['http://127.0.0.1.evil.example', false, false],
	])('Base URL %j: scheme notice = %s, /api/v1 notice = %s', (baseUrl, scheme, suffix) => {
		expect(shown('baseUrlSchemeNotice', { baseUrl })).toBe(scheme);
		expect(shown('baseUrlPathNotice', { baseUrl })).toBe(suffix);
	});

	test('no field condition of either edition is a regular expression', () => {
		const conditions = JSON.stringify([...credential.properties, ...QUEUE_FIELDS].map((property) => property.displayOptions ?? {}));
		expect(conditions).toContain('_cnd');
		expect(conditions).not.toContain('"regex"');
	});

	test('the n8n Cloud edition (this package) asks nothing about Redis or worker processes', () => {
		expect(credential.properties.map((property) => property.name)).toEqual(['notice', 'apiKey', 'formatNotice', 'baseUrl', 'baseUrlSchemeNotice', 'baseUrlPathNotice']);
		expect(JSON.stringify(credential.properties)).not.toMatch(/redis|worker|queue mode/i);
	});

	test('the Base URL field says where its value comes from', () => {
		expect(field('baseUrl').description).toMatch(/^Where to find it: the base address .* API documentation/);
		expect(field('baseUrl').description).toMatch(/without \/api\/v1/);
	});

	test('the queue edition\'s Redis URL sits behind "Share Rate Limit Across n8n Processes", off by default, and a non-redis:// URL is pointed out', () => {
		const queueField = (name: string) => QUEUE_FIELDS.find((property) => property.name === name) as INodeProperties;
		const queueShown = (name: string, values: INodeParameters) =>
			NodeHelpers.displayParameter({ apiKey: '', baseUrl: '', shareRateLimit: false, redisUrl: '', ...values }, queueField(name), null, null);
		expect(QUEUE_FIELDS.map((property) => property.name)).toEqual(['shareRateLimit', 'redisUrl', 'redisUrlNotice']);
		expect(queueField('shareRateLimit')).toMatchObject({ type: 'boolean', default: false });
		expect(queueField('redisUrl')).toMatchObject({ typeOptions: { password: true }, displayOptions: { show: { shareRateLimit: [true] } } });
		expect(queueShown('redisUrl', { shareRateLimit: false })).toBe(false);
		expect(queueShown('redisUrlNotice', { shareRateLimit: true, redisUrl: 'http://:s3cret@redis:6379' })).toBe(true);
		expect(queueShown('redisUrlNotice', { shareRateLimit: true, redisUrl: 'redis://:s3cret@redis:6379/0' })).toBe(false);
		expect(queueShown('redisUrlNotice', { shareRateLimit: true, redisUrl: 'rediss://redis:6380' })).toBe(false);
		expect(queueShown('redisUrlNotice', { shareRateLimit: true, redisUrl: SAVED_SECRET })).toBe(false);
		expect(queueShown('redisUrlNotice', { shareRateLimit: true, redisUrl: 'redis.example.com:6379' })).toBe(true);
		expect(queueShown('redisUrlNotice', { shareRateLimit: false, redisUrl: 'http://x' })).toBe(false);
	});

	test('the Test button is the credential\'s declarative test: GET /api/v1/forms?per_page=1, no redirect followed, answers read by rules', () => {
		expect(credential.test?.request).toMatchObject({ url: '/api/v1/forms', qs: { per_page: 1 }, ignoreHttpStatusErrors: true, disableFollowRedirect: true });
		for (const node of [new BookingRequests(), new BookingRequestsTrigger()]) {
			expect(node.description.credentials).toEqual([{ name: 'bookingRequestsApi', required: true }]);
			expect(node.methods).not.toHaveProperty('credentialTest');
		}
	});

	test('its documentation link is one page (no #anchor for n8n\'s tracking query to break)', () => {
		expect(credential.documentationUrl).toBe(DOCS_URLS.credentials);
		expect(credential.documentationUrl).not.toContain('#');
	});
});

describe('Booking Requests API credential: the Authorization header', () => {
	test.each([
		['https://api.example.com', true],
		['https://api.example.com/prefix/', true],
		['http://localhost:4010', true],
		['http://127.0.0.1:4010', true],
		['http://127.8.9.10', true],
		['http://[::1]:4010', true],
		['http://api.example.com', false],
		['http://10.0.0.5:8080', false],
		['http://localhost.evil.example', false],
	])('Bearer header for %s: sent = %s', async (baseUrl, sent) => {
		const header = await authorizationFor(baseUrl);
		expect(header).toBe(sent ? `Bearer ${KEY}` : '');
	});

	test('the key is trimmed', async () => {
		expect(await authorizationFor('https://api.example.com', `  ${KEY}\n`)).toBe(`Bearer ${KEY}`);
	});

	test.each([
		['one character short', KEY.slice(0, -1)],
		['not hexadecimal after the prefix', `${KEY.slice(0, 4)}${'z'.repeat(32)}`],
		['a password pasted by mistake', 'correct horse battery staple'],
	])('a key of the wrong shape (%s) is never sent', async (_label, key) => {
		expect(await authorizationFor('https://api.example.com', key)).toBe('');
	});
});

describe('Booking Requests API credential: the Test button (as n8n runs a declarative test)', () => {
	let sandbox: Sandbox;
	withSandbox({ sizes: { forms: 3, requests: 3, sessions: 3 } }, (started) => {
		sandbox = started;
	});

	/** The message never holds the key, nor any 12-character piece of it. */
	const expectNoKey = (result: INodeCredentialTestResult, key: string) => {
		for (let i = 0; i + 12 <= key.length; i++) expect(result.message).not.toContain(key.slice(i, i + 12));
	};
	/** The sandbox's per-key budget: separate presses on the same key, a second apart. */
	const nextSecond = async () => await new Promise((resolve) => setTimeout(resolve, 1_100));

	test('a working key: OK, with one call for one form with the Bearer key (Base URL trimmed, trailing slash dropped)', async () => {
		const result = await pressTest({ apiKey: ` ${sandbox.keys.demo} `, baseUrl: ` ${sandbox.url}/ ` });
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(sandbox.log.map((entry) => [entry.path, entry.query, entry.keyHash, entry.status])).toEqual([
			['/api/v1/forms', { per_page: '1' }, hashKey(sandbox.keys.demo), 200],
		]);
	});

	test('a revoked key of the right shape: the 401 explanation, without the key', async () => {
		const result = await pressTest({ apiKey: sandbox.keys.revoked, baseUrl: sandbox.url });
		expect(result).toEqual({ status: 'Error', message: TEST_MESSAGES.unauthorized });
		expectNoKey(result, sandbox.keys.revoked);
		expect(sandbox.log.map((entry) => entry.status)).toEqual([401]);
	});

	test.each([
		['one character short', (key: string) => key.slice(0, -1)],
		['not hexadecimal after the prefix', (key: string) => `${key.slice(0, 4)}${'z'.repeat(32)}`],
		['a password pasted by mistake', () => 'correct horse battery staple'],
	])('a key of the wrong shape (%s): the 401 explanation names the shape, and the key is not sent', async (_label, mangle) => {
		const key = mangle(sandbox.keys.demo);
		const result = await pressTest({ apiKey: key, baseUrl: sandbox.url });
		expect(result).toEqual({ status: 'Error', message: TEST_MESSAGES.unauthorized });
		expect(result.message).toMatch(/a prefix of 4 characters ending in "_", then 32 hexadecimal characters/);
		expectNoKey(result, key);
		// one request, without any key
		expect(sandbox.log.map((entry) => [entry.status, entry.keyHash ?? null])).toEqual([[401, null]]);
	});

	test('an unknown host or a refused connection: n8n gives the network error code (README explains them)', async () => {
		expect(await pressTest({ apiKey: sandbox.keys.demo, baseUrl: 'https://no-such-host.invalid' })).toEqual({
			status: 'Error',
			message: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/),
		});
		const port = await closedPort();
		expect(await pressTest({ apiKey: sandbox.keys.demo, baseUrl: `http://127.0.0.1:${port}` })).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
	});

	test('/api/v1 typed into the Base URL: not the API, check the Base URL (and the field says so while typing)', async () => {
		await nextSecond();
		const result = await pressTest({ apiKey: sandbox.keys.demo, baseUrl: `${sandbox.url}/api/v1` });
		expect(result).toEqual({ status: 'Error', message: TEST_MESSAGES.notTheApi });
	});

	test('the key is busy elsewhere (429) or the API fails (500): said so', async () => {
		await nextSecond();
		sandbox.setFaults({ always: 429 });
		expect(await pressTest({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url })).toEqual({ status: 'Error', message: TEST_MESSAGES.rateLimited });
		sandbox.setFaults({ always: 500 });
		await nextSecond();
		expect(await pressTest({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url })).toEqual({ status: 'Error', message: TEST_MESSAGES.serverError });
	});

	test('a website (HTML) or a redirect at the Base URL: not the API, check the Base URL; the redirect is not followed', async () => {
		const site = await localServer((res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Welcome</title>'));
		const redirect = await localServer((res) => res.writeHead(301, { Location: `${site.url}/login?next=1` }).end());
		try {
			expect(await pressTest({ apiKey: sandbox.keys.demo, baseUrl: site.url })).toEqual({ status: 'Error', message: TEST_MESSAGES.notTheApi });
			const hitsBefore = site.hits;
			expect(await pressTest({ apiKey: sandbox.keys.demo, baseUrl: redirect.url })).toEqual({ status: 'Error', message: TEST_MESSAGES.notTheApi });
			expect(redirect.hits).toBe(1);
			expect(site.hits).toBe(hitsBefore);
		} finally {
			await site.close();
			await redirect.close();
		}
	});

	test('a plain http:// Base URL to another host gets no key (the Authorization header is empty)', async () => {
		const other = await localServer((res) => res.writeHead(401, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized', message: 'no key' })));
		try {
			// 127.0.0.1 is loopback, so the check is made through the expression itself: see the Authorization header tests.
			expect(await authorizationFor('http://api.example.com', sandbox.keys.demo)).toBe('');
			expect((await pressTest({ apiKey: sandbox.keys.demo, baseUrl: other.url })).message).toBe(TEST_MESSAGES.unauthorized);
		} finally {
			await other.close();
		}
	});
});

/**
 * Both editions define the credential type `bookingRequestsApi` (gulpfile.js): the queue edition's
 * build puts queue/credentialFields.ts in the place of credentials/editionFields.ts, so its fields are
 * the Cloud edition's plus the Redis ones. n8n hands a node the saved values of the fields its edition
 * defines, with their defaults (CredentialsHelper.applyDefaultsAndOverwrites: NodeHelpers.getNodeParameters),
 * so a credential saved with one edition works with the other.
 */
describe('Booking Requests API credential: one type in both editions, a saved credential carries over', () => {
	const cloud = new BookingRequestsApi();
	const queueProperties = [...cloud.properties.filter((property) => !CLOUD_FIELDS.includes(property)), ...QUEUE_FIELDS];
	/** What n8n gives a node of the edition with `properties` from the saved `data`. */
	const asN8nGivesIt = (properties: INodeProperties[], data: INodeParameters) =>
		NodeHelpers.getNodeParameters(properties, data, true, false, null, null) as Record<string, string | boolean>;

	let sandbox: Sandbox;
	withSandbox({ sizes: { forms: 3, requests: 3, sessions: 3 } }, (started) => {
		sandbox = started;
	});

	test('the same type name; the common fields are the same in both, first and in the same order', () => {
		expect(CLOUD_FIELDS).toEqual([]);
		expect(queueProperties.slice(0, cloud.properties.length)).toEqual(cloud.properties);
		expect(queueProperties.slice(cloud.properties.length).map((property) => property.name)).toEqual(['shareRateLimit', 'redisUrl', 'redisUrlNotice']);
	});

	test('saved with the queue edition (sharing through Redis on): the Cloud edition gets the key and Base URL, no Redis, and its calls work', async () => {
		const saved = { apiKey: sandbox.keys.demo, baseUrl: sandbox.url, shareRateLimit: true, redisUrl: 'redis://:s3cret@127.0.0.1:1/0' };
		const given = asN8nGivesIt(cloud.properties, saved);
		expect(given).toMatchObject({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		expect(given).not.toHaveProperty('shareRateLimit');
		expect(given).not.toHaveProperty('redisUrl');
		expect(await pressTest(given as TestCredentials)).toEqual({ status: 'OK', message: 'Connection successful!' });
		await new Promise((resolve) => setTimeout(resolve, 1_100));
		const harness = createHarness(given as TestCredentials);
		const { items, error } = await harness.runAction({ resource: 'bookingForm', operation: 'getAll', returnAll: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		// even handed the Redis values, the Cloud edition never uses them: its calls are paced in this process
		await new Promise((resolve) => setTimeout(resolve, 1_100));
		const withRedis = await createHarness(saved).runAction({ resource: 'bookingForm', operation: 'getAll', returnAll: true });
		expect(withRedis.error).toBeUndefined();
		expect(withRedis.items).toHaveLength(3);
	});

	test('saved with the Cloud edition: the queue edition reads "not shared" (the toggle\'s default) and the same key and Base URL', () => {
		const saved = { apiKey: sandbox.keys.demo, baseUrl: sandbox.url };
		const given = asN8nGivesIt(queueProperties, saved);
		expect(given).toMatchObject({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url, shareRateLimit: false });
		// the queue edition's transport shares through Redis only with the toggle on and a URL (nodes/shared/transport/request.ts)
		expect(given.shareRateLimit === true && typeof given.redisUrl === 'string' && given.redisUrl.trim() !== '').toBe(false);
	});
});
