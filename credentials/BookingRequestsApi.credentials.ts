import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * Expression that yields the Authorization header. It is empty when the Base URL is plain http:// to a
 * host other than loopback, so the key is never sent in clear text across a network — not by this
 * package's nodes, not by the Test button, not by an HTTP Request node that borrows this credential.
 * (The nodes also refuse such a Base URL with a clear error before sending anything.)
 */
const AUTHORIZATION_HEADER =
	"={{ (() => { const url = String($credentials.baseUrl || '').trim().toLowerCase(); const host = url.startsWith('http://') ? url.slice(7).split('/')[0].replace(/:\\d+$/, '') : ''; const insecure = url.startsWith('http://') && !(host === 'localhost' || host === '[::1]' || /^127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}$/.test(host)); return insecure ? '' : 'Bearer ' + String($credentials.apiKey || '').trim(); })() }}";

export class BookingRequestsApi implements ICredentialType {
	name = 'bookingRequestsApi';

	displayName = 'Booking Requests API';

	icon: Icon = { light: 'file:bookingRequestsApi.svg', dark: 'file:bookingRequestsApi.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-booking-requests#credentials';

	properties: INodeProperties[] = [
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
				"The API's base address, without /api/v1. Must be https://, except http://localhost or 127.0.0.1 for a local sandbox.",
		},
		// The URL may carry the Redis password (redis://:password@host), so it is masked like one.
		// eslint-disable-next-line @n8n/community-nodes/credential-unnecessary-password
		{
			displayName: 'Shared Rate Limit: Redis URL',
			name: 'redisUrl',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'redis://:password@redis:6379/0',
			description:
				'Optional, for n8n queue mode (a main process and workers): a Redis that every n8n process can reach, e.g. the one queue mode uses. Then all processes using this API key share one budget of 1 request per second. redis:// or rediss:// (TLS). Leave empty for a single n8n process.',
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

	test: ICredentialTestRequest = {
		request: {
			baseURL: "={{ String($credentials.baseUrl || '').trim().replace(/\\/+$/, '') }}",
			url: '/api/v1/forms',
			qs: { per_page: 1 },
			headers: { Accept: 'application/json' },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key was rejected (401). Check that it was pasted whole: a 4-character prefix ending in "_" followed by 32 hexadecimal characters. Revoked keys stop working at once. Plain http:// is only allowed for localhost.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'Nothing answers at this Base URL + /api/v1/forms. Enter the base address without /api/v1.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 429,
					message: 'Rate limited (1 request per second per key): another integration is using this key right now. Try again in a second.',
				},
			},
		],
	};
}
