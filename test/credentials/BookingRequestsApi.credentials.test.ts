import type { IHttpRequestOptions, INode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { BookingRequestsApi } from '../../credentials/BookingRequestsApi.credentials';
import { createHarness } from '../support/inProcessN8n';

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

describe('Booking Requests API credential', () => {
	const credential = new BookingRequestsApi();

	test('fields: a password-typed API key and a required Base URL without a made-up default', () => {
		const [apiKey, baseUrl] = credential.properties;
		expect(apiKey).toMatchObject({ name: 'apiKey', typeOptions: { password: true }, required: true });
		expect(baseUrl).toMatchObject({ name: 'baseUrl', default: '', required: true });
	});

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

	test('the Test button asks for one form at the trimmed Base URL and explains 401', () => {
		expect(credential.test.request).toMatchObject({ url: '/api/v1/forms', qs: { per_page: 1 } });
		const rule = credential.test.rules?.find((r) => r.type === 'responseCode' && r.properties.value === 401);
		expect(rule?.properties.message).toMatch(/4-character prefix ending in "_" followed by 32 hexadecimal/);
	});
});
