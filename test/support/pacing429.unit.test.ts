/** Which 429s of a sandbox log the pacing is to blame for (pacing429.ts). */
import type { RequestLogEntry } from '../../sandbox';
import { longestStallMs, pacing429s } from './pacing429';

const entry = (at: number, status: number, keyHash = 'k1', fault?: string): RequestLogEntry => ({ at, method: 'GET', path: '/api/v1/forms', query: {}, keyHash, status, ...(fault ? { fault } : {}) });
/** A limiter 429 as the sandbox logs it: with its gap from the key's last accepted arrival. */
const limited = (at: number, sinceAcceptedMs: number): RequestLogEntry => ({ ...entry(at, 429), sinceAcceptedMs });

test('a 429 short of the limit by more than the longest stall is the pacing’s; by less, the machine’s', () => {
	const log = [entry(0, 200), entry(960, 429), entry(2000, 200), entry(2500, 429), entry(3600, 200)];
	// 40 ms short (a stall of 50 ms explains it), 500 ms short (it does not)
	expect(pacing429s(log, 'k1', 1000, 50)).toEqual([log[3]]);
	expect(pacing429s(log, 'k1', 1000, 0)).toEqual([log[1], log[3]]);
});

test('per key; injected 429s and 401s are not rate limiting; a 429 with no accepted request before it is the pacing’s', () => {
	const log = [entry(0, 200, 'k1'), entry(100, 429, 'k2'), entry(200, 429, 'k1', 'every429'), entry(300, 401, null as unknown as string), entry(5000, 200, 'k1')];
	expect(pacing429s(log, 'k1', 1000, 50)).toEqual([]);
	expect(pacing429s(log, 'k2', 1000, 50)).toEqual([log[1]]);
	expect(pacing429s(log, undefined, 1000, 50)).toEqual([log[1]]);
});

test("the longest stall is this process's event loop's, in ms", async () => {
	await new Promise((resolve) => setTimeout(resolve, 50)); // the monitor has ticked
	const before = longestStallMs();
	const until = Date.now() + 120;
	while (Date.now() < until) {
		/* a 120 ms stall */
	}
	await new Promise((resolve) => setTimeout(resolve, 30));
	expect(longestStallMs()).toBeGreaterThanOrEqual(Math.max(before, 100));
});

test("a 429 whose accepted call was cleared from the log is judged by the gap the sandbox stamped on it", () => {
	// the previous test's last call was cleared: 970 ms before this 429 (a stall of 50 ms explains it), 400 ms (it does not)
	expect(pacing429s([limited(5_000, 970), entry(6_000, 200)], 'k1', 1000, 50)).toEqual([]);
	const short = [limited(5_000, 400), entry(6_000, 200)];
	expect(pacing429s(short, 'k1', 1000, 50)).toEqual([short[0]]);
});
