/**
 * Debian's redis-server on a free loopback port for n8n's queue (Bull) and this package's shared rate
 * limit: test/support/sharedLimit/redisServer.ts, plus what a suite of long-lived services needs — the
 * server is killed if this process exits without stopping it, and recorded (./leftovers.ts) so that
 * the next run ends it after a crash.
 */
import { startRedisServer, type RedisServer } from '../sharedLimit/redisServer';
import { recordLeftover } from './leftovers';

export interface QueueRedis extends RedisServer {
	host: string;
	/** redis-server's pid (from INFO), for the leftover record. */
	pid: number;
	/** QUEUE_BULL_REDIS_* for every n8n process. */
	n8nEnv(): Record<string, string>;
}

export async function startQueueRedis(): Promise<QueueRedis> {
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
