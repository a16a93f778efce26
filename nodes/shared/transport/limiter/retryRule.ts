/**
 * When a failed attempt is tried again. Pure: the caller gives the time and what it knows.
 *
 * - 429 (rate limited): contention slows a call, it never fails it. The retry waits for the key's
 *   Retry-After pause and pacing (both kept by the limiter), and is tried again as long as a request
 *   of this key was accepted within the last `stallMs` (2 minutes) — counted from the start of the
 *   call when the key was idle before. What ends it otherwise: the call's deadline (deadline.ts,
 *   enforced by the limiter) or the execution being cancelled.
 * - 500/502/503/504, time-outs and dropped connections: a bounded exponential backoff (0.5, 1, 2,
 *   4 s; 5 attempts in all): a server that keeps failing is reported, not hammered.
 * - An unknown host name (ENOTFOUND) does not heal within a retry budget: no retry.
 */

export interface RetryRules {
	/** A 429 is retried while a request of the key was accepted within this time. */
	stallMs: number;
	/** Attempts in all for 5xx, time-outs and network errors. */
	maxServerAttempts: number;
	backoffBaseMs: number;
	backoffMaxMs: number;
}

export const RETRY_RULES: Readonly<RetryRules> = Object.freeze({
	stallMs: 2 * 60_000,
	maxServerAttempts: 5,
	backoffBaseMs: 500,
	backoffMaxMs: 8000,
});

export type FailedAttempt =
	| { kind: 'rateLimited' }
	/** `hintMs`: the server's Retry-After on a 5xx, if any. */
	| { kind: 'serverError'; hintMs?: number }
	| { kind: 'network' | 'timeout' }
	| { kind: 'unknownHost' };

export interface RetryContext {
	now: number;
	/** When the call (its first attempt) started. */
	callStartedAt: number;
	/** The last time a request of this key was accepted (any call, any process sharing the limiter). */
	keyLastAcceptedAt?: number;
	/** 5xx / network / time-out failures of this call so far, this one included. */
	serverFailures: number;
	/** The execution was cancelled (the editor's Stop). */
	cancelled?: boolean;
}

export type RetryDecision =
	| { retry: true; waitMs: number }
	| { retry: false; reason: 'stalled' | 'attempts' | 'notRetryable' | 'cancelled' };

export function backoffMs(attempt: number, rules: RetryRules = RETRY_RULES): number {
	return Math.min(rules.backoffBaseMs * 2 ** (attempt - 1), rules.backoffMaxMs);
}

/** Whether and after how long to try again. `waitMs` is on top of the limiter's own pacing. */
export function retryDecision(failed: FailedAttempt, context: RetryContext, rules: RetryRules = RETRY_RULES): RetryDecision {
	if (context.cancelled) return { retry: false, reason: 'cancelled' };
	switch (failed.kind) {
		case 'rateLimited': {
			const since = Math.max(context.callStartedAt, context.keyLastAcceptedAt ?? -Infinity);
			return context.now - since >= rules.stallMs ? { retry: false, reason: 'stalled' } : { retry: true, waitMs: 0 };
		}
		case 'unknownHost':
			return { retry: false, reason: 'notRetryable' };
		default: {
			if (context.serverFailures >= rules.maxServerAttempts) return { retry: false, reason: 'attempts' };
			const backoff = backoffMs(context.serverFailures, rules);
			const hinted = failed.kind === 'serverError' && failed.hintMs !== undefined ? Math.max(failed.hintMs, backoff) : backoff;
			return { retry: true, waitMs: hinted };
		}
	}
}
