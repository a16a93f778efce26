import Bottleneck from 'bottleneck';

import { MIN_GAP_MS, SAFETY_MARGIN_MS } from '../constants';
import { processSingleton } from './processSingleton';
import { sharedLimiterFor } from './redisLimiter';
import { sleep } from '../utils';
import { deadlineReached } from './deadline';

/**
 * One limiter per (base URL, API key) per process, shared by every node, execution and
 * load-options call.
 *
 * n8n loads each node file of a package on its own, and the build bundles each node file with its
 * own copy of this module, so a module-level Map would give every node its own budget. The registry
 * therefore lives on `globalThis` under a registered symbol: every bundle of this package (and a
 * second copy of the package, should n8n load one) finds the same Map.
 *
 * Pacing has two gates:
 * 1. Bottleneck (`maxConcurrent: 1`, `minTime`): one request at a time, queued fairly across callers.
 * 2. A send-time guard inside the job: `minTime` counts from when Bottleneck starts a job, not from
 *    when the request reaches the server, so a busy event loop or the first-call overhead of n8n's
 *    request helper shrinks the real gap (957 ms measured). The guard waits until MIN_GAP_MS +
 *    SAFETY_MARGIN_MS after the previous response arrived — a point the server has already passed —
 *    and until any Retry-After pause is over.
 * Retries never use Bottleneck's `failed` event (that re-runs a job without `minTime`); the caller
 * schedules each retry as a new job.
 *
 * With a Redis URL in the credential (n8n queue mode), the limiter of a key is shared by every process
 * through Redis instead (redisLimiter.ts); without one, nothing here touches Redis.
 */

export interface RunOptions {
	/**
	 * The job must START by this time (Date.now() clock); otherwise it is dropped from the queue
	 * without sending and the call rejects with a DeadlineReachedError (deadline.ts).
	 */
	startBy?: number;
}

export interface KeyLimiter {
	/** Runs `send` when the key's budget allows, one at a time. */
	run<T>(send: () => Promise<T>, options?: RunOptions): Promise<T>;
	/** Holds every request of this key until `ms` from now (a 429's Retry-After). */
	pauseFor(ms: number): void;
	/** For tests and diagnostics: the Bottleneck instance behind this limiter. */
	readonly bottleneck: Bottleneck;
	readonly id: string;
}

interface Registry {
	limiters: Map<string, KeyLimiter>;
	/** Gap of limiters created from now on (GAP_MS; tests against a faster sandbox lower it). */
	gapMs?: number;
}

function registry(): Registry {
	return processSingleton('n8n-nodes-booking-requests.limiter-registry.v1', () => ({ limiters: new Map() }));
}

export const GAP_MS = MIN_GAP_MS + SAFETY_MARGIN_MS;

/**
 * For tests only: volume tests run the sandbox with a shorter rate gap (correctness does not need the
 * real 1 s) and pace this process to match. Applies to per-process limiters created afterwards.
 */
export function setPacingGapForTests(gapMs: number): void {
	registry().gapMs = gapMs;
	registry().limiters.clear();
}

function createKeyLimiter(id: string, gapMs: number): KeyLimiter {
	const bottleneck = new Bottleneck({ maxConcurrent: 1, minTime: gapMs, id: `booking-requests-${id}` });
	let lastResponseAt = 0;
	let pausedUntil = 0;

	async function guardedSend<T>(send: () => Promise<T>, startBy: number): Promise<T> {
		for (;;) {
			const sendAt = Math.max(lastResponseAt + gapMs, pausedUntil);
			if (sendAt > startBy) throw deadlineReached('the key had a free turn');
			const wait = sendAt - Date.now();
			if (wait <= 0) break;
			await sleep(wait);
		}
		try {
			return await send();
		} finally {
			lastResponseAt = Date.now();
		}
	}

	return {
		id,
		bottleneck,
		async run<T>(send: () => Promise<T>, options: RunOptions = {}): Promise<T> {
			const startBy = options.startBy ?? Infinity;
			if (startBy === Infinity) return await bottleneck.schedule(async () => await guardedSend(send, startBy));
			// A job still queued at its deadline is dropped: it rejects now and sends nothing when its turn comes.
			let dropped = false;
			let timer: ReturnType<typeof setTimeout> | undefined;
			const expired = new Promise<never>((_, reject) => {
				timer = setTimeout(() => {
					dropped = true;
					reject(deadlineReached('the key had a free turn'));
				}, Math.max(0, startBy - Date.now()));
			});
			expired.catch(() => undefined);
			const job = bottleneck.schedule(async () => {
				if (dropped) return undefined as T;
				clearTimeout(timer);
				return await guardedSend(send, startBy);
			});
			try {
				return await Promise.race([job, expired]);
			} finally {
				clearTimeout(timer);
			}
		},
		pauseFor(ms: number) {
			pausedUntil = Math.max(pausedUntil, Date.now() + ms);
		},
	};
}

/**
 * The limiter for one API key at one base URL. `keyId` is a hash of the key (see keyId.ts): the raw
 * key is never part of a limiter id. With `redisUrl` (the credential's "Shared Rate Limit: Redis URL"),
 * the limiter is shared through that Redis by every process using the key.
 */
export function limiterFor(baseUrl: string, keyId: string, redisUrl?: string): KeyLimiter {
	if (redisUrl) return sharedLimiterFor(redisUrl, baseUrl, keyId);
	const id = `${baseUrl}#${keyId}`;
	const { limiters } = registry();
	let limiter = limiters.get(id);
	if (!limiter) {
		limiter = createKeyLimiter(id, registry().gapMs ?? GAP_MS);
		limiters.set(id, limiter);
	}
	return limiter;
}

/** Ids of the limiters alive in this process (hashes only), for tests and diagnostics. */
export function limiterIds(): string[] {
	return [...registry().limiters.keys()];
}
