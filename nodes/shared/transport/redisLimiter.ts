import Bottleneck from 'bottleneck';
import IORedis from 'ioredis';
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MIN_GAP_MS, SAFETY_MARGIN_MS } from '../constants';
import { deadlineReached } from './deadline';
import type { KeyLimiter, RunOptions } from './limiterRegistry';
import { processSingleton } from './processSingleton';
import type { RedisTarget } from './redisUrl';
import { parseRedisUrl, scrubSecret } from './redisUrl';
import { sleep } from '../utils';

/**
 * The shared limiter of n8n queue mode: when the credential names a Redis, every process (main and
 * workers) that uses the same API key at the same base URL draws on one budget of 1 request per second.
 *
 * Each (Redis URL, base URL, key) gets a Bottleneck limiter in clustering mode (`maxConcurrent: 1`,
 * `minTime`), whose state lives in Redis under an id built from the key's hash, never the key. The
 * spacing is enforced across processes the same way the per-process limiter does it: the job that
 * sends a request keeps the key's single cluster-wide slot until GAP_MS after that request's response
 * arrived (or a Retry-After pause is over). The next request of any process can only be registered
 * after that, so the server sees at least GAP_MS between two requests whatever the event loops and
 * network delays of the processes. (Bottleneck's `minTime` alone counts from when Redis registers a
 * job, before the request leaves its process.) The caller gets its response at once; only the slot is
 * held.
 *
 * Failure is loud, never a fallback to "no limit": if Redis cannot be reached, stops answering or the
 * connection drops, every request that has not been sent yet fails with an error that names the Redis
 * URL (without its password). A request already on its way completes and is returned normally.
 *
 * Connections: one ioredis client plus one subscriber per Redis URL, shared by all keys and by every
 * bundle of this package in the process (the registry lives on `globalThis`, like the per-process one),
 * closed after `idleCloseMs` without any request. Bottleneck's Redis keys expire `keyTtlMs` after the
 * last request; a limiter whose keys expired (or were deleted) re-creates them — that recovery needs
 * the build's patch of Bottleneck 2.19.5 for Redis 7 (patches/bottleneck+2.19.5.patch).
 */

export interface SharedLimitSettings {
	/** Hold of the cluster-wide slot after each response (same gap as the per-process limiter). */
	gapMs: number;
	/** Bottleneck `minTime`, enforced in Redis from each job's registration: a second gate. */
	minTimeMs: number;
	/** TCP connect and ready check of a new Redis connection. */
	connectTimeoutMs: number;
	/** Any single Redis command; a Redis that stops answering fails the requests waiting on it. */
	commandTimeoutMs: number;
	/** A connection without any request for this long is closed. */
	idleCloseMs: number;
	/** Bottleneck's Redis keys of a key's limiter expire this long after its last request. */
	keyTtlMs: number;
	/** Backstop: a request that waited this long for the shared budget fails instead of waiting on. */
	queueTimeoutMs: number;
	/**
	 * Bottleneck job expiration: a process that stops (killed, or exits) while it holds the key's turn
	 * blocks the others for at most this long. A request has long reached the server by then, so a
	 * turn freed early does not bring two requests closer than the gap; only an unusually long
	 * Retry-After pause (the contract says 1 s) would then no longer hold back the other processes.
	 */
	jobExpirationMs: number;
}

export const SHARED_LIMIT_DEFAULTS: Readonly<SharedLimitSettings> = Object.freeze({
	gapMs: MIN_GAP_MS + SAFETY_MARGIN_MS,
	minTimeMs: MIN_GAP_MS + SAFETY_MARGIN_MS,
	connectTimeoutMs: 5_000,
	commandTimeoutMs: 5_000,
	idleCloseMs: 60_000,
	keyTtlMs: 10 * 60_000,
	queueTimeoutMs: 10 * 60_000,
	jobExpirationMs: 10_000,
});

/** Prefix of the Bottleneck ids (Redis keys `b_<id>_…`); bump the version when the settings change. */
export const SHARED_LIMIT_ID_PREFIX = 'n8n-booking-requests:v1:';
/** CLIENT SETNAME of this package's Redis connections (visible in `CLIENT LIST`). */
export const REDIS_CONNECTION_NAME = 'n8n-nodes-booking-requests';

// ---------------------------------------------------------------------------------------------------
// Errors: marked with a registered symbol so that every bundle recognises them (no instanceof).

const SHARED_LIMIT_ERROR = Symbol.for('n8n-nodes-booking-requests.shared-limit-error');

export interface SharedLimitError extends Error {
	description: string;
	[SHARED_LIMIT_ERROR]: true;
}

function sharedLimitError(message: string, description: string): SharedLimitError {
	const error = new Error(message) as SharedLimitError;
	error.name = 'SharedLimitError';
	error.description = description;
	error[SHARED_LIMIT_ERROR] = true;
	return error;
}

export function isSharedLimitError(error: unknown): error is SharedLimitError {
	return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[SHARED_LIMIT_ERROR] === true;
}

/** The error the node shows for a shared-limit failure; any other error is returned unchanged. */
export function toSharedLimitNodeError(node: INode, error: unknown, itemIndex?: number): unknown {
	if (!isSharedLimitError(error)) return error;
	return new NodeOperationError(node, error.message, { description: error.description, itemIndex });
}

const NOT_SENT =
	'Requests with this API key are not sent while the shared budget is unavailable, so that the n8n processes never exceed 1 request per second together.';
const FIX =
	'Check that Redis is running and reachable from every n8n process (main and workers), or clear "Shared Rate Limit: Redis URL" in the credential to limit each n8n process on its own (enough for a single n8n process).';

function reasonOf(error: unknown, target: RedisTarget): string {
	const raw = error instanceof Error ? error.message : String(error ?? 'unknown error');
	const code = (error as { code?: unknown } | undefined)?.code;
	const text = typeof code === 'string' && !raw.includes(code) ? `${code}: ${raw}` : raw;
	return scrubSecret(text, target.secret).slice(0, 300).replace(/[.\s]+$/, '');
}

function unreachable(target: RedisTarget, reason: string): SharedLimitError {
	return sharedLimitError(`Shared rate limit: cannot connect to Redis at ${target.display}`, `${reason}. ${NOT_SENT} ${FIX}`);
}

function lost(target: RedisTarget, reason: string): SharedLimitError {
	return sharedLimitError(
		`Shared rate limit: lost the connection to Redis at ${target.display}`,
		`${reason}. The requests already answered were returned; the others were not sent. ${NOT_SENT} ${FIX}`,
	);
}

function redisFailed(target: RedisTarget, reason: string): SharedLimitError {
	return sharedLimitError(`Shared rate limit: Redis at ${target.display} reported an error`, `${reason}. ${NOT_SENT} ${FIX}`);
}

// ---------------------------------------------------------------------------------------------------
// Registry

interface Waiter {
	settled: boolean;
	fail(error: Error): void;
}

interface RedisLink {
	target: RedisTarget;
	connection: Bottleneck.IORedisConnection;
	clients: IORedis[];
	ready: Promise<void>;
	rejectReady(error: SharedLimitError): void;
	/** Set once the link is unusable; it is then no longer in the registry. */
	failure?: SharedLimitError;
	closed: boolean;
	/** Requests scheduled and not finished (including the slot hold and Bottleneck's `free`). */
	busy: number;
	idleTimer?: ReturnType<typeof setTimeout>;
	instances: Set<LimiterInstance>;
}

interface LimiterInstance {
	link: RedisLink;
	bottleneck: Bottleneck;
	/** Requests queued and not started: they are failed when the link fails or Redis reports an error. */
	waiting: Set<Waiter>;
}

interface SharedRegistry {
	settings: SharedLimitSettings;
	links: Map<string, RedisLink>;
	limiters: Map<string, SharedKeyLimiter>;
}

function registry(): SharedRegistry {
	return processSingleton('n8n-nodes-booking-requests.shared-limiter-registry.v1', () => ({
		settings: { ...SHARED_LIMIT_DEFAULTS },
		links: new Map(),
		limiters: new Map(),
	}));
}

/** For tests and diagnostics: changes timings of connections and limiters created from now on. */
export function configureSharedLimits(settings: Partial<SharedLimitSettings>): SharedLimitSettings {
	const reg = registry();
	reg.settings = { ...reg.settings, ...settings };
	return { ...reg.settings };
}

async function waitUntil(deadline: () => number): Promise<void> {
	for (;;) {
		const wait = deadline() - Date.now();
		if (wait <= 0) return;
		await sleep(wait);
	}
}

// ---------------------------------------------------------------------------------------------------
// Connections

function linkFor(target: RedisTarget): RedisLink {
	const reg = registry();
	const existing = reg.links.get(target.url);
	if (existing && !existing.failure && !existing.closed) return existing;
	const link = openLink(target, reg.settings);
	reg.links.set(target.url, link);
	return link;
}

function openLink(target: RedisTarget, settings: SharedLimitSettings): RedisLink {
	const client = new IORedis(target.url, {
		connectionName: REDIS_CONNECTION_NAME,
		connectTimeout: settings.connectTimeoutMs,
		commandTimeout: settings.commandTimeoutMs,
		// No reconnecting and no offline queue: a lost connection fails what waits on it at once (the
		// next request opens a new connection), instead of holding requests or replaying scripts later.
		retryStrategy: () => null,
		enableOfflineQueue: false,
		maxRetriesPerRequest: 0,
		autoResendUnfulfilledCommands: false,
	});
	// Bottleneck's connection object: makes the subscriber (client.duplicate()) and loads the scripts.
	const connection = new Bottleneck.IORedisConnection({ Redis: IORedis, client });
	const subscriber = (connection as unknown as { subscriber: IORedis }).subscriber;

	let resolveReady!: () => void;
	let rejectReady!: (error: SharedLimitError) => void;
	const ready = new Promise<void>((resolve, reject) => {
		resolveReady = resolve;
		rejectReady = reject;
	});
	ready.catch(() => undefined);
	const link: RedisLink = {
		target,
		connection,
		clients: [client, subscriber],
		ready,
		rejectReady,
		closed: false,
		busy: 0,
		instances: new Set(),
	};

	let isReady = false;
	let lastError: unknown;
	// ioredis' connectTimeout covers the TCP connect only; a server that accepts and never answers is
	// caught here.
	const readyTimer = setTimeout(() => {
		const reason = lastError ? reasonOf(lastError, target) : `no answer within ${Math.round(settings.connectTimeoutMs / 1000)} s`;
		failLink(link, unreachable(target, reason));
	}, settings.connectTimeoutMs + 1000);
	(connection as unknown as { ready: Promise<unknown> }).ready.then(() => {
		clearTimeout(readyTimer);
		if (link.failure || link.closed) return;
		isReady = true;
		resolveReady();
	});
	connection.on('error', () => undefined);
	for (const redis of link.clients) {
		redis.on('error', (error: unknown) => {
			lastError = error;
		});
		redis.on('end', () => {
			clearTimeout(readyTimer);
			if (link.closed || link.failure) return;
			const reason = lastError ? reasonOf(lastError, target) : 'the connection was closed';
			failLink(link, isReady ? lost(target, reason) : unreachable(target, reason));
		});
	}
	return link;
}

/** Makes the link unusable: fails every request not sent yet, drops the Redis connections. */
function failLink(link: RedisLink, error: SharedLimitError): void {
	if (link.failure || link.closed) return;
	link.failure = error;
	const reg = registry();
	if (reg.links.get(link.target.url) === link) reg.links.delete(link.target.url);
	if (link.idleTimer) clearTimeout(link.idleTimer);
	link.rejectReady(error);
	for (const instance of link.instances) {
		failWaiting(instance, error);
		// Drop Bottleneck's own queue (those jobs would send nothing anyway) and its timers.
		instance.bottleneck.stop({ dropWaitingJobs: true }).catch(() => undefined);
	}
	link.instances.clear();
	// Sets the connection's `terminated` flag first, so no limiter later tries to unsubscribe on it.
	link.connection.disconnect(false).catch(() => undefined);
}

/** Closes an idle link gracefully; the next request opens a new one. */
function closeLink(link: RedisLink): Promise<void> {
	if (link.failure || link.closed) return Promise.resolve();
	link.closed = true;
	const reg = registry();
	if (reg.links.get(link.target.url) === link) reg.links.delete(link.target.url);
	if (link.idleTimer) clearTimeout(link.idleTimer);
	const closedError = lost(link.target, 'the connection was closed');
	link.rejectReady(closedError);
	for (const instance of link.instances) {
		failWaiting(instance, closedError);
		instance.bottleneck.stop({ dropWaitingJobs: true }).catch(() => undefined);
	}
	link.instances.clear();
	return link.connection.disconnect(true).then(
		() => undefined,
		() => undefined,
	);
}

function failWaiting(instance: LimiterInstance, error: SharedLimitError): void {
	for (const waiter of [...instance.waiting]) waiter.fail(error);
	instance.waiting.clear();
}

function markBusy(link: RedisLink): void {
	link.busy++;
	if (link.idleTimer) {
		clearTimeout(link.idleTimer);
		link.idleTimer = undefined;
	}
}

function markDone(link: RedisLink): void {
	link.busy--;
	if (link.busy > 0 || link.failure || link.closed) return;
	const timer = setTimeout(() => {
		if (link.busy === 0) void closeLink(link);
	}, registry().settings.idleCloseMs);
	timer.unref?.();
	link.idleTimer = timer;
}

/**
 * Closes every shared-limit connection of this process (tests, shutdown). Requests not sent yet fail;
 * a request under way finishes first, and its turn is given back in Redis (closing earlier would
 * leave the turn taken, for the other processes, until the job expiration).
 */
export async function closeSharedLimits(graceMs = registry().settings.gapMs + 2000): Promise<void> {
	const links = [...registry().links.values()];
	for (const link of links) for (const instance of link.instances) failWaiting(instance, lost(link.target, 'the connection was closed'));
	const deadline = Date.now() + graceMs;
	while (links.some((link) => link.busy > 0 && !link.failure && !link.closed) && Date.now() < deadline) await sleep(10);
	await Promise.all(links.map(async (link) => await closeLink(link)));
}

/** For tests and diagnostics: Redis URLs (without password) with an open connection in this process. */
export function openSharedLimitConnections(): string[] {
	return [...registry().links.values()].map((link) => link.target.display);
}

// ---------------------------------------------------------------------------------------------------
// Limiters

class SharedKeyLimiter implements KeyLimiter {
	private pausedUntil = 0;
	private instance?: LimiterInstance;

	constructor(
		readonly id: string,
		private readonly target: RedisTarget,
		private readonly bottleneckId: string,
	) {}

	get bottleneck(): Bottleneck {
		return this.instance?.bottleneck as Bottleneck;
	}

	pauseFor(ms: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
	}

	async run<T>(send: () => Promise<T>, options: RunOptions = {}): Promise<T> {
		const startBy = options.startBy ?? Infinity;
		const instance = this.currentInstance();
		const { link } = instance;
		markBusy(link);
		// Rejects with the SharedLimitError when Redis cannot be reached (a link that fails later makes
		// Bottleneck reject the job below, and the waiter gets the link's error).
		await link.ready.catch((error: unknown) => {
			markDone(link);
			return Promise.reject(error);
		});
		const settings = registry().settings;
		return await new Promise<T>((resolve, reject) => {
			const waiter: Waiter = {
				settled: false,
				fail: (error) => {
					if (waiter.settled) return;
					waiter.settled = true;
					clearTimeout(queueTimer);
					instance.waiting.delete(waiter);
					reject(error);
				},
			};
			const queueWaitMs = Math.min(settings.queueTimeoutMs, Math.max(0, startBy - Date.now()));
			const queueTimer = setTimeout(() => {
				if (queueWaitMs < settings.queueTimeoutMs) {
					waiter.fail(deadlineReached('the key had a free turn'));
					return;
				}
				waiter.fail(
					sharedLimitError(
						`Shared rate limit: no turn in the shared budget within ${Math.round(settings.queueTimeoutMs / 60_000)} min`,
						`The request waited for the shared budget of this API key (kept in Redis at ${this.target.display}) and was not sent. Either very many requests of this key are queued across the n8n processes, or a process holding the key's turn stopped answering. Run the workflow again later.`,
					),
				);
			}, queueWaitMs);
			instance.waiting.add(waiter);

			const job = async (): Promise<void> => {
				if (waiter.settled) return; // failed or timed out while queued: send nothing
				waiter.settled = true;
				clearTimeout(queueTimer);
				instance.waiting.delete(waiter);
				if (this.pausedUntil > startBy) {
					reject(deadlineReached('the key had a free turn'));
					return;
				}
				await waitUntil(() => this.pausedUntil);
				if (link.failure || link.closed) {
					reject(link.failure ?? lost(this.target, 'the connection was closed'));
					return;
				}
				try {
					resolve(await send());
				} catch (error) {
					reject(error);
				}
				// Keep the key's cluster-wide slot until the gap after this response (and any Retry-After
				// pause the caller sets on seeing the response) is over.
				const answeredAt = Date.now();
				await waitUntil(() => Math.max(answeredAt + settings.gapMs, this.pausedUntil));
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

	private currentInstance(): LimiterInstance {
		const current = this.instance;
		if (current && !current.link.failure && !current.link.closed) return current;
		const link = linkFor(this.target);
		const settings = registry().settings;
		const bottleneck = new Bottleneck({
			id: this.bottleneckId,
			datastore: 'ioredis',
			connection: link.connection,
			Redis: IORedis,
			clearDatastore: false,
			maxConcurrent: 1,
			minTime: settings.minTimeMs,
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
		link.instances.add(instance);
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

	get bottleneck(): Bottleneck {
		return undefined as unknown as Bottleneck;
	}

	pauseFor(): void {}

	async run<T>(): Promise<T> {
		throw this.error;
	}
}

/**
 * The shared limiter of one API key at one base URL, through the Redis at `redisUrl`. `keyId` is the
 * key's hash: the Redis keys are named `b_n8n-booking-requests:v1:<base URL>#<key hash>_…`.
 */
export function sharedLimiterFor(redisUrl: string, baseUrl: string, keyId: string): KeyLimiter {
	const id = `${baseUrl}#${keyId}`;
	const parsed = parseRedisUrl(redisUrl);
	if (!('url' in parsed)) {
		return new InvalidSharedLimiter(id, sharedLimitError(parsed.problem, `${parsed.hint} ${NOT_SENT}`));
	}
	const { limiters } = registry();
	const registryKey = `${parsed.url}\n${id}`;
	let limiter = limiters.get(registryKey);
	if (!limiter) {
		limiter = new SharedKeyLimiter(id, parsed, `${SHARED_LIMIT_ID_PREFIX}${id}`);
		limiters.set(registryKey, limiter);
	}
	return limiter;
}

/** For tests and diagnostics: the Bottleneck ids (as used in Redis) of the shared limiters of this process. */
export function sharedLimiterIds(): string[] {
	return [...registry().limiters.keys()].map((key) => `${SHARED_LIMIT_ID_PREFIX}${key.split('\n')[1]}`);
}
