/**
 * Real time, real 1 request/s: Return All of 1,000 requests (10 pages) in a real n8n execution
 * against the sandbox with its network latency before the rate check — one run per latency class.
 * What is asserted is behaviour that no machine load can change: no 429 the pacing caused, the exact
 * result (accepted gaps are at least 1 s by the sandbox's own rule, so they are not a check). The gaps are printed (TEST_FIGURES=1); that the round trip is no longer added to
 * each gap once the round trips agree is asserted on the simulated clock (pacing.unit.test.ts, "the
 * middle gap after the third") and measured by the bench (`npm run bench`, latency rows): a busy
 * machine slows a round trip here and moves a real gap by tens of milliseconds.
 */
import { hashKey, startSandbox, type Latency } from '../../../../../sandbox';
import { createHarness } from '../../../../../harness/inProcessN8n';
import { acceptedGaps, rateLimitedCount } from '../../../../../harness/sandboxGaps';
import { pacing429s } from '../../../../support/pacing429';
import { printFigures } from '../../../../support/figures';

jest.setTimeout(60_000);

const REQUESTS = 1000;
const figures: string[] = [];
afterAll(() => printFigures(`Return All of ${REQUESTS} requests by latency before the rate check:\n${figures.join('\n')}`));

async function returnAllAt(latencyMs: Latency) {
	const sandbox = await startSandbox({ sizes: { requests: REQUESTS, sessions: 5 }, latencyMs });
	try {
		const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		const result = await harness.runAction({ resource: 'bookingRequest', operation: 'getAll', returnAll: true, simplify: false });
		const keyHash = hashKey(sandbox.keys.demo);
		const gaps = acceptedGaps(sandbox.log, keyHash);
		const span = sandbox.log[sandbox.log.length - 1].at - sandbox.log[0].at;
		const line = `${JSON.stringify(latencyMs)} ms: ${sandbox.log.length} calls, ${rateLimitedCount(sandbox.log, keyHash)} × 429, ${(span / 1000 / (REQUESTS / 100 - 1)).toFixed(3)} s/page, gaps ${gaps.map((gap) => gap.toFixed(0)).join('/')}`;
		figures.push(line);
		return {
			result,
			pacing429s: pacing429s(sandbox.log, keyHash),
			expected: new Set(sandbox.workspace().requests.map((request) => request.id)),
		};
	} finally {
		await sandbox.close();
	}
}

function expectExact(run: Awaited<ReturnType<typeof returnAllAt>>) {
	expect(run.result.error).toBeUndefined();
	expect(run.result.items).toHaveLength(REQUESTS);
	expect(new Set(run.result.items.map((item) => item.json.id))).toEqual(run.expected);
}

describe('Return All at the latency classes of the bench', () => {
	test('loopback: 0 × 429', async () => {
		const run = await returnAllAt(null);
		expectExact(run);
		expect(run.pacing429s).toEqual([]);
	});

	test.each([100, 250])('%i ms constant: 0 × 429, exact', async (latencyMs) => {
		const run = await returnAllAt(latencyMs);
		expectExact(run);
		expect(run.pacing429s).toEqual([]);
	});

	test('80–320 ms jittery: at most one 429, exact', async () => {
		const run = await returnAllAt([80, 320]);
		expectExact(run);
		// At most one the jitter caused: the 429s a stall of this busy process explains (pacing429.ts) left out.
		expect(run.pacing429s.length).toBeLessThanOrEqual(1);
	});
});
