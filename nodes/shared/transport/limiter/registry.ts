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

export interface LimiterRegistry {
	limiters: Map<string, KeyLimiter>;
	/** The server gap per-process limiters created from now on pace for (default: the contract's, pacing.ts). */
	minGapMs?: number;
	/** Changes to the retry rules (retryRule.ts). */
	retryRules?: Partial<RetryRules>;
	/** The edition whose limiters are made (edition.ts). */
	edition: Edition;
}

const REGISTRY: LimiterRegistry = { limiters: new Map(), edition: EDITION };

/**
 * The registry itself, an internal seam rather than an API: the package only reads its settings;
 * runs of the source (tests, bench: harness/limiterSettings.ts) set a sandbox's shorter rate gap,
 * shorter retry rules or the queue edition's limiters through it.
 */
export function limiterRegistry(): LimiterRegistry {
	return REGISTRY;
}

/** The package this build is (edition.ts), or the one a run of the source chose. */
export function currentEdition(): Edition {
	return limiterRegistry().edition;
}

/** The retry rules in force (retryRule.ts, unless a run of the source changed them). */
export function retryRules(): RetryRules {
	return { ...RETRY_RULES, ...limiterRegistry().retryRules };
}

/**
 * The limiter for one API key at one base URL. `keyId` is a hash of the key (keyId.ts): the raw key
 * is never part of a limiter id. With `redisUrl` (the credential's "Shared Rate Limit: Redis URL"),
 * the queue edition shares the limiter through that Redis with every process using the key; the Cloud
 * edition has no Redis client and paces the key per process (docs/guides/queue-mode.md).
 */
export function limiterFor(baseUrl: string, keyId: string, redisUrl?: string): KeyLimiter {
	const reg = limiterRegistry();
	const { sharedLimiterFor } = reg.edition;
	if (redisUrl && sharedLimiterFor) return sharedLimiterFor(redisUrl, baseUrl, keyId);
	const id = `${baseUrl}#${keyId}`;
	let limiter = reg.limiters.get(id);
	if (!limiter) {
		limiter = createLocalLimiter(id, reg.minGapMs === undefined ? PACING : policyForGap(reg.minGapMs));
		reg.limiters.set(id, limiter);
	}
	return limiter;
}

/** Ids of the per-process limiters alive in this process (hashes only), for tests and diagnostics. */
export function limiterIds(): string[] {
	return [...limiterRegistry().limiters.keys()];
}
