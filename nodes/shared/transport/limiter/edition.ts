import { CLOUD_PACKAGE_NAME } from '../../constants';
import type { KeyLimiter } from './keyLimiter';

/**
 * Which package this build is. Both editions are built from this one source tree (gulpfile.js):
 * - `n8n-nodes-booking-requests` (this module): the n8n Cloud edition. It holds no Redis client and
 *   no timers of its own, as n8n Cloud requires; a credential that asks to share the rate limit through
 *   Redis is paced per n8n process (slower under contention, never failing).
 * - `n8n-nodes-booking-requests-queue`: for self-hosted n8n in queue mode. Its build replaces this
 *   module with `queue/edition.ts`, which adds the Redis-shared limiter (Bottleneck clustering, ioredis).
 */
export interface Edition {
	packageName: string;
	/** The limiter of a key shared through the Redis at `redisUrl`; absent in the Cloud edition. */
	sharedLimiterFor?: (redisUrl: string, baseUrl: string, keyId: string) => KeyLimiter;
}

export const EDITION: Edition = { packageName: CLOUD_PACKAGE_NAME };
