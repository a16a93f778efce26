/**
 * The pacing policy of an API key: when the next request may be sent so that the SERVER sees at
 * least `minGapMs` between two arrivals, and what a 429 changes. Pure: no timers, no I/O; the time
 * (and the one random draw) are arguments. Used by the per-process limiter and by the Redis shared
 * limiter alike (there, KeyState travels through Redis).
 *
 * The model. Per request the client knows `sentAt` (when it handed the request to n8n's helper) and
 * `answeredAt`; the round trip RTT = answeredAt − sentAt = e + q, where e is the time until the
 * request reaches the server's rate check (n8n's helper, 4–95 ms, plus the way there) and q the rest
 * (server, way back, helper). Sending the next request at
 *
 *     answeredAt_prev − L + minGap + margin        (never before answeredAt_prev: one request in flight)
 *
 * gives a gap at the server of minGap + margin + (e_next + q_prev − L), which is ≥ minGap + margin
 * when L is a lower bound of the round trip, and equals minGap + margin at a constant RTT whatever
 * the RTT (the former rule, "1,015 ms after the previous response", added the whole RTT to each gap).
 *
 * L comes from this process's own recent round trips (roundTripLowerBound): the smallest, minus an
 * uncertainty that shrinks with the number of samples. Few samples of a jittery route say little
 * about how fast the next request can be, so L stays near 0 (the old "from the response" rule) until
 * the samples agree; on a constant route the third request already gets most of the RTT (the first
 * call's own round trip stands in), and a scheduled run of an idle key starts from the round trips
 * of its earlier runs once its own first one agrees with them. When the previous request
 * was another process's (Redis mode), the smaller of the two processes' L is used: safe whatever
 * share of the round trip lies before the server, as long as it is about the same share for both
 * (docs/rate-limiting.md, docs/guides/queue-mode.md).
 *
 * A 429 is the backstop, and nothing is lost (the caller retries after Retry-After). It is also
 * information:
 * - "jitter": the pacing itself came too close (a round trip faster than any seen). A small caution
 *   margin is added to every gap and taken off again, 5 ms per accepted request.
 * - "contention": someone else uses the key — this request was sent ≥ minGap after the previous
 *   answer (so it arrived ≥ minGap after the previous arrival whatever the network did), or the key
 *   had no previous request, or 429s keep coming. The key's gap is widened multiplicatively (AIMD:
 *   +3 s, then +4 s at most) and narrowed additively (1 s per accepted request) once no contention 429
 *   came for 6 s. The widening is not applied to the retry after a single 429 nor to the request
 *   after that: the 429 has just shown that the other client was served, so those two fit before its
 *   next request; the gap after them leaves it room (a client at 0.5 request/s then gets more than
 *   half of its calls through: simulated and measured 57–63%). After two 429s in a row the retries
 *   are spread out too. Each widened gap is drawn ±20% so that a client with a fixed period cannot
 *   stay locked out by ours. Back to full pace about 10 s after the other client stops.
 */

import { MIN_GAP_MS, SAFETY_MARGIN_MS } from '../../constants';

/** The policy's constants (see PACING for the values). */
export interface PacingPolicy {
	/** The server's minimum gap between two arrivals of one key (contract: 1 s). */
	minGapMs: number;
	/** Added to every gap: clock granularity and the model's small errors. */
	marginMs: number;
	/** Round trips kept per process and key. */
	sampleWindow: number;
	/**
	 * Round trips older than this count only alongside a newer one (the route may have changed while
	 * the key was idle: this run's own first round trip must be there too)…
	 */
	sampleMaxAgeMs: number;
	/** …and older than this they are forgotten (8 days: a daily or weekly schedule keeps its round trips). */
	priorMaxAgeMs: number;
	/**
	 * How often L may exceed the true smallest round trip when the round trip is uniformly spread
	 * (the uncertainty factor is derived from it; see roundTripLowerBound).
	 */
	overestimateChance: number;
	/**
	 * The first call of a process is slower before it reaches the server (n8n's helper: up to ~90 ms
	 * measured); while fewer than two other round trips are known, the first call's round trip less
	 * this much stands in as a sample (0 and below: the first call is not used).
	 */
	firstCallExtraMs: number;
	/**
	 * The share of that stand-in credited to the FIRST gap, while no other round trip is known. 0: the
	 * first gap gets no credit. Crediting it bets that the route is steady; on a jittery route the bet
	 * loses often and a 429 costs a second (simulated in pacing.unit.test.ts; docs/rate-limiting.md,
	 * "A cold key").
	 */
	firstGapCredit: number;
	/** Caution added to every gap after a jitter 429, up to `cautionCapMs`, taken off per accepted request. */
	cautionStepMs: number;
	cautionCapMs: number;
	cautionDecayMs: number;
	/** Contention: extra gap max(widenFirstMs, extra × widenFactor), at most widenCapMs… */
	widenFirstMs: number;
	widenFactor: number;
	widenCapMs: number;
	/** Each gap with an extra is drawn uniformly in extra × [1 − spread, 1 + spread]. */
	widenSpread: number;
	/** …applied only after this many accepted answers, or 429s, in a row (0: always). */
	widenAfterStreak: number;
	/** The extra holds this long after the last contention 429… */
	holdWideMs: number;
	/** …then shrinks by this much per accepted request. */
	narrowStepMs: number;
	/** A 429 within this time after the previous 429 of the key counts as contention. */
	contentionWindowMs: number;
	/** At most one contention warning per key and process in this time. */
	warnEveryMs: number;
}

export const PACING: Readonly<PacingPolicy> = Object.freeze({
	minGapMs: MIN_GAP_MS,
	marginMs: SAFETY_MARGIN_MS,
	sampleWindow: 16,
	sampleMaxAgeMs: 5 * 60_000,
	priorMaxAgeMs: 8 * 24 * 3_600_000,
	overestimateChance: 0.1,
	firstCallExtraMs: 95,
	firstGapCredit: 0,
	cautionStepMs: 25,
	cautionCapMs: 100,
	cautionDecayMs: 5,
	widenFirstMs: 3000,
	widenFactor: 2,
	widenCapMs: 4000,
	widenSpread: 0.2,
	widenAfterStreak: 2,
	holdWideMs: 6000,
	narrowStepMs: 1000,
	contentionWindowMs: 15_000,
	warnEveryMs: 60_000,
});

/**
 * The policy for a server whose minimum gap is `minGapMs` (tests run the sandbox with a shorter gap):
 * the contention timings scale with it; margins and sample ages stay as they are.
 */
export function policyForGap(minGapMs: number, base: PacingPolicy = PACING): PacingPolicy {
	const scale = minGapMs / base.minGapMs;
	return {
		...base,
		minGapMs,
		widenFirstMs: base.widenFirstMs * scale,
		widenCapMs: base.widenCapMs * scale,
		holdWideMs: base.holdWideMs * scale,
		narrowStepMs: base.narrowStepMs * scale,
		contentionWindowMs: base.contentionWindowMs * scale,
	};
}

/**
 * What every process using the key must know about the key's last request and its pacing. In Redis
 * mode it is stored in Redis (times are absolute, on the processes' clocks).
 */
export interface KeyState {
	/** When the answer to the key's last request arrived (or the request failed without one). */
	lastAnsweredAt?: number;
	/** The round-trip lower bound L of the process that sent it (0: unknown, e.g. no answer). */
	lastLowerBoundMs: number;
	/** No request before this (a 429's Retry-After). */
	pausedUntil: number;
	/** Contention widening of the gap (AIMD). */
	extraGapMs: number;
	/** The widening does not shrink before this time. */
	holdWideUntil: number;
	/** Caution after a jitter 429. */
	cautionMs: number;
	/** Accepted answers in a row (the widening waits for widenAfterStreak of them)… */
	acceptedStreak: number;
	/** …or for as many 429s in a row. */
	rejectedStreak: number;
	last429At?: number;
	lastAcceptedAt?: number;
}

export const INITIAL_KEY_STATE: Readonly<KeyState> = Object.freeze({
	lastLowerBoundMs: 0,
	pausedUntil: 0,
	extraGapMs: 0,
	holdWideUntil: 0,
	cautionMs: 0,
	acceptedStreak: 0,
	rejectedStreak: 0,
});

/**
 * One process's own round trips with the key, oldest first: `at` = answeredAt, `ms` = RTT. `first`
 * marks the process's first call with the key, which is not representative (n8n's helper is up to
 * ~90 ms slower on its first call) and is left out of L.
 */
export type RoundTrips = ReadonlyArray<{ at: number; ms: number; first?: boolean }>;

/**
 * L: a conservative lower bound of this process's round trip. With n representative samples (the
 * first call left out, at most `sampleWindow`), m = n − 1:
 *
 *     L = min − k × (max − min) / m,    k = m × (p^(−1/m) − 1),   p = overestimateChance
 *
 * (max − min)/m estimates the spacing of the samples near the minimum; k is chosen so that, for a
 * uniformly spread round trip, L exceeds the true minimum with probability p (the smallest sample
 * and the spread behave like exponential and gamma spacings: P = (1 + k/m)^(−m)). k is 9 with two
 * samples, 3.5 with four, 2.5 with sixteen: with few samples of a jittery route L stays ≈ 0 (the old
 * "from the response" rule), while samples that agree (a constant route) give L ≈ RTT at once.
 *
 * Which samples (the cold key):
 * - A key idle for more than `sampleMaxAgeMs` (a scheduled run): its older round trips (up to
 *   `priorMaxAgeMs`) count again as soon as the run's own first round trip is known and as long as
 *   the run's round trips fit them (withinPrior). A route that changed while the key was idle shows
 *   in the run's own round trips (outside the older ones' range) and drops them: the run then starts
 *   as a fresh one. Only a new route whose first round trips happen to fall in the old range can be
 *   faster than it looks (at most a 429, a jitter one, as after any route change to faster).
 * - A fresh process: while fewer than two representative round trips are known, the first call's
 *   round trip less `firstCallExtraMs` (n8n's helper is slower on its first call, before the request
 *   leaves) stands in as one more sample, so the second gap already gets a credit when the round
 *   trips agree. The first gap gets none: one round trip cannot tell a constant route from a jittery
 *   one (docs/rate-limiting.md, "What no pacing can do").
 */
export function roundTripLowerBound(samples: RoundTrips, now: number, policy: PacingPolicy = PACING): number {
	const kept = samples.filter((sample) => now - sample.at <= policy.priorMaxAgeMs);
	const isFresh = (sample: RoundTrips[number]) => now - sample.at <= policy.sampleMaxAgeMs;
	const fresh = kept.filter((sample) => isFresh(sample) && !sample.first).map((sample) => sample.ms);
	const older = kept.filter((sample) => !isFresh(sample) && !sample.first).map((sample) => sample.ms);
	let recent = fresh.slice(-policy.sampleWindow);
	if (fresh.length > 0 && older.length >= 2 && fresh.every((ms) => withinPrior(ms, older, policy))) recent = [...older, ...fresh].slice(-policy.sampleWindow);
	const first = kept.find((sample) => sample.first && isFresh(sample));
	if (recent.length === 0 && first && policy.firstGapCredit > 0) return Math.max(0, first.ms - policy.firstCallExtraMs) * policy.firstGapCredit;
	if (recent.length < 2 && first && policy.firstCallExtraMs > 0) recent = [Math.max(0, first.ms - policy.firstCallExtraMs), ...recent];
	return lowerBoundOf(recent, policy);
}

/** min − k × (max − min) / m over round trips in ms (0 with fewer than two). */
function lowerBoundOf(recent: number[], policy: PacingPolicy): number {
	if (recent.length < 2) return 0;
	const min = Math.min(...recent);
	const max = Math.max(...recent);
	const m = recent.length - 1;
	const k = m * (policy.overestimateChance ** (-1 / m) - 1);
	return Math.max(0, min - (k * (max - min)) / m);
}

/**
 * Whether a fresh round trip fits the older ones: within their range, widened by their own
 * uncertainty below the minimum (at least the margin). A route that changed while the key was idle
 * (faster, slower or more spread) shows in the run's own round trips and drops the older ones.
 */
function withinPrior(ms: number, older: number[], policy: PacingPolicy): boolean {
	const recent = older.slice(-policy.sampleWindow);
	const min = Math.min(...recent);
	const tolerance = Math.max(policy.marginMs, min - lowerBoundOf(recent, policy));
	return ms >= min - tolerance && ms <= Math.max(...recent) + tolerance;
}

/**
 * The earliest time this process may send the key's next request. `lowerBoundMs` is this process's L
 * (roundTripLowerBound); `random` in [0, 1) spreads a contention widening (0.5: its mean). 0 when
 * nothing holds the request back.
 */
export function earliestSendAt(key: KeyState, lowerBoundMs: number, random = 0.5, policy: PacingPolicy = PACING): number {
	if (key.lastAnsweredAt === undefined) return key.pausedUntil;
	const credit = Math.min(lowerBoundMs, key.lastLowerBoundMs);
	const widened = key.acceptedStreak >= policy.widenAfterStreak || key.rejectedStreak >= policy.widenAfterStreak;
	const extra = widened ? key.extraGapMs * (1 + policy.widenSpread * (2 * random - 1)) : 0;
	const gap = policy.minGapMs + policy.marginMs + key.cautionMs + extra;
	return Math.max(key.lastAnsweredAt + Math.max(0, gap - credit), key.pausedUntil);
}

/** How the server answered one request, as far as pacing is concerned. */
export type AnswerKind =
	/** Passed the rate check (any answer but a 429: 2xx, 4xx, 5xx). */
	| 'accepted'
	| 'rateLimited'
	/** No answer (network error, time-out): the request may or may not have reached the server. */
	| 'noAnswer';

export interface Answer {
	kind: AnswerKind;
	sentAt: number;
	answeredAt: number;
	/** Retry-After of a 429, in ms (already capped by the caller); default minGapMs. */
	retryAfterMs?: number;
}

export type Verdict = 'jitter' | 'contention';

export interface AfterAnswer {
	key: KeyState;
	samples: RoundTrips;
	/** For a 429: whether this process's own pacing probably caused it, or someone else uses the key. */
	verdict?: Verdict;
}

/**
 * Folds one answer into the key's state and this process's round trips. `before` is the key state the
 * request was paced with (its `lastAnsweredAt` is the request before this one).
 */
export function afterAnswer(before: KeyState, samples: RoundTrips, answer: Answer, policy: PacingPolicy = PACING): AfterAnswer {
	const now = answer.answeredAt;
	if (answer.kind === 'noAnswer') {
		// It may have arrived just before the error: pace the next one from now, without RTT credit.
		return { key: { ...before, lastAnsweredAt: now, lastLowerBoundMs: 0, acceptedStreak: 0, rejectedStreak: 0 }, samples };
	}
	const sample = { at: now, ms: Math.max(0, answer.answeredAt - answer.sentAt), ...(samples.length === 0 ? { first: true } : {}) };
	const nextSamples = [...samples, sample].slice(-policy.sampleWindow);
	const key: KeyState = { ...before, lastAnsweredAt: now, lastLowerBoundMs: roundTripLowerBound(nextSamples, now, policy) };

	key.acceptedStreak = answer.kind === 'accepted' ? before.acceptedStreak + 1 : 0;
	key.rejectedStreak = answer.kind === 'rateLimited' ? before.rejectedStreak + 1 : 0;
	if (answer.kind === 'accepted') {
		key.lastAcceptedAt = now;
		key.cautionMs = Math.max(0, before.cautionMs - policy.cautionDecayMs);
		if (now >= before.holdWideUntil) key.extraGapMs = Math.max(0, before.extraGapMs - policy.narrowStepMs);
		return { key, samples: nextSamples };
	}

	const verdict = classify429(before, answer, policy);
	key.last429At = now;
	key.pausedUntil = Math.max(before.pausedUntil, now + (answer.retryAfterMs ?? policy.minGapMs) + policy.marginMs);
	if (verdict === 'contention') {
		key.extraGapMs = Math.min(policy.widenCapMs, Math.max(policy.widenFirstMs, before.extraGapMs * policy.widenFactor));
		key.holdWideUntil = now + policy.holdWideMs;
	} else {
		key.cautionMs = Math.min(policy.cautionCapMs, before.cautionMs + policy.cautionStepMs);
	}
	return { key, samples: nextSamples, verdict };
}

/**
 * A 429 is contention (another client's request was accepted within the last second) when this
 * process cannot have caused it: the key had no previous request, or this one was sent ≥ minGap after
 * the previous answer (so it arrived ≥ minGap after the previous arrival whatever the network did), or
 * a 429 came shortly before. Otherwise it is taken for the pacing's own jitter.
 */
export function classify429(before: KeyState, answer: Pick<Answer, 'sentAt' | 'answeredAt'>, policy: PacingPolicy = PACING): Verdict {
	if (before.lastAnsweredAt === undefined) return 'contention';
	if (answer.sentAt - before.lastAnsweredAt >= policy.minGapMs) return 'contention';
	if (before.last429At !== undefined && answer.answeredAt - before.last429At <= policy.contentionWindowMs) return 'contention';
	return 'jitter';
}

/** Whether a contention warning is due for this key in this process (at most one per warnEveryMs). */
export function warningDue(lastWarnedAt: number | undefined, now: number, policy: PacingPolicy = PACING): boolean {
	return lastWarnedAt === undefined || now - lastWarnedAt >= policy.warnEveryMs;
}
