/**
 * Real time, real 1 request/s: another client uses the same API key without any coordination (the
 * customer's dashboard, another integration), sending one request every 2 s and never retrying.
 * This node must finish with the exact result and no error, slow down to leave the other client at
 * least half of its calls, and return to full pace after the other client stops.
 */
import type { Sandbox } from '../../../../../sandbox';
import { hashKey, startSandbox } from '../../../../../sandbox';
import { createHarness } from '../../../../../harness/inProcessN8n';
import { isOtherClient, otherClientCalls, startOtherClient } from '../../../../../harness/otherClient';
import { acceptedEntries, rateLimitedCount } from '../../../../../harness/sandboxGaps';

jest.setTimeout(180_000);

const figures: string[] = [];
afterAll(() => console.log(`Another client on the key at 0.5 request/s:\n${figures.join('\n')}`));

function ourEntries(log: Sandbox['log']) {
	return log.filter((entry) => !isOtherClient(entry));
}

describe('another client on the same key, uncoordinated', () => {
	test('at 0.5 request/s during a Return All of 1,000: exact result, no error, the other client gets about half of its calls through', async () => {
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
			// On average 57–60% (pacing.unit.test.ts simulates this scenario: mean 0.58–0.59, at least half in
			// 93% of 200 runs); one run of ~14 calls can end just below half, so the bound here is 40%
			// (before this pacing the other client got 1 of 6 through).
			expect(theirs.accepted / theirs.calls).toBeGreaterThanOrEqual(0.4);
		} finally {
			other.stop();
			await sandbox.close();
		}
	});

	test('the other client stops halfway: this node is back to full pace within seconds, and the result is exact', async () => {
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
			const ours = ourEntries(sandbox.log).filter((entry) => entry.status === 200);
			const after = ours.filter((entry) => entry.at >= stoppedAt + 1000);
			// Full pace: three gaps in a row under 1.1 s.
			const back = after.findIndex((_, i) => i + 3 < after.length && [1, 2, 3].every((k) => after[i + k].at - after[i + k - 1].at < 1100));
			expect(back).toBeGreaterThanOrEqual(0);
			const recoveredAfter = (after[back].at - stoppedAt) / 1000;
			const before = ours.filter((entry) => entry.at < stoppedAt);
			const paceBefore = (before[before.length - 1].at - before[0].at) / 1000 / (before.length - 1);
			const tail = after.slice(back);
			const paceAfter = (tail[tail.length - 1].at - tail[0].at) / 1000 / (tail.length - 1);
			const theirs = otherClientCalls(sandbox.log, 0, stoppedAt);
			figures.push(
				`other client stops after 20 s (${theirs.accepted} of ${theirs.calls} of its calls accepted): our pace ${paceBefore.toFixed(2)} s/call while it ran, full pace again ${recoveredAfter.toFixed(1)} s after it stopped, then ${paceAfter.toFixed(3)} s/call; our 429s ${rateLimitedCount(ourEntries(sandbox.log), hashKey(sandbox.keys.demo))}`,
			);
			expect(recoveredAfter).toBeLessThan(20);
			expect(paceAfter).toBeLessThan(1.05);
			expect(acceptedEntries(sandbox.log, hashKey(sandbox.keys.demo)).length).toBeGreaterThan(40);
		} finally {
			other.stop();
			await sandbox.close();
		}
	});
});
