/**
 * Runs of the package's source against the sandbox (tests, bench) with other limiter settings than a
 * release has: a sandbox with a shorter rate gap, shorter retry rules, the queue edition's limiters.
 * Nothing here is shipped: the package only reads these settings, through its limiter registry's
 * internal seam (nodes/shared/transport/limiter/registry.ts, `limiterRegistry`).
 */
import { MIN_GAP_MS, SAFETY_MARGIN_MS } from '../nodes/shared/constants';
import { EDITION, type Edition } from '../nodes/shared/transport/limiter/edition';
import { limiterRegistry } from '../nodes/shared/transport/limiter/registry';
import type { RetryRules } from '../nodes/shared/transport/limiter/retryRule';

/** The contract's gap plus the pacing margin: what `setPacingGapForTests` restores (with MIN_GAP_MS too). */
export const GAP_MS = MIN_GAP_MS + SAFETY_MARGIN_MS;

/**
 * Volume tests run the sandbox with a shorter rate gap (its `minGapMs`; correctness does not need the
 * real 1 s) and pace this process for a server with that gap (the margin is added as usual). Applies
 * to per-process limiters created afterwards (the existing ones are dropped).
 * `setPacingGapForTests(GAP_MS)` or `(MIN_GAP_MS)` restores the contract's pacing.
 */
export function setPacingGapForTests(gapMs: number): void {
	const registry = limiterRegistry();
	registry.minGapMs = gapMs === MIN_GAP_MS || gapMs === GAP_MS ? undefined : gapMs;
	registry.limiters.clear();
}

/** Shorter retry rules (e.g. the 2-minute stall of an always-429 server). `undefined` restores them. */
export function setRetryRulesForTests(rules?: Partial<RetryRules>): void {
	limiterRegistry().retryRules = rules;
}

/**
 * Runs with another edition's limiters (the tests of the Redis-shared limiter run the source with
 * `queue/edition.ts`; the built queue edition has it in place of edition.ts). `undefined` restores the
 * source's own edition.
 */
export function setEditionForTests(edition?: Edition): void {
	limiterRegistry().edition = edition ?? EDITION;
}
