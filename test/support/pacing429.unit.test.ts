/** Which 429s of a sandbox log the pacing is to blame for (pacing429.ts). */
import type { RequestLogEntry } from '../../sandbox';
import { forgetStalls, longestStallMs, pacing429s } from './pacing429';

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

test("the longest stall is this process's event loop's, in ms, until forgotten", async () => {
	await new Promise((resolve) => setTimeout(resolve, 50)); // the monitor has ticked
	const before = longestStallMs();
	const until = Date.now() + 120;
	while (Date.now() < until) {
		/* a 120 ms stall */
	}
	await new Promise((resolve) => setTimeout(resolve, 30));
	expect(longestStallMs()).toBeGreaterThanOrEqual(Math.max(before, 100));
	// forgotten: from then on, only the stalls that come after count (none yet)
	forgetStalls();
	expect(longestStallMs()).toBe(0);
});

test("a 429 whose accepted call was cleared from the log is judged by the gap the sandbox stamped on it", () => {
	// the previous test's last call was cleared: 970 ms before this 429 (a stall of 50 ms explains it), 400 ms (it does not)
	expect(pacing429s([limited(5_000, 970), entry(6_000, 200)], 'k1', 1000, 50)).toEqual([]);
	const short = [limited(5_000, 400), entry(6_000, 200)];
	expect(pacing429s(short, 'k1', 1000, 50)).toEqual([short[0]]);
});

/**
 * The log the sandbox writes for requests that arrive at these times while its process stalls in
 * these intervals: each arrival is stamped when the event loop gets to it, and its strict 1 s limiter
 * judges the stamps (sandbox/server.ts).
 */
function sandboxLog(arrivals: number[], stalls: Array<[from: number, to: number]> = []): RequestLogEntry[] {
	let lastAccepted: number | undefined;
	return arrivals.map((arrival) => {
		const at = stalls.find(([from, to]) => arrival >= from && arrival < to)?.[1] ?? arrival;
		if (lastAccepted !== undefined && at - lastAccepted < 1000) return limited(at, at - lastAccepted);
		lastAccepted = at;
		return entry(at, 200);
	});
}

test('arrivals paced 1 s apart: a stall of the sandbox’s process makes a 429 that is not the pacing’s', () => {
	// the request that arrives at 1,010 ms is stamped at 1,700 after a 800 ms stall; the one at 2,020 then looks 320 ms apart
	const log = sandboxLog([0, 1010, 2020, 3030, 4040], [[900, 1700]]);
	expect(log.map((e) => e.status)).toEqual([200, 200, 429, 200, 200]);
	expect(pacing429s(log, 'k1', 1000, 800)).toEqual([]);
	// judged without the stall, the same log blames the pacing: the judgement needs the stall to excuse it
	expect(pacing429s(log, 'k1', 1000, 0)).toEqual([log[2]]);
});

test('a request sent early is the pacing’s, unless a stall as long as its shortfall could explain it', () => {
	// the third request arrives 400 ms after the second: 600 ms early
	const early = sandboxLog([0, 1010, 1410, 2420]);
	expect(early.map((e) => e.status)).toEqual([200, 200, 429, 200]);
	expect(pacing429s(early, 'k1', 1000, 20)).toEqual([early[2]]);
	expect(pacing429s(early, 'k1', 1000, 500)).toEqual([early[2]]);
	expect(pacing429s(early, 'k1', 1000, 600)).toEqual([]);
	// three clients that each pace themselves at 1 s but share nothing (the queue suite without Redis)
	const clients = [0, 330, 660].flatMap((offset) => [0, 1, 2, 3, 4].map((i) => offset + i * 1010)).sort((a, b) => a - b);
	const uncoordinated = sandboxLog(clients);
	const refused = uncoordinated.filter((e) => e.status === 429);
	expect(refused).toHaveLength(10);
	expect(pacing429s(uncoordinated, 'k1', 1000, 100)).toEqual(refused);
});
