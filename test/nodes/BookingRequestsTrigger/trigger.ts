/**
 * Runs the trigger's `poll` in n8n's real PollContext (test/harness) across polls, with the workflow
 * static data persisted like n8n does: as JSON, and — when asked — NOT kept after a poll that returned
 * null (n8n 1.x saves static data only when a poll emits).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Harness, PollOptions, PollState } from '../../../harness/inProcessN8n';
import type { Sandbox } from '../../../sandbox';
import { withoutOwn429s } from '../../support/pacing429';

export const NODE_DATA_KEY = 'node:Booking Requests Trigger';

export interface PollOutcome {
	items: IDataObject[] | null;
	/** API calls the poll made (from the sandbox log; the API's own 429s left out: callsSince). */
	calls: number;
	/** Calls per path, e.g. { '/api/v1/abandoned-sessions': 2 }. */
	byPath: Record<string, number>;
}

export class TriggerRun {
	state: PollState = { staticData: {} };

	constructor(
		private readonly harness: Harness,
		private readonly sandbox: Sandbox,
		public parameters: INodeParameters,
		/** false: the static data of a poll that returned null is thrown away (n8n 1.x). */
		public keepStateOfNullPolls = true,
	) {}

	/** The trigger's own state inside the node static data (a JSON copy). */
	get stored(): IDataObject | undefined {
		const node = this.state.staticData[NODE_DATA_KEY] as IDataObject | undefined;
		return node?.bookingRequestsTrigger ? (JSON.parse(JSON.stringify(node.bookingRequestsTrigger)) as IDataObject) : undefined;
	}

	async poll(mode: 'trigger' | 'manual' = 'trigger', options: PollOptions = {}): Promise<PollOutcome> {
		const saved = JSON.stringify(this.state.staticData);
		const logStart = this.sandbox.log.length;
		try {
			// These runs test the engine (which events, when, at what cost): raw items, as before Simplify
			// existed; the simplified shape is tested in items.unit.test.ts and simplified.test.ts.
			const result = await this.harness.poll({ simplify: false, ...this.parameters }, this.state, mode, options);
			const items = result ? result[0].map((item) => item.json) : null;
			const keep = result !== null || this.keepStateOfNullPolls;
			// What n8n writes to its database is JSON; a poll whose data is not saved leaves the older copy.
			this.state.staticData = JSON.parse(keep ? JSON.stringify(this.state.staticData) : saved) as IDataObject;
			return { items, ...this.callsSince(logStart) };
		} catch (error) {
			// A failed poll is never saved.
			this.state.staticData = JSON.parse(saved) as IDataObject;
			throw error;
		}
	}

	/**
	 * The poll's calls, without the API's own 429s (not injected faults): on a busy machine a stall
	 * can make two paced requests arrive closer than the limit, and the retry is the machine's cost,
	 * not the trigger's. Whether the pacing caused any is judged apart (pacing429s in each suite).
	 */
	private callsSince(start: number): { calls: number; byPath: Record<string, number> } {
		const entries = withoutOwn429s(this.sandbox.log.slice(start));
		const byPath: Record<string, number> = {};
		for (const entry of entries) {
			const path = entry.path.startsWith('/api/v1/requests/') ? '/api/v1/requests/{id}' : entry.path;
			byPath[path] = (byPath[path] ?? 0) + 1;
		}
		return { calls: entries.length, byPath };
	}
}

export const rl = (value: string, mode: 'id' | 'list' = 'id') => ({ __rl: true, mode, value });

export function eventIds(items: IDataObject[] | null): string[] {
	return (items ?? []).map((item) => String(item.event_id)).sort();
}
