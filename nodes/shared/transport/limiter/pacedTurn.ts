import { sleep } from '../../utils';
import { deadlineReached } from '../deadline';
import type { RunOptions, ServerAnswer } from './keyLimiter';
import {
	afterAnswer,
	earliestSendAt,
	roundTripLowerBound,
	warningDue,
	type Answer,
	type KeyState,
	type PacingPolicy,
	type RoundTrips,
} from './pacing';

/**
 * One turn of a key, the same for both limiters: read the key's pacing state, wait until the pacing
 * policy allows sending, send, fold the answer into the state and write it back. The limiter around it
 * decides who has the turn (Bottleneck: one job at a time, in this process or across processes) and
 * where the state lives (memory, or Redis).
 */

/** This process's side of a key's pacing: its own round trips and when it last warned. */
export class KeyPacer {
	samples: RoundTrips = [];
	private lastWarnedAt?: number;

	constructor(
		readonly policy: PacingPolicy,
		private readonly random: () => number = Math.random,
	) {}

	/** When this process may send the key's next request, given the key's state. */
	sendAt(key: KeyState, now = Date.now()): number {
		return earliestSendAt(key, roundTripLowerBound(this.samples, now, this.policy), this.random(), this.policy);
	}

	/** Folds an answer in; returns the key's next state and whether a contention warning is due now. */
	record(before: KeyState, answer: Answer): { key: KeyState; warn: boolean } {
		const next = afterAnswer(before, this.samples, answer, this.policy);
		this.samples = next.samples;
		const warn = next.verdict === 'contention' && warningDue(this.lastWarnedAt, answer.answeredAt, this.policy);
		if (warn) this.lastWarnedAt = answer.answeredAt;
		return { key: next.key, warn };
	}
}

/** Where a key's pacing state lives while a turn is held. */
export interface TurnStore {
	read(): KeyState | Promise<KeyState>;
	write(state: KeyState): void | Promise<void>;
}

export type TurnOutcome<T> =
	| { kind: 'sent'; value: T }
	/** The wait is longer than the turn may be held: give the turn back and queue again at `notBefore`. */
	| { kind: 'later'; notBefore: number };

/** How a turn is taken: the caller's run options, and the limits the limiter puts on holding the turn. */
export interface TurnOptions<T> extends RunOptions<T> {
	/** The longest wait inside the turn before sending (default: no limit). */
	maxWaitMs?: number;
	/** Checked right before sending: an error here means the turn can no longer be trusted. */
	beforeSend?: () => Error | undefined;
}

/**
 * The longest single sleep of a wait: a wait is slept in slices so that a stopped execution leaves at
 * most one slice of n8n-workflow's timer behind (the wait itself ends at once on abort).
 */
const SLICE_MS = 1000;

/**
 * Waits until `time` (Date.now() clock); rejects at once when `signal` aborts. Built from
 * n8n-workflow's `sleep` (n8n Cloud allows no timers of a node's own; `sleepWithAbort` exists on
 * n8n 1.x only): each slice races the execution's abort signal.
 */
export async function waitUntil(time: number, signal?: AbortSignal): Promise<void> {
	for (;;) {
		if (signal?.aborted) throw abortError();
		const wait = time - Date.now();
		if (wait <= 0) return;
		await sleepOrAbort(Math.min(wait, SLICE_MS), signal);
	}
}

/** n8n-workflow's `sleep(ms)`, rejected at once with `abortError()` when `signal` aborts. */
async function sleepOrAbort(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	let onAbort: (() => void) | undefined;
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(abortError());
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms), aborted]);
	} finally {
		if (onAbort) signal.removeEventListener('abort', onAbort);
	}
}

export function abortError(): Error {
	const error = new Error('The execution was stopped before the request was sent');
	error.name = 'AbortError';
	return error;
}

export async function takeTurn<T>(pacer: KeyPacer, store: TurnStore, send: () => Promise<T>, options: TurnOptions<T>): Promise<TurnOutcome<T>> {
	const key = await store.read();
	const sendAt = pacer.sendAt(key);
	if (sendAt > (options.startBy ?? Infinity)) throw deadlineReached('the key had a free turn');
	if (sendAt - Date.now() > (options.maxWaitMs ?? Infinity)) return { kind: 'later', notBefore: sendAt };
	await waitUntil(sendAt, options.signal);
	const problem = options.beforeSend?.();
	if (problem) throw problem;

	const sentAt = Date.now();
	let value: T;
	let returned = false;
	try {
		value = await send();
		returned = true;
	} finally {
		// `send` threw: the request may have reached the server; the next one is paced from now.
		if (!returned) await Promise.resolve(store.write(pacer.record(key, { kind: 'noAnswer', sentAt, answeredAt: Date.now() }).key)).catch(() => undefined);
	}
	const answer: ServerAnswer = options.answerOf?.(value) ?? { kind: 'accepted' };
	const { key: next, warn } = pacer.record(key, { kind: answer.kind, sentAt, answeredAt: Date.now(), retryAfterMs: answer.retryAfterMs });
	await store.write(next);
	if (warn) options.onContention?.();
	return { kind: 'sent', value };
}
