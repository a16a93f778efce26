import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { API_PATHS } from '../constants';
import { normaliseBaseUrl } from '../transport/baseUrl';
import { AXIOS_TIMEOUT, codeInChain, TLS_CODE } from '../transport/errorChain';
import { keyIdOf, looksLikeApiKey } from '../transport/keyId';
import type { ServerAnswer } from '../transport/limiter/keyLimiter';
import { limiterFor } from '../transport/limiter/registry';
import { parseRedisUrl } from '../transport/limiter/shared/redisUrl';
import { headerValue } from '../utils';

/**
 * The credential's Test button (`testedBy` on both nodes). A function rather than the declarative
 * `test` request so that every answer gets a sentence that says what to fix: a key of the wrong
 * shape is explained without sending anything (the test does not send a pasted password to the API),
 * an unknown host or refused connection names the host, and no text ever contains the key.
 * n8n calls it with the decrypted credential and a context that offers only the legacy
 * `helpers.request` (n8n 1.x and 2.x alike).
 */

export const KEY_SHAPE_MESSAGE =
	'This key does not look like a Booking Requests API key (prefix of 4 characters ending in "_", then 32 hex characters)';

const TIMEOUT_MS = 15_000;
/** The Test button waits at most this long for a 429's Retry-After before its one retry. */
const MAX_RETRY_WAIT_MS = 5_000;

const UNREACHABLE_CODES = new Set([
	'ENOTFOUND',
	'EAI_AGAIN',
	'ECONNREFUSED',
	'ECONNRESET',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EPIPE',
	'ETIMEDOUT',
	'ECONNABORTED',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
	'UND_ERR_CONNECT_TIMEOUT',
]);

interface RawResponse {
	statusCode: number;
	headers?: Record<string, unknown>;
	body?: unknown;
}

const error = (message: string): INodeCredentialTestResult => ({ status: 'Error', message });

/** A Node / axios error code anywhere in the chain around a failed request. */
function codeOf(failure: unknown): string | undefined {
	return codeInChain(failure, (code) => UNREACHABLE_CODES.has(code) || TLS_CODE.test(code), [AXIOS_TIMEOUT], 6);
}

function bodyText(body: unknown): string {
	if (typeof body === 'string') return body;
	if (Buffer.isBuffer(body)) return body.toString('utf8');
	return body === undefined || body === null ? '' : JSON.stringify(body);
}

/** What the answer of GET /api/v1/forms?per_page=1 means for the user. */
export function explainAnswer(response: RawResponse, base: string): INodeCredentialTestResult {
	const host = new URL(base).host;
	const status = response.statusCode;
	const text = bodyText(response.body);
	if (status >= 200 && status < 300) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(text);
		} catch {
			parsed = undefined;
		}
		if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { items?: unknown }).items)) {
			return { status: 'OK', message: 'Connection successful: the key works' };
		}
		return error(
			/^\s*</.test(text)
				? `${host} answered with a web page, not the Booking Requests API: check the Base URL (the API's address, without /api/v1)`
				: `${host} answered, but not like the Booking Requests API: check the Base URL (the API's address, without /api/v1)`,
		);
	}
	if (status === 401) {
		return error(
			'The API key was rejected (401): it is unknown, revoked, or belongs to another Base URL. Create a key in the dashboard under Integrations → API and paste it whole.',
		);
	}
	if (status === 404) return error(`Nothing answers at ${base}/api/v1/forms (404): enter the Base URL without /api/v1`);
	if (status === 429) {
		return error('Rate limited (1 request per second per key): another integration is using this key right now. Try again in a second.');
	}
	if (status >= 300 && status < 400) {
		const location = headerValue(response.headers, 'location');
		const target = location ? ` to ${location.split('?')[0].slice(0, 200)}` : '';
		return error(`${host} redirected the request${target}: enter the final address as the Base URL (redirects are not followed, so the key never goes elsewhere)`);
	}
	if (status >= 500) return error(`The Booking Requests API at ${host} had an error (${status}): try again in a minute`);
	return error(`The Booking Requests API at ${host} answered ${status}: check the Base URL and the API key`);
}

/** What a request that got no answer means for the user. */
export function explainFailure(failure: unknown, base: string): INodeCredentialTestResult {
	const host = new URL(base).host;
	const code = codeOf(failure);
	if (code && TLS_CODE.test(code)) {
		return error(
			`Cannot set up a secure (https) connection to ${host} (${code}): check the Base URL's scheme and port, and that the server's certificate is valid for this host`,
		);
	}
	if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ERR_SOCKET_CONNECTION_TIMEOUT') {
		return error(`Cannot reach ${host}: no answer within ${TIMEOUT_MS / 1000} s. Check the Base URL`);
	}
	if (code) return error(`Cannot reach ${host}: check the Base URL`);
	// Not a network failure (a bug, n8n refusing the request): its text may carry request details, so it is not shown.
	return error(`The connection test to ${host} failed unexpectedly: check the Base URL`);
}

/** The checks that need no request: every one of them fails without sending anything. */
export function checkCredentialFields(data: ICredentialDataDecryptedObject | undefined): { base: string; apiKey: string } | INodeCredentialTestResult {
	const base = normaliseBaseUrl(data?.baseUrl);
	if (!('url' in base)) return error(`${base.problem}: ${base.hint}`);
	const apiKey = typeof data?.apiKey === 'string' ? data.apiKey.trim() : '';
	if (!apiKey) return error('Enter the API key: create one in the dashboard under Integrations → API (it is shown once)');
	if (!looksLikeApiKey(apiKey)) return error(KEY_SHAPE_MESSAGE);
	if (data?.shareRateLimit === true) {
		const redis = typeof data.redisUrl === 'string' ? data.redisUrl.trim() : '';
		if (!redis) return error('Enter the Redis URL, or turn off "Share Rate Limit Across n8n Processes"');
		const parsed = parseRedisUrl(redis);
		if ('problem' in parsed) return error(`${parsed.problem}: ${parsed.hint}`);
	}
	return { base: base.url, apiKey };
}

export async function bookingRequestsApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const checked = checkCredentialFields(credential.data);
	if ('status' in checked) return checked;
	const { base, apiKey } = checked;
	// Paced with this process's other calls on the same key, so pressing Test during a run costs no 429.
	const limiter = limiterFor(base, keyIdOf(apiKey));
	// The limiter's pacing learns from the answer like from any other call (a 429 is the key's, not ours).
	const answerOf = (response: RawResponse): ServerAnswer =>
		response.statusCode === 429
			? { kind: 'rateLimited', retryAfterMs: Math.min((Number(headerValue(response.headers, 'retry-after')) || 1) * 1000, MAX_RETRY_WAIT_MS) }
			: { kind: 'accepted' };
	const send = async () =>
		(await limiter.run(
			async () =>
				// The credential-test context offers only the legacy `request` helper (n8n 1.x and 2.x);
				// `httpRequest` does not exist there.
				// eslint-disable-next-line @n8n/community-nodes/no-deprecated-workflow-functions
				(await this.helpers.request({
					method: 'GET',
					uri: `${base}${API_PATHS.forms}`,
					qs: { per_page: 1 },
					headers: { Accept: 'application/json', Authorization: `Bearer ${apiKey}` },
					json: false,
					simple: false,
					resolveWithFullResponse: true,
					followRedirect: false,
					timeout: TIMEOUT_MS,
				})) as RawResponse,
			{ answerOf },
		)) as RawResponse;
	try {
		let response = await send();
		// Another caller used the key within the last second: one retry; the limiter waits the Retry-After.
		if (response.statusCode === 429) response = await send();
		return explainAnswer(response, base);
	} catch (failure) {
		return explainFailure(failure, base);
	}
}
