import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RedisTarget } from './redisUrl';
import { scrubSecret } from './redisUrl';

/**
 * Errors of the Redis shared limiter. Marked with a registered symbol so that every bundle of the
 * package recognises them (no `instanceof`). Failure is loud: a request is never sent without the
 * shared limit, and the error names the Redis URL without its password.
 */

const SHARED_LIMIT_ERROR = Symbol.for('n8n-nodes-booking-requests.shared-limit-error');

export interface SharedLimitError extends Error {
	/** What happened, without the advice (which names the credential: see toSharedLimitNodeError). */
	detail: string;
	/** Whether the standard advice (check Redis, or clear the Redis URL) applies. */
	advice: 'redis' | 'url' | 'none';
	[SHARED_LIMIT_ERROR]: true;
}

export function sharedLimitError(message: string, detail: string, advice: SharedLimitError['advice'] = 'redis'): SharedLimitError {
	const error = new Error(message) as SharedLimitError;
	error.name = 'SharedLimitError';
	error.detail = detail;
	error.advice = advice;
	error[SHARED_LIMIT_ERROR] = true;
	return error;
}

export function isSharedLimitError(error: unknown): error is SharedLimitError {
	return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[SHARED_LIMIT_ERROR] === true;
}

const NOT_SENT =
	'Requests with this API key are not sent while the shared budget is unavailable, so that the n8n processes never exceed 1 request per second together.';

/** The advice of a shared-limit error, naming the credential by the name the user gave it. */
export function sharedLimitAdvice(error: SharedLimitError, credentialName: string): string {
	if (error.advice === 'none') return '';
	if (error.advice === 'url') return NOT_SENT;
	return `${NOT_SENT} Check that Redis is running and reachable from every n8n process (main and workers), or clear "Shared Rate Limit: Redis URL" in the '${credentialName}' credential to limit each n8n process on its own (enough for a single n8n process).`;
}

/** The error the node shows for a shared-limit failure; any other error is returned unchanged. */
export function toSharedLimitNodeError(node: INode, error: unknown, context: { itemIndex?: number; credentialName: string }): unknown {
	if (!isSharedLimitError(error)) return error;
	const description = [error.detail, sharedLimitAdvice(error, context.credentialName)].filter(Boolean).join(' ');
	return new NodeOperationError(node, error.message, { description, itemIndex: context.itemIndex });
}

/** Redis' or the network's reason, without the password, short. */
export function reasonOf(error: unknown, target: RedisTarget): string {
	const raw = error instanceof Error ? error.message : String(error ?? 'unknown error');
	const code = (error as { code?: unknown } | undefined)?.code;
	const text = typeof code === 'string' && !raw.includes(code) ? `${code}: ${raw}` : raw;
	return scrubSecret(text, target.secret).slice(0, 300).replace(/[.\s]+$/, '');
}

export function unreachable(target: RedisTarget, reason: string): SharedLimitError {
	return sharedLimitError(`Shared rate limit: cannot connect to Redis at ${target.display}`, `${reason}.`);
}

export function lost(target: RedisTarget, reason: string): SharedLimitError {
	return sharedLimitError(
		`Shared rate limit: lost the connection to Redis at ${target.display}`,
		`${reason}. The requests already answered were returned; the others were not sent.`,
	);
}

export function redisFailed(target: RedisTarget, reason: string): SharedLimitError {
	return sharedLimitError(`Shared rate limit: Redis at ${target.display} reported an error`, `${reason}.`);
}

export function noTurn(target: RedisTarget, queueTimeoutMs: number): SharedLimitError {
	return sharedLimitError(
		`Shared rate limit: no turn in the shared budget within ${Math.round(queueTimeoutMs / 60_000)} min`,
		`The request waited for the shared budget of this API key (kept in Redis at ${target.display}) and was not sent. Either very many requests of this key are queued across the n8n processes, or a process holding the key's turn stopped answering. Run the workflow again later.`,
		'none',
	);
}

export function invalidUrl(problem: string, hint: string): SharedLimitError {
	return sharedLimitError(problem, hint, 'url');
}
