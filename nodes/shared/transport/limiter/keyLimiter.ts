import type { AnswerKind } from './pacing';

/**
 * The limiter of one API key at one base URL: every request of the package with that key goes
 * through `run`, one at a time, paced by the pacing policy (pacing.ts). Two implementations: the
 * per-process limiter (localLimiter.ts) and the Redis shared limiter of n8n queue mode
 * (shared/sharedLimiter.ts). Get one with `limiterFor` (registry.ts).
 */
export interface KeyLimiter {
	/** `<base URL>#<key hash>`: never the key. */
	readonly id: string;
	/** Runs `send` when the key's pacing allows, one request of the key at a time. */
	run<T>(send: () => Promise<T>, options?: RunOptions<T>): Promise<T>;
	/** Holds every request of this key until `ms` from now. (A 429's Retry-After is applied by `run` itself.) */
	pauseFor(ms: number): void;
	/** When a request of this key was last accepted by the server, as far as this process knows. */
	lastAcceptedAt(): number | undefined;
}

export interface RunOptions<T = unknown> {
	/**
	 * The request must be SENT by this time (Date.now() clock); otherwise it is dropped without sending
	 * and the call rejects with a DeadlineReachedError (deadline.ts).
	 */
	startBy?: number;
	/** An aborted signal (the execution was stopped) drops a request that was not sent yet. */
	signal?: AbortSignal;
	/** How the server answered, read from `send`'s result; default: accepted. */
	answerOf?: (value: T) => ServerAnswer;
	/** Called when a 429 was found to come from another client of the key (at most once per key and minute). */
	onContention?: () => void;
}

export interface ServerAnswer {
	kind: AnswerKind;
	/** A 429's Retry-After, in ms (capped). */
	retryAfterMs?: number;
}
