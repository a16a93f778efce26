import Bottleneck from 'bottleneck';
import IORedis from 'ioredis';

import { deadlineReached } from '../../nodes/shared/transport/deadline';
import type { KeyLimiter, RunOptions } from '../../nodes/shared/transport/limiter/keyLimiter';
import { KeyPacer, abortError, takeTurn, waitUntil, type TurnOutcome, type TurnStore } from '../../nodes/shared/transport/limiter/pacedTurn';
import { INITIAL_KEY_STATE, policyForGap, type KeyState } from '../../nodes/shared/transport/limiter/pacing';
import { failLink, linkFor, markBusy, markDone, sharedRegistry, type RedisLink } from './connection';
import { invalidUrl, isSharedLimitError, lost, noTurn, reasonOf, redisFailed, type SharedLimitError } from '../../nodes/shared/transport/limiter/shared/errors';
import { parseRedisUrl, type RedisTarget } from '../../nodes/shared/transport/limiter/shared/redisUrl';

/**
 * The shared limiter of n8n queue mode: when the credential names a Redis, every process (main and
 * workers) using the same API key at the same base URL draws on one budget of 1 request per second,
 * paced by the same policy as the per-process limiter (pacing.ts).
 *
 * - The turn: a Bottleneck limiter in clustering mode (`maxConcurrent: 1`, `minTime: 0`), whose state
 *   lives in Redis under an id built from the key's hash: one request of the key in flight across all
 *   processes. A process holds the turn from its wait before sending until the answer arrives, then
 *   gives it back at once; the next process can already queue and sleep to its own send time. Job
 *   expiration gives a dead process's turn back (`jobExpirationMs`).
 * - The pacing state: the policy needs the key's previous request even when another process sent it,
 *   so the KeyState (previous answer time and that process's round-trip lower bound, Retry-After pause,
 *   contention widening) is read from Redis when the turn is taken and written back before it is given
 *   back, in the key `<prefix><base URL>#<key hash>:pacing`, expiring like Bottleneck's keys.
 * - Assumptions (docs/guides/queue-mode.md): the processes' clocks agree within a few ms (the state holds absolute times;
 *   one host, or NTP); processes reach the API over similar routes (the smaller of two processes'
 *   round-trip bounds is used, which is safe when the part of the round trip before the server is
 *   about the same share for both).
 *
 * Failure is loud, never a fallback to "no limit": if Redis cannot be reached, stops answering or the
 * connection drops, every request that has not been sent yet fails with an error that names the Redis
 * URL (without its password). A request already on its way completes and is returned normally.
 * Bottleneck's keys that expired (or were deleted) are re-created — that needs the build's patch of
 * Bottleneck 2.19.5 for Redis 7 (patches/bottleneck+2.19.5.patch).
 */

/** Prefix of the Redis keys (Bottleneck's `b_<id>_…` and `<id>:pacing`); bump the version when their meaning changes. */
export const SHARED_LIMIT_ID_PREFIX = 'n8n-booking-requests:v2:';

/** A queued request sends this much before its computed time so that it has the turn by then. */
const REQUEUE_LEAD_MS = 50;

interface Waiter {
	settled: boolean;
	fail(error: Error): void;
}

interface LimiterInstance {
	link: RedisLink;
	bottleneck: Bottleneck;
	/** Requests queued and not started: they are failed when the link fails or Redis reports an error. */
	waiting: Set<Waiter>;
}

function failWaiting(instance: LimiterInstance, error: SharedLimitError): void {
	for (const waiter of [...instance.waiting]) waiter.fail(error);
	instance.waiting.clear();
}

const NUMBER_FIELDS = ['lastAnsweredAt', 'lastLowerBoundMs', 'pausedUntil', 'extraGapMs', 'holdWideUntil', 'cautionMs', 'acceptedStreak', 'rejectedStreak', 'last429At', 'lastAcceptedAt'] as const;

/** The stored KeyState; anything unreadable counts as absent (the key then starts fresh: L = 0). */
export function parseKeyState(raw: string | null): KeyState {
	if (!raw) return { ...INITIAL_KEY_STATE };
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw);
	} catch {
		return { ...INITIAL_KEY_STATE };
	}
	const state: KeyState = { ...INITIAL_KEY_STATE };
	if (typeof parsed !== 'object' || parsed === null) return state;
	for (const field of NUMBER_FIELDS) {
		const value = (parsed as Record<string, unknown>)[field];
		if (typeof value === 'number' && Number.isFinite(value)) (state as unknown as Record<string, number>)[field] = value;
	}
	return state;
}

class SharedKeyLimiter implements KeyLimiter {
	private instance?: LimiterInstance;
	private pausedUntil = 0;
	private known?: KeyState;
	private readonly pacer: KeyPacer;
	private readonly stateKey: string;

	constructor(
		readonly id: string,
		private readonly target: RedisTarget,
		private readonly bottleneckId: string,
		gapMs: number,
	) {
		this.pacer = new KeyPacer(policyForGap(gapMs));
		this.stateKey = `${bottleneckId}:pacing`;
	}

	pauseFor(ms: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
	}

	lastAcceptedAt(): number | undefined {
		return this.known?.lastAcceptedAt;
	}

	async run<T>(send: () => Promise<T>, options: RunOptions<T> = {}): Promise<T> {
		for (;;) {
			const outcome = await this.turn(send, options);
			if (outcome.kind === 'sent') return outcome.value;
			// A long wait (Retry-After): wait without holding the key's turn, then queue again.
			if (outcome.notBefore > (options.startBy ?? Infinity)) throw deadlineReached('the key had a free turn');
			await waitUntil(outcome.notBefore - REQUEUE_LEAD_MS, options.signal);
		}
	}

	/** Queues for the key's cluster-wide turn and takes it (takeTurn); resolves when the turn is over. */
	private async turn<T>(send: () => Promise<T>, options: RunOptions<T>): Promise<TurnOutcome<T>> {
		const startBy = options.startBy ?? Infinity;
		if (options.signal?.aborted) throw abortError();
		const instance = this.currentInstance();
		const { link } = instance;
		markBusy(link);
		// Rejects with the SharedLimitError when Redis cannot be reached (a link that fails later makes
		// Bottleneck reject the job below, and the waiter gets the link's error).
		await link.ready.catch((error: unknown) => {
			markDone(link);
			return Promise.reject(error);
		});
		const settings = sharedRegistry().settings;
		return await new Promise<TurnOutcome<T>>((resolve, reject) => {
			const onAbort = () => waiter.fail(abortError());
			const waiter: Waiter = {
				settled: false,
				fail: (error) => {
					if (waiter.settled) return;
					waiter.settled = true;
					clearTimeout(queueTimer);
					options.signal?.removeEventListener('abort', onAbort);
					instance.waiting.delete(waiter);
					reject(error);
				},
			};
			const queueWaitMs = Math.min(settings.queueTimeoutMs, Math.max(0, startBy - Date.now()));
			const queueTimer = setTimeout(() => {
				waiter.fail(queueWaitMs < settings.queueTimeoutMs ? deadlineReached('the key had a free turn') : noTurn(this.target, settings.queueTimeoutMs));
			}, queueWaitMs);
			options.signal?.addEventListener('abort', onAbort, { once: true });
			instance.waiting.add(waiter);

			const job = async (): Promise<void> => {
				if (waiter.settled) return; // failed or timed out while queued: send nothing
				waiter.settled = true;
				clearTimeout(queueTimer);
				options.signal?.removeEventListener('abort', onAbort);
				instance.waiting.delete(waiter);
				try {
					const beforeSend = () => link.failure ?? (link.closed ? lost(this.target, 'the connection was closed') : undefined);
					resolve(await takeTurn(this.pacer, this.store(link), send, { ...options, maxWaitMs: settings.maxWaitInTurnMs, beforeSend }));
				} catch (error) {
					reject(error);
				}
			};
			instance.bottleneck
				.schedule({ expiration: settings.jobExpirationMs }, job)
				.catch((error: unknown) => {
					if (isSharedLimitError(error)) waiter.fail(error);
					else if (link.failure) waiter.fail(link.failure);
					else waiter.fail(redisFailed(this.target, reasonOf(error, this.target)));
				})
				.finally(() => markDone(link));
		});
	}

	/** The key's pacing state in Redis, read and written while this process holds the turn. */
	private store(link: RedisLink): TurnStore {
		const client = link.clients[0];
		const settings = sharedRegistry().settings;
		return {
			read: async () => {
				let raw: string | null;
				try {
					raw = await client.get(this.stateKey);
				} catch (error) {
					throw link.failure ?? redisFailed(this.target, reasonOf(error, this.target));
				}
				const stored = parseKeyState(raw);
				this.known = { ...stored, pausedUntil: Math.max(stored.pausedUntil, this.pausedUntil) };
				return this.known;
			},
			write: async (next) => {
				this.known = next;
				try {
					await client.set(this.stateKey, JSON.stringify(next), 'PX', settings.keyTtlMs);
				} catch (error) {
					// This request was answered and is returned; without the shared state the others must not send.
					failLink(link, link.failure ?? redisFailed(this.target, reasonOf(error, this.target)));
				}
			},
		};
	}

	private currentInstance(): LimiterInstance {
		const current = this.instance;
		if (current && !current.link.failure && !current.link.closed) return current;
		const link = linkFor(this.target);
		const settings = sharedRegistry().settings;
		const bottleneck = new Bottleneck({
			id: this.bottleneckId,
			datastore: 'ioredis',
			connection: link.connection,
			Redis: IORedis,
			clearDatastore: false,
			// The queue and the cluster-wide turn only; the pacing policy does the spacing.
			maxConcurrent: 1,
			minTime: 0,
			timeout: settings.keyTtlMs,
		});
		const instance: LimiterInstance = { link, bottleneck, waiting: new Set() };
		// A failed start (Redis gone) is reported through the requests; never as an unhandled rejection.
		bottleneck.ready().catch(() => undefined);
		bottleneck.on('error', (error: unknown) => {
			if (link.failure || link.closed) return;
			if (link.clients.some((client) => client.status !== 'ready')) {
				failLink(link, lost(this.target, reasonOf(error, this.target)));
				return;
			}
			// A Redis error Bottleneck could not recover from may leave queued jobs waiting forever:
			// fail them now with the reason rather than let them hang.
			failWaiting(instance, redisFailed(this.target, reasonOf(error, this.target)));
		});
		link.onDown.add((error, final) => {
			failWaiting(instance, error);
			// Drop Bottleneck's own queue (those jobs would send nothing anyway) and its timers.
			if (final) instance.bottleneck.stop({ dropWaitingJobs: true }).catch(() => undefined);
		});
		this.instance = instance;
		return instance;
	}
}

/** Always fails: the credential's Redis URL cannot be used. Nothing is sent. */
class InvalidSharedLimiter implements KeyLimiter {
	constructor(
		readonly id: string,
		private readonly error: SharedLimitError,
	) {}

	pauseFor(): void {}

	lastAcceptedAt(): undefined {
		return undefined;
	}

	async run<T>(): Promise<T> {
		throw this.error;
	}
}

/**
 * The shared limiter of one API key at one base URL, through the Redis at `redisUrl`. `keyId` is the
 * key's hash: the Redis keys are named `…n8n-booking-requests:v2:<base URL>#<key hash>…`.
 */
export function sharedLimiterFor(redisUrl: string, baseUrl: string, keyId: string): KeyLimiter {
	const id = `${baseUrl}#${keyId}`;
	const parsed = parseRedisUrl(redisUrl);
	if (!('url' in parsed)) return new InvalidSharedLimiter(id, invalidUrl(parsed.problem, parsed.hint));
	const { limiters, settings } = sharedRegistry();
	const registryKey = `${parsed.url}\n${id}`;
	let limiter = limiters.get(registryKey);
	if (!limiter) {
		limiter = new SharedKeyLimiter(id, parsed, `${SHARED_LIMIT_ID_PREFIX}${id}`, settings.gapMs);
		limiters.set(registryKey, limiter);
	}
	return limiter;
}

/** For tests and diagnostics: the Bottleneck ids (as used in Redis) of the shared limiters of this process. */
export function sharedLimiterIds(): string[] {
	return [...sharedRegistry().limiters.keys()].map((key) => `${SHARED_LIMIT_ID_PREFIX}${key.split('\n')[1]}`);
}
