/**
 * The limiter module tree is nodes/shared/transport/limiter/ (registry.ts: limiterFor, limiterIds,
 * setPacingGapForTests). This path is kept so that imports written against it keep working.
 */
export { GAP_MS, limiterFor, limiterIds, setPacingGapForTests, setRetryRulesForTests } from './limiter/registry';
export type { KeyLimiter, RunOptions } from './limiter/keyLimiter';
