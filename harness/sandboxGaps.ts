import type { RequestLogEntry } from '../sandbox';

/** Requests of one key that passed the sandbox's rate limiter (injected faults included, 401s not). */
export function acceptedEntries(log: RequestLogEntry[], keyHash: string): RequestLogEntry[] {
	return log.filter((entry) => entry.keyHash === keyHash && entry.status !== 401 && !(entry.status === 429 && !entry.fault));
}

/** Gaps in ms between consecutive accepted requests of one key. */
export function acceptedGaps(log: RequestLogEntry[], keyHash: string): number[] {
	const accepted = acceptedEntries(log, keyHash);
	const gaps: number[] = [];
	for (let i = 1; i < accepted.length; i++) gaps.push(accepted[i].at - accepted[i - 1].at);
	return gaps;
}

/** Requests of one key the sandbox refused for going over 1 request per second. */
export function rateLimitedCount(log: RequestLogEntry[], keyHash: string): number {
	return log.filter((entry) => entry.keyHash === keyHash && entry.status === 429 && !entry.fault).length;
}
