/** The retry rule (pure): 429s slow a call down and end it only when the key stalls; 5xx/network are bounded. */
import { RETRY_RULES, backoffMs, retryDecision } from '../../../../../nodes/shared/transport/limiter/retryRule';

const T0 = 1_000_000;

describe('retryDecision', () => {
	test('429: retried with no wait of its own (the limiter applies Retry-After and pacing) while the key had an accepted request within 2 min', () => {
		expect(RETRY_RULES.stallMs).toBe(120_000);
		// A key accepted a request 119 s ago: go on.
		expect(retryDecision({ kind: 'rateLimited' }, { now: T0, callStartedAt: T0 - 300_000, keyLastAcceptedAt: T0 - 119_000, serverFailures: 0 })).toEqual({
			retry: true,
			waitMs: 0,
		});
		// None for 2 min: stalled.
		expect(retryDecision({ kind: 'rateLimited' }, { now: T0, callStartedAt: T0 - 300_000, keyLastAcceptedAt: T0 - 120_000, serverFailures: 0 })).toEqual({
			retry: false,
			reason: 'stalled',
		});
	});

	test('429 on a key idle for long: the 2 min count from the start of the call', () => {
		const context = { callStartedAt: T0, keyLastAcceptedAt: T0 - 3_600_000, serverFailures: 0 };
		expect(retryDecision({ kind: 'rateLimited' }, { ...context, now: T0 + 1000 }).retry).toBe(true);
		expect(retryDecision({ kind: 'rateLimited' }, { ...context, now: T0 + 119_999 }).retry).toBe(true);
		expect(retryDecision({ kind: 'rateLimited' }, { ...context, now: T0 + 120_000 })).toEqual({ retry: false, reason: 'stalled' });
		// Never accepted at all (a new key).
		expect(retryDecision({ kind: 'rateLimited' }, { now: T0 + 120_000, callStartedAt: T0, serverFailures: 0 })).toEqual({ retry: false, reason: 'stalled' });
	});

	test('the number of 429s does not matter: 500 of them within a minute of an accepted request are all retried', () => {
		for (let i = 0; i < 500; i++) {
			expect(retryDecision({ kind: 'rateLimited' }, { now: T0 + i * 100, callStartedAt: T0, keyLastAcceptedAt: T0, serverFailures: 0 }).retry).toBe(true);
		}
	});

	test('5xx, time-outs and network errors: backoff 0.5, 1, 2, 4 s, then the call fails (5 attempts)', () => {
		const waits: number[] = [];
		for (let failures = 1; failures <= 5; failures++) {
			const decision = retryDecision({ kind: 'serverError' }, { now: T0, callStartedAt: T0, serverFailures: failures });
			if (decision.retry) waits.push(decision.waitMs);
			else expect(decision).toEqual({ retry: false, reason: 'attempts' });
		}
		expect(waits).toEqual([500, 1000, 2000, 4000]);
		expect(retryDecision({ kind: 'timeout' }, { now: T0, callStartedAt: T0, serverFailures: 5 })).toEqual({ retry: false, reason: 'attempts' });
		expect(retryDecision({ kind: 'network' }, { now: T0, callStartedAt: T0, serverFailures: 2 })).toEqual({ retry: true, waitMs: 1000 });
	});

	test("a 5xx's Retry-After lengthens the backoff, never shortens it", () => {
		expect(retryDecision({ kind: 'serverError', hintMs: 3000 }, { now: T0, callStartedAt: T0, serverFailures: 1 })).toEqual({ retry: true, waitMs: 3000 });
		expect(retryDecision({ kind: 'serverError', hintMs: 100 }, { now: T0, callStartedAt: T0, serverFailures: 3 })).toEqual({ retry: true, waitMs: 2000 });
	});

	test('an unknown host is not retried; a stopped execution ends any retry', () => {
		expect(retryDecision({ kind: 'unknownHost' }, { now: T0, callStartedAt: T0, serverFailures: 1 })).toEqual({ retry: false, reason: 'notRetryable' });
		expect(retryDecision({ kind: 'rateLimited' }, { now: T0, callStartedAt: T0, keyLastAcceptedAt: T0, serverFailures: 0, cancelled: true })).toEqual({
			retry: false,
			reason: 'cancelled',
		});
		expect(retryDecision({ kind: 'serverError' }, { now: T0, callStartedAt: T0, serverFailures: 1, cancelled: true })).toEqual({
			retry: false,
			reason: 'cancelled',
		});
	});

	test('backoff doubles and is capped at 8 s', () => {
		expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => backoffMs(attempt))).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
	});
});
