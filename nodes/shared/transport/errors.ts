import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_DISPLAY_NAME, MIN_GAP_MS } from '../constants';
import { codeInChain, TLS_CODE } from './errorChain';

/**
 * The one place that turns a failed call into what the user reads. Texts never contain the API key:
 * a key is named by its hash (`key id`), and the server's own message is passed through only as the
 * contract's `message` field.
 */

export type Failure =
	| { kind: 'status'; status: number; code?: string; serverMessage?: string; attempts: number }
	| { kind: 'network'; code: string; attempts: number }
	| { kind: 'timeout'; attempts: number }
	/** 429s without any request of the key accepted for `stalledMs` (retryRule.ts). */
	| { kind: 'rateLimitStalled'; stalledMs: number; attempts: number }
	| { kind: 'redirect'; status: number; location?: string }
	| { kind: 'notJson'; status: number; looksLikeHtml: boolean }
	| { kind: 'malformed'; detail: string };

export interface FailureContext {
	baseUrl: string;
	keyId: string;
	keyLooksValid: boolean;
	/** The name the user gave the credential (the node's credentials.bookingRequestsApi.name). */
	credentialName?: string;
	/** What the call was for, e.g. "booking request 3f2b…" (used for 404 on Get request). */
	resourceLabel?: string;
	itemIndex?: number;
}

interface Explained {
	message: string;
	description: string;
	httpCode?: string;
	code: string;
}

const KEY_SHAPE_HINT =
	"API keys have a 4-character prefix ending in '_' followed by 32 hexadecimal characters (36 characters in all); the key in this credential does not have that shape — check for a missing or extra character when it was pasted.";

/** How the texts name the credential: by the name the user gave it. */
export function credentialLabel(name: string | undefined): string {
	return `'${name?.trim() || CREDENTIAL_DISPLAY_NAME}' credential`;
}

function explain(failure: Failure, ctx: FailureContext): Explained {
	const credential = credentialLabel(ctx.credentialName);
	switch (failure.kind) {
		case 'status':
			return explainStatus(failure, ctx);
		case 'network':
			return {
				code: 'network_error',
				// n8n replaces a message that contains a Node error code (ECONNRESET…) with a generic text, so
				// the code goes into the description.
				message: `Could not reach the Booking Requests API at ${ctx.baseUrl}`,
				description: `Network error ${failure.code}; tried ${failure.attempts} time(s) with backoff. Check the Base URL in the ${credential} and that the server is reachable from n8n.`,
			};
		case 'timeout':
			return {
				code: 'timeout',
				message: `The Booking Requests API at ${ctx.baseUrl} did not answer in time`,
				description: `Tried ${failure.attempts} time(s) with backoff. The server may be overloaded; run the workflow again later.`,
			};
		case 'rateLimitStalled': {
			const minutes = Math.round(failure.stalledMs / 60_000);
			const span = minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${Math.round(failure.stalledMs / 1000)} s`;
			return {
				code: 'rate_limited',
				httpCode: '429',
				message: `Rate limit: no request with this API key was accepted for ${span} (429 rate_limited)`,
				description: `The API allows one request per ${MIN_GAP_MS / 1000} s per key. Another client is using the same API key (key id ${ctx.keyId}): this package slows down to share the key and keeps retrying, and gives up only when the API has accepted no request of the key for ${span} (${failure.attempts} attempts in this call). Give each integration its own API key (keys have separate budgets), or in n8n queue mode set "Shared Rate Limit: Redis URL" in the ${credential} of every n8n process.`,
			};
		}
		case 'redirect':
			return {
				code: 'redirect',
				httpCode: String(failure.status),
				message: `The server redirected the request (${failure.status})${failure.location ? ` to ${stripQuery(failure.location)}` : ''}`,
				description:
					'Redirects are not followed so that the API key is never sent to another address. Set the Base URL to the final address.',
			};
		case 'notJson':
			return {
				code: 'invalid_response',
				httpCode: String(failure.status),
				message: `The server answered ${failure.status} with ${failure.looksLikeHtml ? 'an HTML page' : 'a body that is not JSON'} instead of the API's JSON`,
				description: failure.looksLikeHtml
					? `This usually means the Base URL (${ctx.baseUrl}) points at a website, a proxy or a login page rather than the API. The API's paths start with /api/v1/.`
					: `The body could not be read as JSON: it may have been cut off on the way (a dropped connection, a proxy or gateway limit), or the Base URL (${ctx.baseUrl}) points at something other than the API. Nothing was returned for this call; run the workflow again, and if it persists check the Base URL and any proxy in between.`,
			};
		case 'malformed':
			return {
				code: 'invalid_response',
				message: `The API's answer does not match the Booking Requests API contract: ${failure.detail}`,
				description: 'Nothing was returned for this call, so no partial or wrong data reaches the workflow. If it persists, report it to the API provider.',
			};
	}
}

function explainStatus(failure: Extract<Failure, { kind: 'status' }>, ctx: FailureContext): Explained {
	const code = failure.code ?? `http_${failure.status}`;
	const serverSays = failure.serverMessage ? ` The server said: "${failure.serverMessage}".` : '';
	const httpCode = String(failure.status);
	switch (failure.status) {
		case 401:
			return {
				code,
				httpCode,
				message: 'Authorization failed: the API key was rejected (401 unauthorized)',
				description: ctx.keyLooksValid
					? `The key (key id ${ctx.keyId}) is unknown, revoked or belongs to another service. Check the API key in the ${credentialLabel(ctx.credentialName)}, or create a new key in the dashboard under Integrations → API and paste it there.${serverSays}`
					: `${KEY_SHAPE_HINT}${serverSays}`,
			};
		case 404:
			return ctx.resourceLabel
				? {
						code,
						httpCode,
						message: `Not found: ${ctx.resourceLabel} does not exist in this workspace`,
						description:
							`The id is unknown or belongs to another workspace (the API answers 404 for both). Check the id, and that the ${credentialLabel(ctx.credentialName)} uses the API key of the workspace that owns it.`,
					}
				: {
						code,
						httpCode,
						message: 'The API path was not found (404)',
						description: `Check the Base URL (${ctx.baseUrl}) in the ${credentialLabel(ctx.credentialName)}; the API's paths start with /api/v1/ and the Base URL must not include them.${serverSays}`,
					};
		case 400:
			return {
				code,
				httpCode,
				message: `The API rejected the request (400 ${code})`,
				description: `Check the ids and filters of this node.${serverSays}`,
			};
		default:
			if (failure.status >= 500) {
				return {
					code,
					httpCode,
					message: `The Booking Requests API failed with ${failure.status} ${code} after ${failure.attempts} attempt(s)`,
					description: `The server had an error it did not recover from within the retries. Run the workflow again later.${serverSays}`,
				};
			}
			return {
				code,
				httpCode,
				message: `The API answered ${failure.status} ${code}`,
				description: `Unexpected status for a read-only call.${serverSays}`,
			};
	}
}

function stripQuery(location: string): string {
	return location.split('?')[0].slice(0, 200);
}

/** Builds the NodeApiError for a failure. The JSON body given to n8n holds only safe fields. */
export function toNodeApiError(node: INode, failure: Failure, ctx: FailureContext): NodeApiError {
	const explained = explain(failure, ctx);
	const body: JsonObject = { error: explained.code, message: explained.message };
	if (failure.kind === 'status' && failure.serverMessage) body.serverMessage = failure.serverMessage;
	return new NodeApiError(node, body, {
		message: explained.message,
		description: explained.description,
		httpCode: explained.httpCode,
		itemIndex: ctx.itemIndex,
	});
}

/** The error code of a failed call, whether or not it went through `toNodeApiError`. */
export function errorCodeOf(error: unknown): string | undefined {
	const body = (error as { errorResponse?: JsonObject })?.errorResponse;
	return typeof body?.error === 'string' ? body.error : undefined;
}

/** The TLS error code anywhere in the chain n8n wraps around a failed request. */
function tlsCodeOf(error: unknown): string | undefined {
	return codeInChain(error, (code) => TLS_CODE.test(code));
}

/**
 * Errors of this package are already NodeApiError / NodeOperationError with their item index; anything
 * else (a bug, a cancelled execution) is wrapped so n8n shows it on the node and item. A failed https
 * handshake (n8n's own NodeApiError around an OpenSSL message) becomes an error that says what to check;
 * it is never retried, as it fails the same way every time.
 */
export function asNodeError(node: INode, error: unknown, itemIndex?: number, credentialName?: string): NodeApiError | NodeOperationError {
	const tls = tlsCodeOf(error);
	if (tls) {
		const message = 'Could not set up a secure (https) connection to the Booking Requests API';
		return new NodeApiError(
			node,
			{ error: 'tls_error', message },
			{
				message,
				description: `TLS error ${tls}. Check the Base URL in the ${credentialLabel(credentialName)}: the scheme and port must be those of the API's https address (a server that only speaks http:// fails like this), and the server's certificate must be valid for that host name and trusted by n8n.`,
				itemIndex,
			},
		);
	}
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error, { itemIndex });
}
