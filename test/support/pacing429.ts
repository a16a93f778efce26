/**
 * The 429s the pacing is to blame for, in a sandbox's request log.
 *
 * The sandbox stamps a request's arrival when its event loop gets to it (sandbox/server.ts). In these
 * tests it shares this process with the nodes (or, in the queue-mode tests, the test process with
 * nothing else): when a busy machine stalls the process, one request is stamped late and the next
 * one's gap looks short, by as much as the stall. So a real 429 (not an injected fault) whose gap fell
 * short of the limit by no more than the longest stall of this process is the machine's; any other is
 * the pacing's. On a quiet machine the stalls are a few milliseconds and every 429 is the pacing's.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

import type { RequestLogEntry } from '../../sandbox';

const stalls = monitorEventLoopDelay({ resolution: 10 });
stalls.enable();

/** The longest stall of this process's event loop since the test file started (or forgetStalls()), in ms. */
export function longestStallMs(): number {
	return stalls.max / 1e6;
}

/**
 * From now on, longestStallMs() counts only the stalls that come after this call: a test whose
 * requests all come later (a queue-mode scenario, after its cluster's set-up) is judged by the stalls
 * of its own time, not by those of the set-up, which cannot explain its 429s.
 */
export function forgetStalls(): void {
	stalls.reset();
}

/**
 * The log's real 429s (of one key, or of any) that came more than the longest stall short of the
 * limit after the key's previous accepted request. The sandbox stamps each limiter 429 with its gap
 * (`sinceAcceptedMs`, kept across clearLog, so the previous test's last call counts); a log without
 * it (a 429 with no accepted request before it) blames the pacing.
 */
export function pacing429s(log: RequestLogEntry[], keyHash?: string | null, minGapMs = 1000, tolerance = longestStallMs()): RequestLogEntry[] {
	const lastAccepted = new Map<string | null, number>();
	const blamed: RequestLogEntry[] = [];
	for (const entry of log) {
		if (keyHash !== undefined && entry.keyHash !== keyHash) continue;
		if (entry.status === 401) continue;
		if (entry.status === 429 && !entry.fault) {
			const previous = lastAccepted.get(entry.keyHash);
			const gap = entry.sinceAcceptedMs ?? (previous === undefined ? undefined : entry.at - previous);
			const shortBy = gap === undefined ? Infinity : minGapMs - gap;
			if (shortBy > tolerance) blamed.push(entry);
		} else lastAccepted.set(entry.keyHash, entry.at);
	}
	return blamed;
}

/**
 * The log without the API's own 429s (an injected 429 stays): what a test of retries or faults
 * expects the server to have answered, whatever a stall of this busy process added. Pair it with
 * pacing429s, which judges whether the pacing caused any.
 */
export function withoutOwn429s(log: RequestLogEntry[]): RequestLogEntry[] {
	return log.filter((entry) => entry.status !== 429 || entry.fault !== undefined);
}
