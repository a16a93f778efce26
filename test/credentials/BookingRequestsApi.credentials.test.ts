import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

import { CredentialTestContext } from 'n8n-core';
import type { ICredentialTestFunctions, IHttpRequestOptions, INode, INodeCredentialTestResult } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { BookingRequestsApi } from '../../credentials/BookingRequestsApi.credentials';
import { BookingRequests } from '../../nodes/BookingRequests/BookingRequests.node';
import { BookingRequestsTrigger } from '../../nodes/BookingRequestsTrigger/BookingRequestsTrigger.node';
import { DOCS_URLS } from '../../nodes/shared/docs';
import { bookingRequestsApiTest, KEY_SHAPE_MESSAGE } from '../../nodes/shared/methods/credentialTest';
import { hashKey } from '../sandbox';
import type { Sandbox } from '../sandbox';
import { createHarness } from '../support/inProcessN8n';
import { withSandbox } from '../support/sandboxSuite';

const KEY = 'brk_0123456789abcdef0123456789abcdef';

/** Resolves the credential's generic authenticate block the way n8n does, for a given Base URL. */
async function authorizationFor(baseUrl: string, apiKey = KEY): Promise<unknown> {
	const harness = createHarness({ apiKey, baseUrl });
	const node: INode = { id: 'n', name: 'n', type: 'n8n-nodes-booking-requests.bookingRequests', typeVersion: 1, position: [0, 0], parameters: {} };
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: harness.nodeTypes });
	const options: IHttpRequestOptions = { url: '/api/v1/forms', headers: {} };
	const result = await harness.credentialsHelper.authenticate({ apiKey, baseUrl }, 'bookingRequestsApi', options, workflow, node);
	return result.headers?.Authorization;
}

/** The Test button as n8n runs it: the nodes' `testedBy` function in n8n-core's own CredentialTestContext. */
async function pressTest(data: Record<string, unknown>): Promise<INodeCredentialTestResult> {
	const context = new (CredentialTestContext as unknown as new (additionalData?: unknown) => ICredentialTestFunctions)(undefined);
	return await bookingRequestsApiTest.call(context, { id: 'c1', name: 'My Booking Requests', type: 'bookingRequestsApi', data: data as never });
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
	const field = (name: string) => credential.properties.find((property) => property.name === name);

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

	test('the Redis URL sits behind "Share Rate Limit Across n8n Processes", off by default', () => {
		expect(field('shareRateLimit')).toMatchObject({ type: 'boolean', default: false });
		expect(field('redisUrl')).toMatchObject({ typeOptions: { password: true }, displayOptions: { show: { shareRateLimit: [true] } } });
	});

	test('the Test button is the nodes\' credential test function (no declarative test request)', () => {
		expect(credential).not.toHaveProperty('test');
		for (const node of [new BookingRequests(), new BookingRequestsTrigger()]) {
			expect(node.description.credentials).toEqual([{ name: 'bookingRequestsApi', required: true, testedBy: 'bookingRequestsApiTest' }]);
			expect(node.methods.credentialTest.bookingRequestsApiTest).toBe(bookingRequestsApiTest);
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
});

describe('Booking Requests API credential: the Test button', () => {
	let sandbox: Sandbox;
	withSandbox({ sizes: { forms: 3, requests: 3, sessions: 3 } }, (started) => {
		sandbox = started;
	});

	/** The message never holds the key, nor any 12-character piece of it. */
	const expectNoKey = (result: INodeCredentialTestResult, key: string) => {
		for (let i = 0; i + 12 <= key.length; i++) expect(result.message).not.toContain(key.slice(i, i + 12));
	};

	test('a working key: OK, with one call for one form with the Bearer key', async () => {
		const result = await pressTest({ apiKey: ` ${sandbox.keys.demo} `, baseUrl: `${sandbox.url}/` });
		expect(result).toEqual({ status: 'OK', message: 'Connection successful: the key works' });
		expect(sandbox.log.map((entry) => [entry.path, entry.query, entry.keyHash, entry.status])).toEqual([
			['/api/v1/forms', { per_page: '1' }, hashKey(sandbox.keys.demo), 200],
		]);
	});

	test.each([
		['one character short', (key: string) => key.slice(0, -1)],
		['one character too many', (key: string) => `${key}0`],
		['not hexadecimal after the prefix', (key: string) => `${key.slice(0, 4)}${'z'.repeat(32)}`],
		['no underscore', (key: string) => key.replace('_', '-')],
		['a password pasted by mistake', () => 'correct horse battery staple'],
	])('a key of the wrong shape (%s): the shape message, and nothing is sent', async (_label, mangle) => {
		const key = mangle(sandbox.keys.demo);
		const result = await pressTest({ apiKey: key, baseUrl: sandbox.url });
		expect(result).toEqual({ status: 'Error', message: KEY_SHAPE_MESSAGE });
		expect(result.message).toBe(
			'This key does not look like a Booking Requests API key (prefix of 4 characters ending in "_", then 32 hex characters)',
		);
		expectNoKey(result, key);
		expect(sandbox.log).toHaveLength(0);
	});

	test('an unknown host: "Cannot reach <host>: check the Base URL"', async () => {
		const result = await pressTest({ apiKey: sandbox.keys.demo, baseUrl: 'https://no-such-host.invalid' });
		expect(result).toEqual({ status: 'Error', message: 'Cannot reach no-such-host.invalid: check the Base URL' });
	});

	test('a refused connection names host and port', async () => {
		const port = await closedPort();
		const result = await pressTest({ apiKey: sandbox.keys.demo, baseUrl: `http://127.0.0.1:${port}` });
		expect(result).toEqual({ status: 'Error', message: `Cannot reach 127.0.0.1:${port}: check the Base URL` });
	});

	test('a revoked key of the right shape: the 401 explanation, without the key', async () => {
		const result = await pressTest({ apiKey: sandbox.keys.revoked, baseUrl: sandbox.url });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/^The API key was rejected \(401\): it is unknown, revoked/);
		expectNoKey(result, sandbox.keys.revoked);
		expect(sandbox.log.map((entry) => entry.status)).toEqual([401]);
	});

	test('/api/v1 typed into the Base URL: the 404 says to remove it', async () => {
		// Another spelling of the Base URL has its own limiter: keep the sandbox's per-key budget clean.
		await new Promise((resolve) => setTimeout(resolve, 1_100));
		const result = await pressTest({ apiKey: sandbox.keys.demo, baseUrl: `${sandbox.url}/api/v1` });
		expect(result).toEqual({ status: 'Error', message: `Nothing answers at ${sandbox.url}/api/v1/api/v1/forms (404): enter the Base URL without /api/v1` });
	});

	test('the key is busy elsewhere (429) or the API fails (500): said so', async () => {
		sandbox.setFaults({ always: 429 });
		expect((await pressTest({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url })).message).toMatch(/^Rate limited \(1 request per second per key\)/);
		// one retry after Retry-After (1 s), then the explanation
		expect(sandbox.log.map((entry) => entry.status)).toEqual([429, 429]);
		expect(sandbox.log[1].at - sandbox.log[0].at).toBeGreaterThanOrEqual(1000);
		sandbox.setFaults({ always: 500 });
		expect((await pressTest({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url })).message).toBe(
			`The Booking Requests API at ${new URL(sandbox.url).host} had an error (500): try again in a minute`,
		);
	});

	test('a website (HTML) or a redirect at the Base URL: check the Base URL; the redirect is not followed', async () => {
		const site = await localServer((res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Welcome</title>'));
		const redirect = await localServer((res) => res.writeHead(301, { Location: `${site.url}/login?next=1` }).end());
		try {
			const html = await pressTest({ apiKey: sandbox.keys.demo, baseUrl: site.url });
			expect(html.message).toBe(`${new URL(site.url).host} answered with a web page, not the Booking Requests API: check the Base URL (the API's address, without /api/v1)`);
			const hitsBefore = site.hits;
			const moved = await pressTest({ apiKey: sandbox.keys.demo, baseUrl: redirect.url });
			expect(moved.message).toMatch(new RegExp(`redirected the request to ${site.url}/login: enter the final address as the Base URL`));
			expect(site.hits).toBe(hitsBefore);
		} finally {
			await site.close();
			await redirect.close();
		}
	});

	test('Base URL problems are refused before anything is sent', async () => {
		expect(await pressTest({ apiKey: sandbox.keys.demo, baseUrl: '' })).toMatchObject({ status: 'Error', message: expect.stringMatching(/^The credential has no Base URL/) });
		expect(await pressTest({ apiKey: sandbox.keys.demo, baseUrl: 'http://api.example.com' })).toMatchObject({
			message: expect.stringMatching(/^Refusing to send the API key over plain http:\/\/ to a remote host/),
		});
		expect(await pressTest({ apiKey: '', baseUrl: sandbox.url })).toMatchObject({ message: expect.stringMatching(/^Enter the API key/) });
		expect(sandbox.log).toHaveLength(0);
	});

	test('with "Share Rate Limit" on, a Redis URL that is missing or not a redis:// URL is named, its password is not echoed', async () => {
		const base = { apiKey: sandbox.keys.demo, baseUrl: sandbox.url, shareRateLimit: true };
		expect((await pressTest({ ...base, redisUrl: '' })).message).toBe('Enter the Redis URL, or turn off "Share Rate Limit Across n8n Processes"');
		const bad = await pressTest({ ...base, redisUrl: 'http://:s3cretPass@redis:6379' });
		expect(bad.message).toMatch(/^The Shared Rate Limit Redis URL uses the unsupported scheme "http:"/);
		expect(bad.message).not.toContain('s3cretPass');
		// the toggle off: a leftover Redis URL is ignored
		expect((await pressTest({ ...base, shareRateLimit: false, redisUrl: 'http://x' })).status).toBe('OK');
	});
});
