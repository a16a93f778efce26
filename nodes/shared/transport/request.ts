import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_DISPLAY_NAME, CREDENTIAL_TYPE, MAX_RETRY_AFTER_MS, QUEUE_PACKAGE_NAME, REQUEST_TIMEOUT_MS } from '../constants';
import { normaliseBaseUrl } from './baseUrl';
import { AXIOS_TIMEOUT, codeInChain, SOCKET_HANG_UP } from './errorChain';
import type { Failure, FailureContext } from './errors';
import { deadlineReached, MIN_ATTEMPT_MS, remainingMs } from './deadline';
import { asNodeError, credentialLabel, toNodeApiError } from './errors';
import { keyIdOf, looksLikeApiKey } from './keyId';
import type { KeyLimiter, ServerAnswer } from './limiter/keyLimiter';
import { currentEdition, limiterFor, retryRules } from './limiter/registry';
import { retryDecision, type FailedAttempt, type RetryRules } from './limiter/retryRule';
import { toSharedLimitNodeError } from './limiter/shared/errors';
import { headerValue, sleep } from '../utils';

export { backoffMs } from './limiter/retryRule';

/** Every n8n context this package calls the API from. */
export type ApiContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface ApiTarget {
	baseUrl: string;
	keyId: string;
	keyLooksValid: boolean;
	/** The name the user gave the credential, for error texts ("Booking Requests API" if none). */
	credentialName: string;
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

/** The name the user gave the node's credential (n8n keeps it on the node), or the type's display name. */
export function credentialNameOf(ctx: ApiContext): string {
	const name = ctx.getNode().credentials?.[CREDENTIAL_TYPE]?.name;
	return typeof name === 'string' && name.trim() ? name.trim() : CREDENTIAL_DISPLAY_NAME;
}

/** Reads the credential once per call and derives what the transport needs; the key stays inside. */
export async function resolveTarget(ctx: ApiContext, itemIndex = 0): Promise<ApiTarget> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE, itemIndex);
	const credentialName = credentialNameOf(ctx);
	const base = normaliseBaseUrl(credentials.baseUrl, credentialName);
	if (!('url' in base)) {
		throw new NodeOperationError(ctx.getNode(), base.problem, { description: base.hint, itemIndex });
	}
	const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey.trim() : '';
	if (!apiKey) {
		throw new NodeOperationError(ctx.getNode(), 'The credential has no API key', {
			description: `Open the ${credentialLabel(credentialName)} and paste the key created in the dashboard under Integrations → API.`,
			itemIndex,
		});
	}
	const redisUrl = credentials.shareRateLimit === true && typeof credentials.redisUrl === 'string' && credentials.redisUrl.trim() ? credentials.redisUrl.trim() : undefined;
	return { baseUrl: base.url, keyId: keyIdOf(apiKey), keyLooksValid: looksLikeApiKey(apiKey), credentialName, redisUrl };
}

type Response = { kind: 'response'; status: number; headers: Record<string, unknown>; text: string };
type Outcome = Response | { kind: 'network'; code: string } | { kind: 'timeout' };

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
	return codeInChain(error, (code) => NETWORK_CODES.has(code) || TIMEOUT_CODES.has(code), [SOCKET_HANG_UP, AXIOS_TIMEOUT]);
}

/** Query parameters without unset values, so an empty filter never reaches the API as `form_id=`. */
function definedOnly(qs: IDataObject | undefined): IDataObject | undefined {
	if (!qs) return undefined;
	const out: IDataObject = {};
	for (const [key, value] of Object.entries(qs)) if (value !== undefined && value !== null && value !== '') out[key] = value;
	return out;
}

/** Sends the call's request once (the limiter has given it the key's turn). */
async function sendOnce(call: Call): Promise<Outcome> {
	const { ctx, target, path } = call;
	const { qs, deadline } = call.options;
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
		// Statuses are read by readAnswer. This also keeps n8n from re-sending on 401 outside the limiter.
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
		if (!code) throw asNodeError(ctx.getNode(), error, undefined, target.credentialName); // cancelled execution or a bug: nothing to retry
		if (TIMEOUT_CODES.has(code) && left < REQUEST_TIMEOUT_MS) throw deadlineReached('the API answered');
		return TIMEOUT_CODES.has(code) ? { kind: 'timeout' } : { kind: 'network', code };
	}
}

/** A backoff wait that would end too late for another attempt ends the call now instead. */
async function sleepWithin(ms: number, deadline: number | undefined): Promise<void> {
	if (remainingMs(deadline) - ms < MIN_ATTEMPT_MS) throw deadlineReached('the next retry');
	await sleep(ms);
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

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch {
		return { ok: false };
	}
}

const RETRYABLE_STATUSES = new Set([500, 502, 503, 504]);

/** How the limiter's pacing sees an outcome: accepted by the rate check, a 429, or no answer at all. */
function answerOf(outcome: Outcome): ServerAnswer {
	if (outcome.kind !== 'response') return { kind: 'noAnswer' };
	if (outcome.status !== 429) return { kind: 'accepted' };
	return { kind: 'rateLimited', retryAfterMs: retryAfterMs(headerValue(outcome.headers, 'retry-after')) };
}

/** The execution's cancel signal (the editor's Stop), where the context has one. */
function cancelSignalOf(ctx: ApiContext): AbortSignal | undefined {
	const getter = (ctx as { getExecutionCancelSignal?: () => AbortSignal | undefined }).getExecutionCancelSignal;
	return typeof getter === 'function' ? getter.call(ctx) : undefined;
}

/**
 * Said once per key and minute (the limiter keeps count) when a 429 came from another client of the
 * key. The key is named by its hash, never the key. The advice depends on the edition: only the queue
 * edition can share the limit through Redis.
 */
function warnContention(ctx: ApiContext, target: ApiTarget): void {
	const advice = currentEdition().sharedLimiterFor
		? 'in queue mode, set the Redis URL in the credential'
		: `in n8n queue mode, the queue edition of this package (${QUEUE_PACKAGE_NAME}) shares the limit through Redis${target.redisUrl ? " (this edition paces each n8n process on its own and does not use the credential's Redis URL)" : ''}`;
	ctx.logger?.warn?.(
		`Booking Requests: another client is using this API key (key id ${target.keyId}, ${credentialLabel(target.credentialName)}); requests are slowed to share it; ${advice}`,
		{ keyId: target.keyId },
	);
}

/** One call of `apiRequest`: what its attempts share, and what they have met so far. */
interface Call {
	ctx: ApiContext;
	path: string;
	options: RequestOptions;
	target: ApiTarget;
	limiter: KeyLimiter;
	/** The execution's cancel signal (the editor's Stop). */
	signal?: AbortSignal;
	rules: RetryRules;
	startedAt: number;
	attempts: number;
	/** 5xx, network and time-out failures so far (429s are counted apart: see retryRule.ts). */
	serverFailures: number;
}

/** A failed attempt the retry rule may try again, and the error that ends the call if it does not. */
interface Retryable {
	failed: FailedAttempt;
	finalError: () => Error;
}

/** What one attempt's outcome means for the call: its answer, or another attempt. The call's errors are thrown. */
type Verdict<T> = { kind: 'done'; response: ApiResponse<T> } | ({ kind: 'retry' } & Retryable);

/**
 * The one request function: every API call of the package goes through here. It paces the call
 * through the key's limiter, retries what the retry rule (limiter/retryRule.ts) says to retry, parses
 * the JSON and turns every failure into a NodeApiError with a fix-it description.
 */
export async function apiRequest<T = unknown>(ctx: ApiContext, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
	const target = await resolveTarget(ctx, options.itemIndex ?? 0);
	const call: Call = {
		ctx,
		path,
		options,
		target,
		limiter: limiterFor(target.baseUrl, target.keyId, target.redisUrl),
		signal: cancelSignalOf(ctx),
		rules: retryRules(),
		startedAt: Date.now(),
		attempts: 0,
		serverFailures: 0,
	};
	for (;;) {
		const outcome = await attempt(call);
		const verdict: Verdict<T> = outcome.kind === 'response' ? readAnswer<T>(call, outcome) : noAnswer(call, outcome);
		if (verdict.kind === 'done') return verdict.response;
		const waitMs = retryOrThrow(call, verdict);
		// A 429 waits in the limiter (its Retry-After and the pacing): contention slows the call, it does not end it.
		if (verdict.failed.kind !== 'rateLimited') await sleepWithin(waitMs, options.deadline);
	}
}

/** One attempt, in the key's turn. A shared (Redis) limit that cannot be used fails the call: it is never sent without the limit. */
async function attempt(call: Call): Promise<Outcome> {
	const { ctx, options, signal, target } = call;
	const startBy = options.deadline === undefined ? undefined : options.deadline - MIN_ATTEMPT_MS;
	const outcome = await call.limiter
		.run(async () => await sendOnce(call), { startBy, signal, answerOf, onContention: () => warnContention(ctx, target) })
		.catch((error: unknown) => {
			if (signal?.aborted) throw stopped(call);
			throw toSharedLimitNodeError(ctx.getNode(), error, { itemIndex: options.itemIndex, credentialName: target.credentialName });
		});
	call.attempts++;
	return outcome;
}

/** Whether and how long to wait before the next attempt; throws the call's final error otherwise. */
function retryOrThrow(call: Call, { failed, finalError }: Retryable): number {
	if (failed.kind !== 'rateLimited') call.serverFailures++;
	const decision = retryDecision(
		failed,
		{ now: Date.now(), callStartedAt: call.startedAt, keyLastAcceptedAt: call.limiter.lastAcceptedAt(), serverFailures: call.serverFailures, cancelled: call.signal?.aborted },
		call.rules,
	);
	if (decision.retry) return decision.waitMs;
	throw decision.reason === 'cancelled' ? stopped(call) : finalError();
}

/** No answer: a network error or a time-out, tried again by the retry rule. */
function noAnswer(call: Call, outcome: Exclude<Outcome, Response>): Verdict<never> {
	// An unknown host name does not heal within a retry budget (EAI_AGAIN is the transient one).
	const failed: FailedAttempt = outcome.kind === 'network' && outcome.code === 'ENOTFOUND' ? { kind: 'unknownHost' } : { kind: outcome.kind };
	const failure = (): Failure => (outcome.kind === 'timeout' ? { kind: 'timeout', attempts: call.attempts } : { kind: 'network', code: outcome.code, attempts: call.attempts });
	return { kind: 'retry', failed, finalError: () => fail(call, failure()) };
}

/** An HTTP answer: the body, a 429 or 5xx to try again, or (thrown) what the user reads. */
function readAnswer<T>(call: Call, { status, headers, text }: Response): Verdict<T> {
	const parsed = parseJson(text);
	const body = parsed.ok ? (parsed.value as Record<string, unknown> | null) : undefined;
	const errorBody = body && typeof body === 'object' && !Array.isArray(body) ? body : undefined;

	if (status === 429) {
		return { kind: 'retry', failed: { kind: 'rateLimited' }, finalError: () => fail(call, { kind: 'rateLimitStalled', stalledMs: call.rules.stallMs, attempts: call.attempts }) };
	}
	if (RETRYABLE_STATUSES.has(status)) {
		const hinted = headerValue(headers, 'retry-after');
		const failed: FailedAttempt = { kind: 'serverError', hintMs: hinted !== undefined ? retryAfterMs(hinted) : undefined };
		return { kind: 'retry', failed, finalError: () => fail(call, statusFailure(call, status, errorBody)) };
	}
	if (status >= 300 && status < 400) throw fail(call, { kind: 'redirect', status, location: headerValue(headers, 'location') });
	if (!parsed.ok) throw fail(call, { kind: 'notJson', status, looksLikeHtml: /^\s*</.test(text) });
	if (status === 404 && call.options.nullIfNotFound) return { kind: 'done', response: { body: null as T } };
	if (status < 200 || status >= 300) throw fail(call, statusFailure(call, status, errorBody, 500));
	if (errorBody && typeof errorBody.error === 'string' && !('id' in errorBody) && !('items' in errorBody)) {
		throw fail(call, { kind: 'malformed', detail: `a ${status} answer carried the error "${errorBody.error.slice(0, 100)}"` });
	}
	const dateHeader = headerValue(headers, 'date');
	const serverDate = dateHeader ? Date.parse(dateHeader) : NaN;
	return { kind: 'done', response: { body: parsed.value as T, serverDate: Number.isFinite(serverDate) ? serverDate : undefined } };
}

/** A status the call ends with: the contract's `error` code and `message` (cut to `messageMax` characters). */
function statusFailure(call: Call, status: number, errorBody: Record<string, unknown> | undefined, messageMax = Infinity): Failure {
	return {
		kind: 'status',
		status,
		code: typeof errorBody?.error === 'string' ? errorBody.error : undefined,
		serverMessage: typeof errorBody?.message === 'string' ? errorBody.message.slice(0, messageMax) : undefined,
		attempts: call.attempts,
	};
}

function fail(call: Call, failure: Failure): Error {
	const context: FailureContext = { ...call.target, resourceLabel: call.options.resourceLabel, itemIndex: call.options.itemIndex };
	return toNodeApiError(call.ctx.getNode(), failure, context);
}

function stopped(call: Call): Error {
	return new NodeOperationError(call.ctx.getNode(), 'The execution was stopped', { itemIndex: call.options.itemIndex });
}
