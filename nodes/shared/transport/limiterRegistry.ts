/**
 * The limiter module tree is nodes/shared/transport/limiter/ (registry.ts: limiterFor, limiterIds,
 * setPacingGapForTests). This path is kept so that imports written against it keep working.
 */
export { limiterFor, limiterIds, setPacingGapForTests, setRetryRulesForTests } from './limiter/registry';
export type { KeyLimiter, RunOptions } from './limiter/keyLimiter';
