import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	BACKOFF_BASE_MS,
	BACKOFF_MAX_MS,
	CREDENTIAL_TYPE,
	MAX_RATE_LIMIT_RETRIES,
	MAX_RETRY_AFTER_MS,
	MAX_SERVER_ERROR_RETRIES,
	REQUEST_TIMEOUT_MS,
	SAFETY_MARGIN_MS,
} from '../constants';
import { normaliseBaseUrl } from './baseUrl';
import type { Failure, FailureContext } from './errors';
import { deadlineReached, MIN_ATTEMPT_MS, remainingMs } from './deadline';
import { asNodeError, toNodeApiError } from './errors';
import { keyIdOf, looksLikeApiKey } from './keyId';
import { limiterFor } from './limiterRegistry';
import { toSharedLimitNodeError } from './redisLimiter';
import { sleep } from '../utils';

/** Every n8n context this package calls the API from. */
export type ApiContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface ApiTarget {
	baseUrl: string;
	keyId: string;
	keyLooksValid: boolean;
	/** The credential's optional "Shared Rate Limit: Redis URL" (may hold a password: never shown). */
	redisUrl?: string;
}

export interface ApiResponse<T> {
	body: T;
	/** The server's clock at the time of the answer (HTTP `Date` header), when it sent one. */
	serverDate?: number;
}

export interface RequestOptions {
	qs?: IDataObject;
	itemIndex?: number;
	/** Names the thing asked for, so a 404 says what was not found. */
	resourceLabel?: string;
	/** Answer `{ body: null }` instead of failing when the API says 404 not_found. */
	nullIfNotFound?: boolean;
	/**
	 * Time budget (Date.now() clock): waits, retries and the request's own timeout all end by then; when
	 * it cannot be met the call throws a DeadlineReachedError (deadline.ts) instead of sending.
	 */
	deadline?: number;
}

/** Reads the credential once per call and derives what the transport needs; the key stays inside. */
export async function resolveTarget(ctx: ApiContext, itemIndex = 0): Promise<ApiTarget> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE, itemIndex);
	const base = normaliseBaseUrl(credentials.baseUrl);
	if (!('url' in base)) {
		throw new NodeOperationError(ctx.getNode(), base.problem, { description: base.hint, itemIndex });
	}
	const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
	if (!apiKey) {
		throw new NodeOperationError(ctx.getNode(), 'The credential has no API key', {
			description: "Open the 'Booking Requests API' credential and paste the key created in the dashboard under Integrations → API.",
			itemIndex,
		});
	}
	const redisUrl = credentials.shareRateLimit === true && typeof credentials.redisUrl === 'string' && credentials.redisUrl.trim() ? credentials.redisUrl.trim() : undefined;
	return { baseUrl: base.url, keyId: keyIdOf(apiKey), keyLooksValid: looksLikeApiKey(apiKey), redisUrl };
}

type Outcome =
	| { kind: 'response'; status: number; headers: Record<string, unknown>; text: string }
	| { kind: 'network'; code: string }
	| { kind: 'timeout' };

const NETWORK_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'EPIPE',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
	'UND_ERR_SOCKET',
]);
const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT']);

/** Finds a Node/axios error code anywhere in the chain n8n wraps around a failed request. */
function errorCode(error: unknown): string | undefined {
	let current = error as { code?: unknown; cause?: unknown; message?: unknown } | undefined;
	for (let depth = 0; current && depth < 5; depth++) {
		if (typeof current.code === 'string' && (NETWORK_CODES.has(current.code) || TIMEOUT_CODES.has(current.code))) {
			return current.code;
		}
		if (typeof current.message === 'string') {
			if (/socket hang up/i.test(current.message)) return 'ECONNRESET';
			if (/timeout of \d+ms exceeded/i.test(current.message)) return 'ECONNABORTED';
		}
		current = current.cause as typeof current;
	}
	return undefined;
}

/** Query parameters without unset values, so an empty filter never reaches the API as `form_id=`. */
function definedOnly(qs: IDataObject | undefined): IDataObject | undefined {
	if (!qs) return undefined;
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(qs)) if (value !== undefined && value !== null && value !== '') out[key] = value;
	return out;
}

async function sendOnce(ctx: ApiContext, target: ApiTarget, path: string, qs: IDataObject | undefined, deadline?: number): Promise<Outcome> {
	const left = remainingMs(deadline);
	if (left < MIN_ATTEMPT_MS) throw deadlineReached('the request was sent');
	const options: IHttpRequestOptions = {
		method: 'GET',
		baseURL: target.baseUrl,
		url: path,
		qs: definedOnly(qs),
		headers: { Accept: 'application/json' },
		// The body is parsed here, not by axios, so an HTML proxy page or a cut body becomes a clear
		// error rather than a crash or a string in the output.
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		// Statuses are handled below. This also keeps n8n from re-sending on 401 outside the limiter.
		ignoreHttpStatusErrors: true,
		// The key must never follow a redirect to another address.
		disableFollowRedirect: true,
		timeout: Math.min(REQUEST_TIMEOUT_MS, left),
	};
	try {
		const response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, options)) as {
			statusCode: number;
			headers: Record<string, unknown>;
			body: unknown;
		};
		const text = typeof response.body === 'string' ? response.body : Buffer.isBuffer(response.body) ? response.body.toString('utf8') : JSON.stringify(response.body ?? '');
		return { kind: 'response', status: response.statusCode, headers: response.headers ?? {}, text };
	} catch (error) {
		const code = errorCode(error);
		if (!code) throw asNodeError(ctx.getNode(), error); // cancelled execution or a bug: nothing to retry
		if (TIMEOUT_CODES.has(code) && left < REQUEST_TIMEOUT_MS) throw deadlineReached('the API answered');
		return TIMEOUT_CODES.has(code) ? { kind: 'timeout' } : { kind: 'network', code };
	}
}

/** A backoff wait that would end too late for another attempt ends the call now instead. */
async function sleepWithin(ms: number, deadline: number | undefined): Promise<void> {
	if (remainingMs(deadline) - ms < MIN_ATTEMPT_MS) throw deadlineReached('the next retry');
	await sleep(ms);
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	if (Array.isArray(value)) return String(value[0]);
	return value === undefined || value === null ? undefined : String(value);
}

/** Retry-After in whole seconds (contract) or an HTTP date; missing or odd values mean 1 s. Capped. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number {
	let ms = 1000;
	if (value !== undefined && value.trim() !== '') {
		const seconds = Number(value);
		if (Number.isFinite(seconds)) ms = Math.max(0, seconds * 1000);
		else {
			const date = Date.parse(value);
			if (Number.isFinite(date)) ms = Math.max(0, date - now);
		}
	}
	return Math.min(ms, MAX_RETRY_AFTER_MS);
}

export function backoffMs(attempt: number): number {
	return Math.min(BACKOFF_BASE_MS * 2 ** (attempt - 1), BACKOFF_MAX_MS);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch {
		return { ok: false };
	}
}

const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);

/**
 * The one request function: every API call of the package goes through here. It paces the call
 * through the key's limiter, retries what the contract says to retry, parses the JSON and turns every
 * failure into a NodeApiError with a fix-it description.
 */
export async function apiRequest<T = unknown>(ctx: ApiContext, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
	const target = await resolveTarget(ctx, options.itemIndex ?? 0);
	const limiter = limiterFor(target.baseUrl, target.keyId, target.redisUrl);
	const failureContext: FailureContext = { ...target, resourceLabel: options.resourceLabel, itemIndex: options.itemIndex };
	const fail = (failure: Failure) => toNodeApiError(ctx.getNode(), failure, failureContext);

	let rateLimited = 0;
	let serverErrors = 0;
	for (;;) {
		// A shared (Redis) limit that cannot be used fails the call; it is never sent without the limit.
		const startBy = options.deadline === undefined ? undefined : options.deadline - MIN_ATTEMPT_MS;
		const outcome = await limiter
			.run(async () => await sendOnce(ctx, target, path, options.qs, options.deadline), { startBy })
			.catch((error: unknown) => {
				throw toSharedLimitNodeError(ctx.getNode(), error, options.itemIndex);
			});
		const attempts = rateLimited + serverErrors + 1;

		if (outcome.kind !== 'response') {
			// An unknown host name does not heal within a retry budget (EAI_AGAIN is the transient one).
			if (serverErrors >= MAX_SERVER_ERROR_RETRIES || (outcome.kind === 'network' && outcome.code === 'ENOTFOUND')) {
				throw fail(outcome.kind === 'timeout' ? { kind: 'timeout', attempts } : { kind: 'network', code: outcome.code, attempts });
			}
			serverErrors++;
			await sleepWithin(backoffMs(serverErrors), options.deadline);
			continue;
		}

		const { status, headers, text } = outcome;
		const parsed = parseJson(text);
		const body = parsed.ok ? (parsed.value as Record<string, unknown> | null) : undefined;
		const errorBody = body && typeof body === 'object' && !Array.isArray(body) ? body : undefined;

		if (status === 429) {
			if (rateLimited >= MAX_RATE_LIMIT_RETRIES) {
				throw fail({ kind: 'status', status, code: 'rate_limited', attempts });
			}
			rateLimited++;
			limiter.pauseFor(retryAfterMs(header(headers, 'retry-after')) + SAFETY_MARGIN_MS);
			continue;
		}
		if (RETRYABLE_STATUSES.has(status)) {
			if (serverErrors >= MAX_SERVER_ERROR_RETRIES) {
				throw fail({
					kind: 'status',
					status,
					code: typeof errorBody?.error === 'string' ? errorBody.error : undefined,
					serverMessage: typeof errorBody?.message === 'string' ? errorBody.message : undefined,
					attempts,
				});
			}
			serverErrors++;
			const hinted = header(headers, 'retry-after');
			await sleepWithin(hinted !== undefined ? Math.max(retryAfterMs(hinted), backoffMs(serverErrors)) : backoffMs(serverErrors), options.deadline);
			continue;
		}
		if (status >= 300 && status < 400) {
			throw fail({ kind: 'redirect', status, location: header(headers, 'location') });
		}
		if (!parsed.ok) {
			throw fail({ kind: 'notJson', status, looksLikeHtml: /^\s*</.test(text) });
		}
		if (status === 404 && options.nullIfNotFound) return { body: null as T };
		if (status < 200 || status >= 300) {
			throw fail({
				kind: 'status',
				status,
				code: typeof errorBody?.error === 'string' ? errorBody.error : undefined,
				serverMessage: typeof errorBody?.message === 'string' ? errorBody.message.slice(0, 500) : undefined,
				attempts,
			});
		}
		if (errorBody && typeof errorBody.error === 'string' && !('id' in errorBody) && !('items' in errorBody)) {
			throw fail({ kind: 'malformed', detail: `a ${status} answer carried the error "${errorBody.error.slice(0, 100)}"` });
		}
		const dateHeader = header(headers, 'date');
		const serverDate = dateHeader ? Date.parse(dateHeader) : NaN;
		return { body: parsed.value as T, serverDate: Number.isFinite(serverDate) ? serverDate : undefined };
	}
}
