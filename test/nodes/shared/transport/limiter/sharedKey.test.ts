/**
 * Real time, real 1 request/s: another client uses the same API key without any coordination (the
 * customer's dashboard, another integration), sending one request every 2 s and never retrying.
 * Asserted here, over real HTTP: this node finishes with the exact result and no error, and lets the
 * other client's calls through. How much of them (about half) and how fast this node is back to full
 * pace once the other client stops depend on the machine's timing: they are printed here (TEST_FIGURES=1) and asserted
 * on the simulated clock (pacing.unit.test.ts, "simulated sharing of a key"; the bench's neighbour rows
 * measure them at the real limit).
 */
import type { Sandbox } from '../../../../../sandbox';
import { hashKey, startSandbox } from '../../../../../sandbox';
import { createHarness } from '../../../../../harness/inProcessN8n';
import { isOtherClient, otherClientCalls, startOtherClient } from '../../../../../harness/otherClient';
import { acceptedEntries, rateLimitedCount } from '../../../../../harness/sandboxGaps';
import { printFigures } from '../../../../support/figures';

jest.setTimeout(180_000);

const figures: string[] = [];
afterAll(() => printFigures(`Another client on the key at 0.5 request/s:\n${figures.join('\n')}`));

function ourEntries(log: Sandbox['log']) {
	return log.filter((entry) => !isOtherClient(entry));
}

describe('another client on the same key, uncoordinated', () => {
	test("at 0.5 request/s during a Return All of 1,000: exact result, no error, the other client's calls get through", async () => {
		const sandbox = await startSandbox({ sizes: { requests: 1000, sessions: 5 } });
		const other = startOtherClient(sandbox, sandbox.keys.demo);
		try {
			// The other client has the key to itself for a while; our run starts right after one of its calls.
			await new Promise((resolve) => setTimeout(resolve, 3000));
			await other.afterNextAccepted(150);
			const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
			const started = Date.now();
			const result = await harness.runAction({ resource: 'bookingRequest', operation: 'getAll', returnAll: true, simplify: false });
			const seconds = (Date.now() - started) / 1000;
			other.stop();

			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(1000);
			expect(new Set(result.items.map((item) => item.json.id))).toEqual(new Set(sandbox.workspace().requests.map((request) => request.id)));
			const ours = ourEntries(sandbox.log);
			const theirs = otherClientCalls(sandbox.log, ours[0].at, ours[ours.length - 1].at);
			const our429 = ours.filter((entry) => entry.status === 429).length;
			figures.push(
				`during our Return All of 1,000: we made ${ours.length} calls (${our429} × 429) in ${seconds.toFixed(1)} s; the other client ${theirs.accepted} of ${theirs.calls} accepted (${theirs.calls - theirs.accepted} × 429)`,
			);
			expect(theirs.calls).toBeGreaterThanOrEqual(4);
			// Its share (about 58% on average) is asserted on the simulated clock. Here: when our first request
			// met its call (a 429, as this test means to start), it is not shut out. A busy machine can delay
			// our start past that second; then our pacing refuses its calls without our knowing (no 429 of
			// ours tells us of it), which is the case the simulation's note and docs/rate-limiting.md describe.
			if (ours[0].status === 429) expect(theirs.accepted).toBeGreaterThanOrEqual(1);
		} finally {
			other.stop();
			await sandbox.close();
		}
	});

	test('the other client stops halfway: the result is exact (how soon this node is back to full pace: printed)', async () => {
		const sandbox = await startSandbox({ sizes: { requests: 4000, sessions: 5 } });
		const other = startOtherClient(sandbox, sandbox.keys.demo);
		try {
			await new Promise((resolve) => setTimeout(resolve, 3000));
			await other.afterNextAccepted(150);
			const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
			const run = harness.runAction({ resource: 'bookingRequest', operation: 'getAll', returnAll: true, simplify: false });
			await new Promise((resolve) => setTimeout(resolve, 20_000));
			other.stop();
			const stoppedAt = performance.timeOrigin + performance.now();
			const result = await run;

			expect(result.error).toBeUndefined();
			expect(result.items).toHaveLength(4000);
			expect(new Set(result.items.map((item) => item.json.id))).toEqual(new Set(sandbox.workspace().requests.map((request) => request.id)));
			const ours = ourEntries(sandbox.log).filter((entry) => entry.status === 200);
			const after = ours.filter((entry) => entry.at >= stoppedAt + 1000);
			// Full pace: three gaps in a row under 1.1 s (the simulated clock asserts it within 20 s).
			const back = after.findIndex((_, i) => i + 3 < after.length && [1, 2, 3].every((k) => after[i + k].at - after[i + k - 1].at < 1100));
			const before = ours.filter((entry) => entry.at < stoppedAt);
			const paceBefore = (before[before.length - 1].at - before[0].at) / 1000 / (before.length - 1);
			const tail = back >= 0 ? after.slice(back) : after;
			const paceAfter = (tail[tail.length - 1].at - tail[0].at) / 1000 / (tail.length - 1);
			const theirs = otherClientCalls(sandbox.log, 0, stoppedAt);
			figures.push(
				`other client stops after 20 s (${theirs.accepted} of ${theirs.calls} of its calls accepted): our pace ${paceBefore.toFixed(2)} s/call while it ran, full pace again ${back >= 0 ? `${((after[back].at - stoppedAt) / 1000).toFixed(1)} s after it stopped` : 'not seen'}, then ${paceAfter.toFixed(3)} s/call; our 429s ${rateLimitedCount(ourEntries(sandbox.log), hashKey(sandbox.keys.demo))}`,
			);
			expect(acceptedEntries(sandbox.log, hashKey(sandbox.keys.demo)).length).toBeGreaterThan(40);
		} finally {
			other.stop();
			await sandbox.close();
		}
	});
});
