import Bottleneck from 'bottleneck';

import { deadlineReached } from '../deadline';
import type { KeyLimiter, RunOptions } from './keyLimiter';
import { KeyPacer, abortError, takeTurn, waitUntil, type TurnStore } from './pacedTurn';
import { INITIAL_KEY_STATE, type KeyState, type PacingPolicy } from './pacing';

/**
 * The per-process limiter of one key (no Redis URL in the credential): every node, execution,
 * trigger and list lookup of this n8n process using the key.
 *
 * Two parts with separate jobs:
 * - Bottleneck is the queue: `maxConcurrent: 1` (one request of the key at a time), FIFO across all
 *   callers, and `minTime: 0` — it does no spacing of its own.
 * - The pacing policy (pacing.ts, through takeTurn) does all the spacing, inside the job: it waits
 *   until the send time computed from the previous answer, the round trips seen and any Retry-After.
 * A 429 is retried by the caller (request.ts) as a new job, never through Bottleneck's `failed` event.
 */
export function createLocalLimiter(id: string, policy: PacingPolicy): KeyLimiter {
	const bottleneck = new Bottleneck({ maxConcurrent: 1, minTime: 0, id: `booking-requests-${id}` });
	const pacer = new KeyPacer(policy);
	let state: KeyState = { ...INITIAL_KEY_STATE };
	const store: TurnStore = {
		read: () => state,
		// A pauseFor() that came while the turn was held is kept.
		write: (next) => {
			state = { ...next, pausedUntil: Math.max(next.pausedUntil, state.pausedUntil) };
		},
	};

	return {
		id,
		async run<T>(send: () => Promise<T>, options: RunOptions<T> = {}): Promise<T> {
			return await queued(bottleneck, options, async () => {
				const outcome = await takeTurn(pacer, store, send, options);
				if (outcome.kind !== 'sent') throw new Error('unreachable: a local turn has no wait limit');
				return outcome.value;
			});
		},
		pauseFor(ms: number) {
			state = { ...state, pausedUntil: Math.max(state.pausedUntil, Date.now() + ms) };
		},
		lastAcceptedAt: () => state.lastAcceptedAt,
	};
}

/**
 * Schedules `job` on the queue. A job still queued at `startBy`, or when `signal` aborts, is dropped:
 * the call rejects at once and the job sends nothing when its turn comes.
 */
async function queued<T>(bottleneck: Bottleneck, options: RunOptions<T>, job: () => Promise<T>): Promise<T> {
	const startBy = options.startBy ?? Infinity;
	const { signal } = options;
	if (signal?.aborted) throw abortError();
	if (startBy === Infinity && !signal) return await bottleneck.schedule(job);

	let dropped = false;
	let reject!: (error: Error) => void;
	const expired = new Promise<never>((_, fail) => {
		reject = fail;
	});
	expired.catch(() => undefined);
	const drop = (error: Error) => {
		dropped = true;
		reject(error);
	};
	// The deadline is a sleep until `startBy` (n8n-workflow's sleep, see waitUntil), cancelled when the
	// job starts or the call is over.
	const watcher = new AbortController();
	if (startBy !== Infinity) {
		waitUntil(startBy, watcher.signal).then(
			() => drop(deadlineReached('the key had a free turn')),
			() => undefined,
		);
	}
	const onAbort = () => drop(abortError());
	signal?.addEventListener('abort', onAbort, { once: true });
	const cleanUp = () => {
		watcher.abort();
		signal?.removeEventListener('abort', onAbort);
	};
	const scheduled = bottleneck.schedule(async () => {
		if (dropped) return undefined as T;
		cleanUp();
		return await job();
	});
	try {
		return await Promise.race([scheduled, expired]);
	} finally {
		cleanUp();
	}
}
