/**
 * The workflows and credentials of the queue-mode suite: a Webhook that starts a Return All of this
 * package's node (one execution per call, queued to the workers), and the Booking Requests Trigger
 * polling at second 0 of every minute (a fixed cron second, so the test knows when main polls).
 */
import { randomUUID } from 'node:crypto';

import type { CredentialImport, WorkflowImport } from '../../../../harness/n8n/workflows';

/** The queue edition (editions/queue): node types are named after the package. */
export const PKG = 'n8n-nodes-booking-requests-queue';
export const ACTION = `${PKG}.bookingRequests`;
export const TRIGGER = `${PKG}.bookingRequestsTrigger`;
export const CRED_TYPE = 'bookingRequestsApi';
export const PAGER_NODE = 'Return All';
export const TRIGGER_NODE = 'Booking Requests Trigger';

export interface CredentialRef {
	id: string;
	name: string;
}

export function credential(ref: CredentialRef, data: { apiKey: string; baseUrl: string; redisUrl?: string }): CredentialImport {
	// The Redis URL only counts with "Share Rate Limit Across n8n Processes" on (credential toggle).
	return { ...ref, type: CRED_TYPE, data: data.redisUrl ? { ...data, shareRateLimit: true } : { ...data } };
}

/**
 * Webhook (GET /webhook/<path>) -> Booking Requests, Return All. The webhook answers with every item
 * of the last node (`responseMode: lastNode`, `responseData: allEntries`) once the worker finished.
 */
export function webhookPager(
	id: string,
	path: string,
	cred: CredentialRef,
	operation: Record<string, unknown> = { resource: 'bookingRequest', operation: 'getAll' },
): WorkflowImport {
	return {
		id,
		name: `queue e2e ${path}`,
		nodes: [
			{
				id: 'wh',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'GET', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
			},
			{
				id: 'pager',
				name: PAGER_NODE,
				type: ACTION,
				typeVersion: 1,
				position: [220, 0],
				parameters: { ...operation, returnAll: true },
				credentials: { [CRED_TYPE]: cred },
			},
		],
		connections: { Webhook: { main: [[{ node: PAGER_NODE, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/**
 * The trigger alone (its executions carry the emitted items), polling at second `cronSecond` of every
 * minute. Defaults: node version 1 (Skip Customers Who Booked off), Session Abandoned + Session Completed.
 */
export function triggerWorkflow(
	id: string,
	cred: CredentialRef,
	opts: { cronSecond?: number; abandonedAfterMinutes?: number; typeVersion?: number; events?: string[] } = {},
): WorkflowImport {
	return {
		id,
		name: 'queue e2e trigger',
		nodes: [
			{
				id: 'trigger',
				name: TRIGGER_NODE,
				type: TRIGGER,
				typeVersion: opts.typeVersion ?? 1,
				position: [0, 0],
				parameters: {
					events: opts.events ?? ['sessionAbandoned', 'sessionCompleted'],
					abandonedAfterMinutes: opts.abandonedAfterMinutes ?? 1,
					// n8n refuses sub-minute polls; a fixed second makes the poll time known to the test
					pollTimes: { item: [{ mode: 'custom', cronExpression: `${opts.cronSecond ?? 0} * * * * *` }] },
				},
				credentials: { [CRED_TYPE]: cred },
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	};
}
