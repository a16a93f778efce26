/**
 * A time budget for a group of calls (the trigger's poll budget). A call is only started when it can
 * finish in time: its wait for the key's turn, its retries and its own timeout all end by the
 * deadline. When the budget is spent, the call fails with a DeadlineReachedError and sends nothing
 * more; the caller keeps what it already has (the trigger emits the events that are complete and
 * resumes on the next poll). Times are on this process's clock (Date.now()).
 */

/**
 * No request is started with less than this left: it could not get an answer in time. The API answers
 * a page in well under a second; a request still unanswered at the deadline is aborted and the poll
 * keeps what it has. Every millisecond kept here is idle at the end of each poll of a backlog.
 */
export const MIN_ATTEMPT_MS = 1_000;

const DEADLINE_REACHED = Symbol.for('n8n-nodes-booking-requests.deadline-reached');

export interface DeadlineReachedError extends Error {
	[DEADLINE_REACHED]: true;
}

export function deadlineReached(what: string): DeadlineReachedError {
	const error = new Error(`The time budget ran out before ${what}`) as DeadlineReachedError;
	error.name = 'DeadlineReachedError';
	error[DEADLINE_REACHED] = true;
	return error;
}

/** Recognised across bundles (a registered symbol, not `instanceof`). */
export function isDeadlineReached(error: unknown): error is DeadlineReachedError {
	return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[DEADLINE_REACHED] === true;
}

/** Milliseconds left until `deadline` (Infinity without one). */
export function remainingMs(deadline: number | undefined, now = Date.now()): number {
	return deadline === undefined ? Infinity : deadline - now;
}
