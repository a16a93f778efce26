/**
 * n8n 2.x's durable poll scheduler, as the queue e2e files use it: the environment that turns it on,
 * the budget it gives a poll, its record of each poll occurrence (`scheduled_task`), and the items the
 * trigger's executions emitted.
 */
import type { QueueWorld } from './world';
import { FINISHED, waitForExecutions } from './runs';
import { TRIGGER_NODE } from './workflows';

export const DURABLE_SCHEDULER = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
};
/** n8n 2.x defaults (2.40.7 and 2.41.1): N8N_SCHEDULER_POLL_TIMEOUT 45 s, N8N_SCHEDULER_LEASE_DURATION 60 s. */
export const POLL_TIMEOUT_MS = 45_000;
const LEASE_MS = 60_000;

/** What n8n gives a poll (trigger-execution-context.factory.js): the ceiling minus a margin of 20 % (5 s .. half). */
export function pollBudgetMs(): number {
	const ceiling = Math.min(POLL_TIMEOUT_MS, LEASE_MS);
	const margin = Math.min(Math.max(0.2 * ceiling, 5_000), ceiling / 2);
	return ceiling - margin;
}

/**
 * A poll's scheduler task also covers n8n's own work around poll() (loading the published workflow,
 * the execution context, the expression isolate): 0.3–0.5 s measured here on quiet polls.
 */
export const N8N_OVERHEAD_MS = 1_000;

export interface PollTask {
	id: string;
	status: string;
	scheduledFor: string;
	startedAt: string | null;
	finishedAt: string | null;
	dispatchedAt: string | null;
	errorMessage: string | null;
	/** The n8n instance that ran the poll (its host id: `main-…` or `worker-…`). */
	claimedBy: string | null;
}

/** The scheduler's record of every poll occurrence of the workflow's trigger. */
export async function pollTasks(world: QueueWorld, workflowId: string): Promise<PollTask[]> {
	return await world.postgres.rows<PollTask>(
		`SELECT t.id::text, t.status, t."scheduledFor", t."startedAt", t."finishedAt", t."dispatchedAt", t."errorMessage", t."claimedBy"
		 FROM scheduled_task t WHERE t."taskType" = 'workflow:poll-trigger' AND t.payload->>'workflowId' = '${workflowId}' ORDER BY t.id`,
	);
}

/** How long a poll's task ran (null while it has not ended). */
export const taskMs = (task: PollTask): number | null =>
	task.startedAt && task.finishedAt ? Date.parse(task.finishedAt) - Date.parse(task.startedAt) : null;

/** Every item the workflow's trigger executions after `afterId` emitted (read through n8n's REST API). */
export async function emittedSince(world: QueueWorld, workflowId: string, afterId: number): Promise<Array<Record<string, unknown>>> {
	const records = await waitForExecutions(world.postgres, workflowId, afterId, (rows) => rows.every((row) => FINISHED.includes(row.status)), 60_000, 'trigger executions');
	const rest = await world.n8n.rest();
	const items: Array<Record<string, unknown>> = [];
	for (const record of records) items.push(...((await rest.waitForExecution(record.id)).items[TRIGGER_NODE] ?? []));
	return items;
}
