import type { IAuthenticateGeneric, Icon, ICredentialType, INodeProperties } from 'n8n-workflow';


/**
 * Expression that yields the Authorization header. It is empty when the Base URL is plain http:// to a
 * host other than loopback, so the key is never sent in clear text across a network — not by this
 * package's nodes, not by the Test button, not by an HTTP Request node that borrows this credential.
 * (The nodes also refuse such a Base URL with a clear error before sending anything.)
 */
const AUTHORIZATION_HEADER =
	"={{ (() => { const url = String($credentials.baseUrl || '').trim().toLowerCase(); const host = url.startsWith('http://') ? url.slice(7).split('/')[0].replace(/:\\d+$/, '') : ''; const insecure = url.startsWith('http://') && !(host === 'localhost' || host === '[::1]' || /^127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}$/.test(host)); return insecure ? '' : 'Bearer ' + String($credentials.apiKey || '').trim(); })() }}";

/**
 * The Test button is `bookingRequestsApiTest` (nodes/shared/methods/credentialTest.ts), named by
 * `testedBy` on both nodes: it explains a key of the wrong shape and an unreachable host in words,
 * which the declarative `test` request cannot.
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
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				"The API's address, without /api/v1. Must be https://, except http://localhost or 127.0.0.1 for a local sandbox.",
		},
		{
			displayName: 'Share Rate Limit Across n8n Processes',
			name: 'shareRateLimit',
			type: 'boolean',
			default: false,
			description:
				'Whether every n8n process using this key shares one budget of 1 request per second through Redis. Only needed in n8n queue mode (a main process and workers); leave off for a single n8n.',
		},
		// The URL may carry the Redis password (redis://:password@host), so it is masked like one.
		// eslint-disable-next-line @n8n/community-nodes/credential-unnecessary-password
		{
			displayName: 'Redis URL',
			name: 'redisUrl',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			placeholder: 'redis://:password@redis:6379/0',
			displayOptions: { show: { shareRateLimit: [true] } },
			description:
				'A Redis every n8n process can reach, e.g. the one queue mode uses: redis:// or rediss:// (TLS). All processes using this API key then share one budget of 1 request per second.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: AUTHORIZATION_HEADER,
			},
		},
	};
}
