import { MIN_GAP_MS, SAFETY_MARGIN_MS } from '../../constants';
import { EDITION, type Edition } from './edition';
import type { KeyLimiter } from './keyLimiter';
import { createLocalLimiter } from './localLimiter';
import { PACING, policyForGap } from './pacing';
import { RETRY_RULES, type RetryRules } from './retryRule';

/**
 * One limiter per (base URL, API key) per process, shared by every node, execution and load-options
 * call; in the queue edition, with the credential's Redis URL, the Redis shared limiter of that key
 * instead (edition.ts).
 *
 * The registry is module state: the build emits one module per source file (gulpfile.js), and n8n
 * loads the node files with Node's `require`, so both nodes of the package share this one module, and
 * with it one budget per key (tested on the built files loaded by n8n's own loader).
 */

interface Registry {
	limiters: Map<string, KeyLimiter>;
	/** The server gap per-process limiters created from now on pace for (tests against a faster sandbox). */
	minGapMs?: number;
	/** Retry rules changed by tests. */
	retryRules?: Partial<RetryRules>;
	/** The edition whose limiters are made: the built one, or the one a test chose. */
	edition: Edition;
}

const REGISTRY: Registry = { limiters: new Map(), edition: EDITION };

function registry(): Registry {
	return REGISTRY;
}

/** The contract's gap plus the pacing margin: what `setPacingGapForTests` restores (with MIN_GAP_MS too). */
export const GAP_MS = MIN_GAP_MS + SAFETY_MARGIN_MS;

/**
 * For tests only: volume tests run the sandbox with a shorter rate gap (its `minGapMs`; correctness
 * does not need the real 1 s) and pace this process for a server with that gap (the margin is added
 * as usual). Applies to per-process limiters created afterwards (the existing ones are dropped).
 * `setPacingGapForTests(GAP_MS)` or `(MIN_GAP_MS)` restores the contract's pacing.
 */
export function setPacingGapForTests(gapMs: number): void {
	registry().minGapMs = gapMs === MIN_GAP_MS || gapMs === GAP_MS ? undefined : gapMs;
	registry().limiters.clear();
}

/** For tests only: shorter retry rules (e.g. the 2-minute stall of an always-429 server). `undefined` restores them. */
export function setRetryRulesForTests(rules?: Partial<RetryRules>): void {
	registry().retryRules = rules;
}

/**
 * For tests only: run with another edition's limiters (the tests of the Redis-shared limiter run the
 * source with `queue/edition.ts`; the built queue edition has it in place of edition.ts). `undefined`
 * restores the built edition.
 */
export function setEditionForTests(edition?: Edition): void {
	registry().edition = edition ?? EDITION;
}

/** The package this build is (edition.ts), or the one a test chose. */
export function currentEdition(): Edition {
	return registry().edition;
}

/** The retry rules in force (retryRule.ts, unless a test changed them). */
export function retryRules(): RetryRules {
	return { ...RETRY_RULES, ...registry().retryRules };
}

/**
 * The limiter for one API key at one base URL. `keyId` is a hash of the key (keyId.ts): the raw key
 * is never part of a limiter id. With `redisUrl` (the credential's "Shared Rate Limit: Redis URL"),
 * the queue edition shares the limiter through that Redis with every process using the key; the Cloud
 * edition has no Redis client and paces the key per process (docs/guides/queue-mode.md).
 */
export function limiterFor(baseUrl: string, keyId: string, redisUrl?: string): KeyLimiter {
	const { sharedLimiterFor } = registry().edition;
	if (redisUrl && sharedLimiterFor) return sharedLimiterFor(redisUrl, baseUrl, keyId);
	const id = `${baseUrl}#${keyId}`;
	const reg = registry();
	let limiter = reg.limiters.get(id);
	if (!limiter) {
		limiter = createLocalLimiter(id, reg.minGapMs === undefined ? PACING : policyForGap(reg.minGapMs));
		reg.limiters.set(id, limiter);
	}
	return limiter;
}

/** Ids of the per-process limiters alive in this process (hashes only), for tests and diagnostics. */
export function limiterIds(): string[] {
	return [...registry().limiters.keys()];
}
