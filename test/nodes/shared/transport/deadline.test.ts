/**
 * The time budget of a group of calls (deadline.ts): a call that cannot finish in time sends nothing
 * and fails with a DeadlineReachedError, whether it waits for the key's turn, for a Retry-After pause
 * or for a backoff before a retry.
 */
import { API_PATHS } from '../../../../nodes/shared/constants';
import { isDeadlineReached, MIN_ATTEMPT_MS } from '../../../../nodes/shared/transport/deadline';
import { setRetryRulesForTests } from '../../../../harness/limiterSettings';
import { apiRequest } from '../../../../nodes/shared/transport/request';
import type { Harness } from '../../../../harness/inProcessN8n';
import { withSandbox } from '../../../support/sandboxSuite';
import { pacing429s, withoutOwn429s } from '../../../support/pacing429';
import type { Sandbox } from '../../../../sandbox';

let sandbox: Sandbox;
let harness: Harness;
withSandbox({ sizes: { requests: 10, sessions: 10 } }, (s, h) => {
	sandbox = s;
	harness = h;
});

describe('apiRequest with a deadline', () => {
	test('a deadline closer than MIN_ATTEMPT_MS: nothing is sent', async () => {
		const error = await apiRequest(harness.context(), API_PATHS.forms, { deadline: Date.now() + MIN_ATTEMPT_MS - 500 }).catch((e: unknown) => e);
		expect(isDeadlineReached(error)).toBe(true);
		expect(sandbox.log).toHaveLength(0);
	});

	test('a call queued behind the key past its deadline is dropped from the queue and never sent', async () => {
		const ctx = harness.context();
		// the first call takes the key's turn; the second may only start 1 s later, after its deadline
		await apiRequest(ctx, API_PATHS.forms);
		const error = await apiRequest(ctx, API_PATHS.forms, { deadline: Date.now() + MIN_ATTEMPT_MS + 200 }).catch((e: unknown) => e);
		expect(isDeadlineReached(error)).toBe(true);
		await new Promise((resolve) => setTimeout(resolve, 1500));
		expect(sandbox.log).toHaveLength(1);
	});

	test('a 500 whose backoff would end past the deadline: one request, then DeadlineReached', async () => {
		sandbox.setFaults({ always: 500 });
		await new Promise((resolve) => setTimeout(resolve, 1100));
		// A backoff of a minute against a deadline 30 s past the least an attempt needs: the first request
		// is sent however slowly the machine gets to it (within the test's time), the retry never fits.
		setRetryRulesForTests({ backoffBaseMs: 60_000, backoffMaxMs: 60_000 });
		try {
			const error = await apiRequest(harness.context(), API_PATHS.forms, { deadline: Date.now() + MIN_ATTEMPT_MS + 30_000 }).catch((e: unknown) => e);
			expect(isDeadlineReached(error)).toBe(true);
		} finally {
			setRetryRulesForTests(undefined);
		}
		// The API's own 429s left out (a stall of this busy process can bring a call in short of the last one's second).
		expect(pacing429s(sandbox.log)).toEqual([]);
		expect(withoutOwn429s(sandbox.log).map((entry) => entry.status)).toEqual([500]);
	});

	test('with time to spare the call behaves as without a deadline', async () => {
		await new Promise((resolve) => setTimeout(resolve, 1100));
		const { body } = await apiRequest<{ items: unknown[] }>(harness.context(), API_PATHS.forms, { deadline: Date.now() + 60_000 });
		expect(body.items.length).toBeGreaterThan(0);
		expect(pacing429s(sandbox.log)).toEqual([]);
		expect(withoutOwn429s(sandbox.log).map((entry) => entry.status)).toEqual([200]);
	});
});
