/**
 * The reference a poll's CPU is compared with: the same calls made by the action node a user would
 * run — Get Many of the session list and of the request list with a Limit of as many pages as the
 * poll read of each (100 per page, from page 1: the same kind and number of pages, Simplify off),
 * Get Many of the forms, and Get for each request the poll got by id. One n8n execution per list
 * (harness/inProcessN8n.ts runAction): what reading those pages costs in the same process.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { Harness } from '../inProcessN8n';
import type { CallCount } from './protocol';

export const callsOf = (count: CallCount): number => count.sessionPages + count.requestPages + count.formPages + count.requestIds.length + count.other;

/** The action node's runs that make the same calls as `count`. */
export function referenceRuns(count: CallCount): INodeParameters[] {
	const runs: INodeParameters[] = [];
	if (count.sessionPages > 0) runs.push({ resource: 'bookingSession', operation: 'getAll', returnAll: false, limit: count.sessionPages * 100, simplify: false });
	if (count.requestPages > 0) runs.push({ resource: 'bookingRequest', operation: 'getAll', returnAll: false, limit: count.requestPages * 100, simplify: false });
	if (count.formPages > 0) runs.push({ resource: 'bookingForm', operation: 'getAll', returnAll: true, simplify: false });
	for (const requestId of count.requestIds) runs.push({ resource: 'bookingRequest', operation: 'get', requestId, simplify: false });
	return runs;
}

/** Reads the same pages as a poll that made the calls of `count`; fails on an error of any run. */
export async function readSamePages(harness: Harness, count: CallCount): Promise<void> {
	for (const parameters of referenceRuns(count)) {
		const result = await harness.runAction(parameters);
		if (result.error) throw result.error;
	}
}
