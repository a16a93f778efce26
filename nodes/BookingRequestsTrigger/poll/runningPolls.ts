/**
 * Polls of one trigger node never overlap inside one n8n process: n8n's cron poll scheduler starts a
 * poll at every interval even while the previous one still runs (an interval shorter than the budget).
 * A poll that starts then returns nothing and leaves the state to the running one, instead of both
 * reporting the same events. Every poll ends its calls by its deadline, so a mark older than the budget
 * plus one request timeout is from a poll that died without clearing it: ignored.
 *
 * Module state: the build emits one module per source file, so there is one map per process.
 */
const RUNNING = new Map<string, number>();

/** Workflow + node → until when the running poll may hold it (ms, this process's clock). */
export function runningPolls(): Map<string, number> {
	return RUNNING;
}
