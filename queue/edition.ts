import { QUEUE_PACKAGE_NAME } from '../nodes/shared/constants';
import type { Edition } from '../nodes/shared/transport/limiter/edition';
import { sharedLimiterFor } from './limiter/sharedLimiter';

/**
 * The queue edition (`n8n-nodes-booking-requests-queue`): the Cloud edition's nodes plus the
 * Redis-shared limiter. Its build (gulpfile.js `buildQueue`) puts this module in the place of
 * nodes/shared/transport/limiter/edition.ts; nothing else differs.
 */
export const EDITION: Edition = { packageName: QUEUE_PACKAGE_NAME, sharedLimiterFor };
