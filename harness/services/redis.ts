/**
 * Debian's redis-server on a free loopback port for n8n's queue (Bull) and this package's shared rate
 * limit: harness/services/redisServer.ts, plus what a suite of long-lived services needs — the
 * server is killed if this process exits without stopping it, and recorded (./leftovers.ts) so that
 * the next run ends it after a crash.
 *
 * E2E_REDIS_URL (e.g. a CI service container: `redis://127.0.0.1:6379/0`) uses that existing Redis
 * instead. The URL's database is the test's: it is emptied (FLUSHDB) when a test file starts and
 * when it stops, so test files never see each other's queue jobs or limiter keys. n8n gets the URL's
 * host, port, database and password (QUEUE_BULL_REDIS_*); the credentials get the URL itself.
 * Unset: a redis-server of the test's own.
 */
import IORedis from 'ioredis';

import { envOverride } from '../env';
import { startRedisServer, type RedisServer } from './redisServer';
import { recordLeftover } from './leftovers';

export interface QueueRedis extends RedisServer {
	host: string;
	/** redis-server's pid (from INFO), for the leftover record; 0 for an external Redis. */
	pid: number;
	/** QUEUE_BULL_REDIS_* for every n8n process. */
	n8nEnv(): Record<string, string>;
}

/** An existing Redis to use instead of a redis-server of the test's own (see the file's comment). */
export const EXTERNAL_REDIS_ENV = 'E2E_REDIS_URL';

export async function startQueueRedis(): Promise<QueueRedis> {
	const external = envOverride(EXTERNAL_REDIS_ENV);
	if (external) return await externalRedis(external);
	const redis = await startRedisServer();
	const probe = redis.client();
	const info = await probe.info('server');
	probe.disconnect();
	const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
	const forget = recordLeftover({ kind: 'redis-server', pid, group: false, cmdlineIncludes: `:${redis.port}`, removeDirs: [] });
	const onExit = () => {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			/* gone */
		}
		forget();
	};
	process.once('exit', onExit);
	return {
		...redis,
		host: '127.0.0.1',
		pid,
		n8nEnv: () => ({ QUEUE_BULL_REDIS_HOST: '127.0.0.1', QUEUE_BULL_REDIS_PORT: String(redis.port) }),
		async stop() {
			process.removeListener('exit', onExit);
			await redis.stop();
			forget();
		},
	};
}

async function externalRedis(url: string): Promise<QueueRedis> {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new Error(`${EXTERNAL_REDIS_ENV} is not a URL (expected redis://[:password@]host:port[/db])`);
	}
	if (parsed.protocol !== 'redis:') throw new Error(`${EXTERNAL_REDIS_ENV}: only redis:// URLs are supported`);
	const host = parsed.hostname.replace(/^\[|\]$/g, '');
	const port = Number(parsed.port || 6379);
	const db = Number(parsed.pathname.replace(/^\//, '') || 0);
	const username = decodeURIComponent(parsed.username);
	const password = decodeURIComponent(parsed.password);
	const clients: IORedis[] = [];
	const client = () => {
		const c = new IORedis(url, { maxRetriesPerRequest: 1 });
		c.on('error', () => undefined);
		clients.push(c);
		return c;
	};

	const admin = new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
	admin.on('error', () => undefined);
	let version = 'unknown';
	const deadline = Date.now() + 30_000;
	for (;;) {
		try {
			if (admin.status !== 'ready') await admin.connect();
			version = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? 'unknown';
			await admin.flushdb();
			break;
		} catch (error) {
			admin.disconnect();
			if (Date.now() > deadline) throw new Error(`Redis at ${host}:${port} (${EXTERNAL_REDIS_ENV}) does not answer: ${(error as Error).message}`);
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	}

	return {
		port,
		url,
		version,
		host,
		pid: 0,
		client,
		n8nEnv: () => ({
			QUEUE_BULL_REDIS_HOST: host,
			QUEUE_BULL_REDIS_PORT: String(port),
			...(db ? { QUEUE_BULL_REDIS_DB: String(db) } : {}),
			...(username ? { QUEUE_BULL_REDIS_USERNAME: username } : {}),
			...(password ? { QUEUE_BULL_REDIS_PASSWORD: password } : {}),
		}),
		async stop() {
			for (const c of clients.splice(0)) c.disconnect();
			await admin.flushdb().catch(() => undefined);
			admin.disconnect();
		},
		async restart() {
			throw new Error(`cannot restart the external Redis (${EXTERNAL_REDIS_ENV})`);
		},
	};
}
