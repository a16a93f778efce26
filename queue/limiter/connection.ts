import Bottleneck from 'bottleneck';
import IORedis from 'ioredis';

import { sleep } from '../../nodes/shared/utils';
import type { KeyLimiter } from '../../nodes/shared/transport/limiter/keyLimiter';
import { lost, reasonOf, unreachable, type SharedLimitError } from '../../nodes/shared/transport/limiter/shared/errors';
import type { RedisTarget } from '../../nodes/shared/transport/limiter/shared/redisUrl';

/**
 * Connections of the Redis shared limiter: one ioredis client plus one subscriber (Bottleneck's) per
 * Redis URL, shared by all keys and by every bundle of the package in this process (the registry
 * is module state), closed after `idleCloseMs` without any request. No reconnecting and no
 * offline queue: a connection that fails, fails what waits on it at once, and the next request opens
 * a new one.
 */

export interface SharedLimitSettings {
	/** The server's minimum gap between two requests of a key (the pacing policy's minGap). */
	gapMs: number;
	/** TCP connect and ready check of a new Redis connection. */
	connectTimeoutMs: number;
	/** Any single Redis command; a Redis that stops answering fails the requests waiting on it. */
	commandTimeoutMs: number;
	/** A connection without any request for this long is closed. */
	idleCloseMs: number;
	/** The limiter's Redis keys (Bottleneck's and the pacing state) expire this long after the key's last request. */
	keyTtlMs: number;
	/** Backstop: a request that waited this long for the shared budget fails instead of waiting on. */
	queueTimeoutMs: number;
	/**
	 * Bottleneck job expiration: a process that stops (killed, or exits) while it holds the key's turn
	 * blocks the others for at most this long. A turn is held from the wait before sending until the
	 * answer (at most `maxWaitInTurnMs` + the request), so a turn freed by expiration comes long after
	 * that request reached the server.
	 */
	jobExpirationMs: number;
	/** Longer waits before sending (a long Retry-After) are done without holding the turn. */
	maxWaitInTurnMs: number;
}

export const SHARED_LIMIT_DEFAULTS: Readonly<SharedLimitSettings> = Object.freeze({
	gapMs: 1000,
	connectTimeoutMs: 5_000,
	commandTimeoutMs: 5_000,
	idleCloseMs: 60_000,
	keyTtlMs: 10 * 60_000,
	queueTimeoutMs: 10 * 60_000,
	jobExpirationMs: 10_000,
	maxWaitInTurnMs: 5_000,
});

/** CLIENT SETNAME of this package's Redis connections (visible in `CLIENT LIST`). */
export const REDIS_CONNECTION_NAME = 'n8n-nodes-booking-requests';

export interface RedisLink {
	target: RedisTarget;
	connection: Bottleneck.IORedisConnection;
	/** The command client (also used for the pacing state) and Bottleneck's subscriber. */
	clients: IORedis[];
	ready: Promise<void>;
	rejectReady(error: SharedLimitError): void;
	/** Set once the link is unusable; it is then no longer in the registry. */
	failure?: SharedLimitError;
	closed: boolean;
	/** Requests scheduled and not finished. */
	busy: number;
	idleTimer?: ReturnType<typeof setTimeout>;
	/**
	 * Told when the link goes down: the limiters fail the requests that wait for a turn, and (`final`)
	 * drop their Bottleneck queues.
	 */
	onDown: Set<(error: SharedLimitError, final: boolean) => void>;
}

interface SharedRegistry {
	settings: SharedLimitSettings;
	links: Map<string, RedisLink>;
	limiters: Map<string, KeyLimiter>;
}

const SHARED_REGISTRY: SharedRegistry = { settings: { ...SHARED_LIMIT_DEFAULTS }, links: new Map(), limiters: new Map() };

/** The process-wide registry of the shared limiter (connections, limiters, settings): module state, one per process. */
export function sharedRegistry(): SharedRegistry {
	return SHARED_REGISTRY;
}

/** For tests and diagnostics: changes timings of connections and limiters created from now on. */
export function configureSharedLimits(settings: Partial<SharedLimitSettings>): SharedLimitSettings {
	const reg = sharedRegistry();
	reg.settings = { ...reg.settings, ...settings };
	return { ...reg.settings };
}

/** The open link to `target`, or a new one. */
export function linkFor(target: RedisTarget): RedisLink {
	const reg = sharedRegistry();
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
	const link: RedisLink = { target, connection, clients: [client, subscriber], ready, rejectReady, closed: false, busy: 0, onDown: new Set() };

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
export function failLink(link: RedisLink, error: SharedLimitError): void {
	if (link.failure || link.closed) return;
	link.failure = error;
	const reg = sharedRegistry();
	if (reg.links.get(link.target.url) === link) reg.links.delete(link.target.url);
	if (link.idleTimer) clearTimeout(link.idleTimer);
	link.rejectReady(error);
	for (const down of [...link.onDown]) down(error, true);
	link.onDown.clear();
	// Sets the connection's `terminated` flag first, so no limiter later tries to unsubscribe on it.
	link.connection.disconnect(false).catch(() => undefined);
}

/** Closes an idle link gracefully; the next request opens a new one. */
function closeLink(link: RedisLink): Promise<void> {
	if (link.failure || link.closed) return Promise.resolve();
	link.closed = true;
	const reg = sharedRegistry();
	if (reg.links.get(link.target.url) === link) reg.links.delete(link.target.url);
	if (link.idleTimer) clearTimeout(link.idleTimer);
	const closedError = lost(link.target, 'the connection was closed');
	link.rejectReady(closedError);
	for (const down of [...link.onDown]) down(closedError, true);
	link.onDown.clear();
	return link.connection.disconnect(true).then(
		() => undefined,
		() => undefined,
	);
}

export function markBusy(link: RedisLink): void {
	link.busy++;
	if (link.idleTimer) {
		clearTimeout(link.idleTimer);
		link.idleTimer = undefined;
	}
}

export function markDone(link: RedisLink): void {
	link.busy--;
	if (link.busy > 0 || link.failure || link.closed) return;
	const timer = setTimeout(() => {
		if (link.busy === 0) void closeLink(link);
	}, sharedRegistry().settings.idleCloseMs);
	timer.unref?.();
	link.idleTimer = timer;
}

/**
 * Closes every shared-limit connection of this process (tests, shutdown). Requests not sent yet fail;
 * a request under way finishes first, and its turn is given back in Redis (closing earlier would
 * leave the turn taken, for the other processes, until the job expiration).
 */
export async function closeSharedLimits(graceMs = 2 * sharedRegistry().settings.gapMs + 2000): Promise<void> {
	const links = [...sharedRegistry().links.values()];
	for (const link of links) for (const down of [...link.onDown]) down(lost(link.target, 'the connection was closed'), false);
	const deadline = Date.now() + graceMs;
	while (links.some((link) => link.busy > 0 && !link.failure && !link.closed) && Date.now() < deadline) await sleep(10);
	await Promise.all(links.map(async (link) => await closeLink(link)));
}

/** For tests and diagnostics: Redis URLs (without password) with an open connection in this process. */
export function openSharedLimitConnections(): string[] {
	return [...sharedRegistry().links.values()].map((link) => link.target.display);
}
