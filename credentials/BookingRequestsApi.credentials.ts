import type { IAuthenticateGeneric, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

import { EDITION_CREDENTIAL_PROPERTIES } from './editionFields';
import { API_PATH_SUFFIX, KEY_NOT_JUDGED, NOT_A_KEY, SAFE_BASE_URL } from './fieldChecks';


/**
 * Expression that yields the Authorization header. It is empty when the Base URL is plain http:// to a
 * host other than loopback, so the key is never sent in clear text across a network — not by this
 * package's nodes, not by the Test button, not by an HTTP Request node that borrows this credential —
 * and when the key does not have the contract's shape (a prefix of 4 characters ending in "_", then 32
 * hex characters), so a password pasted by mistake is never sent anywhere. (The nodes also refuse such
 * a Base URL with a clear error before sending anything.)
 */
const AUTHORIZATION_HEADER =
	"={{ (() => { const url = String($credentials.baseUrl || '').trim().toLowerCase(); const host = url.startsWith('http://') ? url.slice(7).split('/')[0].replace(/:\\d+$/, '') : ''; const insecure = url.startsWith('http://') && !(host === 'localhost' || host === '[::1]' || /^127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}$/.test(host)); const key = String($credentials.apiKey || '').trim(); return insecure || !/^[A-Za-z0-9]{3}_[0-9a-fA-F]{32}$/.test(key) ? '' : 'Bearer ' + key; })() }}";

/** The Base URL as the Test button calls it: trimmed, without trailing slashes. */
const TEST_BASE_URL = "={{ String($credentials.baseUrl || '').trim().replace(/\\/+$/, '') }}";

/** The Test button's answers (docs/credentials.md). */
export const TEST_MESSAGES = {
	unauthorized:
		'The API key was rejected (401): check that it is the whole key as the dashboard showed it (a prefix of 4 characters ending in "_", then 32 hexadecimal characters), that it is not revoked, and that it belongs to this Base URL. Create a key under Integrations → API.',
	rateLimited: 'Rate limited (1 request per second per key): another integration is using this key right now. Try again in a second.',
	serverError: 'The Booking Requests API had an error: try again in a minute',
	notTheApi: "The Base URL answered, but not like the Booking Requests API: check the Base URL (the API's address, without /api/v1)",
} as const;

/**
 * The Test button (n8n runs it when the credential is saved) is declarative: `GET /api/v1/forms?per_page=1`
 * with the Authorization header above, no redirect followed (the key never goes to a second address),
 * and every answer read by `rules` from the body the contract defines (`error` codes, `items`).
 * A host that cannot be reached is reported by n8n with the network error's code (ENOTFOUND, ECONNREFUSED,
 * ETIMEDOUT, a TLS code), which docs/troubleshooting.md explains.
 */
export class BookingRequestsApi implements ICredentialType {
	name = 'bookingRequestsApi';

	displayName = 'Booking Requests API';

	icon: Icon = { light: 'file:bookingRequestsApi.svg', dark: 'file:bookingRequestsApi.dark.svg' };

	// One page per topic (nodes/shared/docs.ts DOCS_URLS.credentials): no #anchor for n8n's query to break.
	documentationUrl = 'https://github.com/n8n-nodes-booking-requests/n8n-nodes-booking-requests/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName:
				'Create an API key in your Booking Requests dashboard under Integrations → API (it is shown only once). The Base URL is the address of the Booking Requests API given in your account\'s API documentation, without /api/v1.',
			name: 'notice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Created in the dashboard under Integrations → API. It is shown once: a 4-character prefix ending in "_" followed by 32 hexadecimal characters.',
		},
		{
			displayName:
				'This does not look like a Booking Requests API key: it is a prefix of 4 characters ending in "_", then 32 hexadecimal characters. A key of another shape is never sent.',
			name: 'formatNotice',
			type: 'notice',
			default: '',
			// Conditions without regular expressions (fieldChecks.ts): the 401 names the shape for the rest.
			displayOptions: { show: { apiKey: NOT_A_KEY }, hide: { apiKey: KEY_NOT_JUDGED } },
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				"Where to find it: the base address at the top of your account's Booking Requests API documentation (the address every API path starts with), without /api/v1. Must be https://, except http://localhost or 127.0.0.1 for a local sandbox (the demo and `npm run sandbox` print its address).",
		},
		{
			displayName:
				'Use an https:// address (http:// only for localhost, 127.0.0.1 or [::1], e.g. the bundled sandbox): the key is never sent over plain http:// to another host.',
			name: 'baseUrlSchemeNotice',
			type: 'notice',
			default: '',
			displayOptions: { hide: { baseUrl: ['', ...SAFE_BASE_URL] } },
		},
		{
			displayName: 'Enter the Base URL without /api/v1: the nodes add it to every call.',
			name: 'baseUrlPathNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { baseUrl: API_PATH_SUFFIX } },
		},
		// The edition's own fields (none in the n8n Cloud edition; the queue edition's build puts
		// queue/credentialFields.ts in the place of editionFields.ts: Share Rate Limit, Redis URL).
		...EDITION_CREDENTIAL_PROPERTIES,
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: AUTHORIZATION_HEADER,
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: TEST_BASE_URL,
			url: '/api/v1/forms',
			qs: { per_page: 1 },
			headers: { Accept: 'application/json' },
			// Every status is an answer to read (rules below; no second try of a 401), a redirect is not
			// followed, and an address that never answers is given up after 15 s (n8n's default: 5 minutes).
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: 15_000,
		},
		rules: [
			// Contract: every error is JSON with a stable `error` code.
			{ type: 'responseSuccessBody', properties: { key: 'error', value: 'unauthorized', message: TEST_MESSAGES.unauthorized } },
			{ type: 'responseSuccessBody', properties: { key: 'error', value: 'rate_limited', message: TEST_MESSAGES.rateLimited } },
			{ type: 'responseSuccessBody', properties: { key: 'error', value: 'internal_server_error', message: TEST_MESSAGES.serverError } },
			// Anything else without the list's `items` (a web page, a 404 of another server, a redirect) is not the API.
			{ type: 'responseSuccessBody', properties: { key: 'items', value: undefined, message: TEST_MESSAGES.notTheApi } },
		],
	};
}
