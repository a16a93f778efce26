/** What a poll may spend (calls before its deadline) and its "now" on the API server's clock. */
import { MIN_GAP_MS, SAFETY_MARGIN_MS } from '../../shared/constants';
import { MIN_ATTEMPT_MS } from '../../shared/transport/deadline';

/**
 * "Now" on the API server's clock: its `Date` header when it sent one (1 s resolution, so at most one
 * second late, never early); otherwise n8n's clock corrected by the skew measured at an earlier poll.
 */
export function serverNow(serverDate: number | undefined, localNow: number, previousSkewMs: number | undefined): number {
	if (serverDate !== undefined && Number.isFinite(serverDate)) return serverDate;
	return localNow + (previousSkewMs ?? 0);
}

/** The poll's "now": fixed by the first answer of the poll (its `Date` header). */
export class PollClock {
	private value: number | undefined;
	private skew: number | undefined;

	constructor(
		private readonly previousSkewMs: number | undefined,
		private readonly localNow: () => number = Date.now,
	) {}

	observe(serverDate: number | undefined): void {
		if (this.value !== undefined) return;
		const local = this.localNow();
		this.value = serverNow(serverDate, local, this.previousSkewMs);
		if (serverDate !== undefined) this.skew = serverDate - local;
	}

	get now(): number {
		if (this.value === undefined) this.observe(undefined);
		return this.value as number;
	}

	get skewMs(): number | undefined {
		return this.skew;
	}
}

/** Calls the poll can still afford. */
export interface Budget {
	left(): number;
	answered(): void;
}

/**
 * Calls the poll can still afford before `deadline`, from the mean gap between answers measured in this
 * poll (before two answers, the contract's 1 call per second).
 */
export class CallBudget implements Budget {
	private readonly answers: number[] = [];

	constructor(
		readonly deadline: number,
		private readonly clock: () => number = Date.now,
	) {}

	answered(): void {
		this.answers.push(this.clock());
	}

	get perCallMs(): number {
		const n = this.answers.length;
		if (n < 2) return MIN_GAP_MS + SAFETY_MARGIN_MS;
		return Math.max(1, (this.answers[n - 1] - this.answers[0]) / (n - 1));
	}

	left(): number {
		// A call is only sent while MIN_ATTEMPT_MS remain (deadline.ts). Headroom: the gap varies (another
		// workflow on the same key, a slow answer): 10% of what remains, but never more than one call's
		// time — with n8n's 36 s budget 10% is about 3 calls of 27, pages a backlog's poll then never
		// reads. A gap longer than measured only cuts the poll at its deadline (the next poll goes on).
		const remaining = this.deadline - MIN_ATTEMPT_MS - this.clock();
		if (remaining < 0) return 0;
		const perCall = this.perCallMs;
		return Math.max(1, Math.floor((remaining - Math.min(0.1 * remaining, perCall)) / perCall));
	}
}
