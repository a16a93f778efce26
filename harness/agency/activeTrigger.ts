/**
 * A published trigger as n8n's main holds it (n8n-core's ActiveWorkflowTriggers): one Workflow and one
 * PollContext per workflow, made once at publishing and used for every poll, the static data kept in
 * memory between polls (an ObservableObject) and saved — rewritten whole, as JSON — only after a poll
 * that emits items and changed it. Only the node's public entry point is called: its `poll` in the
 * PollContext. Each trigger has its own workflow id, so n8n's and the node's per-workflow guards see
 * separate workflows, as for an agency's clients.
 */
import { PollContext } from 'n8n-core';
import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import type { Harness } from '../inProcessN8n';
import { TRIGGER_TYPE } from '../inProcessN8n';

export interface ActiveTriggerOptions {
	workflowId: string;
	parameters: INodeParameters;
	/** Default 1.1: the version a node added today has. */
	typeVersion?: number;
	/** What the context's getPollBudgetMs() answers; default n8n's own (5 minutes). */
	budgetMs?: number;
}

export interface TriggerPoll {
	/** The items emitted (their json), empty when the poll returned null. */
	items: IDataObject[];
	/** Bytes n8n wrote for the static data after this poll (JSON), or null when it saved nothing. */
	savedBytes: number | null;
	/** CPU of that save (process, ms; 0 when nothing was saved): n8n's part of the poll, whatever the node does. */
	saveCpuMs: number;
}

const CREDENTIAL_REF = { bookingRequestsApi: { id: 'cred-1', name: 'Booking Requests (test)' } };

export class ActiveTrigger {
	readonly workflow: Workflow;
	private readonly context: PollContext;

	/** `harness`: one per client (its credential: the client's key and Base URL). */
	constructor(
		private readonly harness: Harness,
		options: ActiveTriggerOptions,
	) {
		const node: INode = {
			id: `trigger-${options.workflowId}`,
			name: 'Booking Requests Trigger',
			type: TRIGGER_TYPE,
			typeVersion: options.typeVersion ?? 1.1,
			position: [0, 0],
			parameters: options.parameters,
			credentials: CREDENTIAL_REF,
		};
		const description = harness.nodeTypes.getByNameAndVersion(TRIGGER_TYPE).description;
		node.parameters = NodeHelpers.getNodeParameters(description.properties, node.parameters, true, false, node, description) ?? {};
		this.workflow = new Workflow({ id: options.workflowId, nodes: [node], connections: {}, active: true, nodeTypes: harness.nodeTypes, staticData: {} });
		const budget = options.budgetMs === undefined ? undefined : () => options.budgetMs as number;
		// The harness's PollContext call (inProcessN8n.ts), made once as n8n makes it at publishing.
		this.context = new PollContext(this.workflow, node, harness.additionalData, 'trigger', 'activate', undefined, undefined, undefined, undefined, undefined, budget);
	}

	/** One scheduled poll, then n8n's save of the static data when the poll emitted. */
	async poll(): Promise<TriggerPoll> {
		const type = this.harness.nodeTypes.getByNameAndVersion(TRIGGER_TYPE);
		const result = await type.poll!.call(this.context);
		const items = result ? result.flat().map((item) => item.json) : [];
		const before = process.cpuUsage();
		const savedBytes = items.length > 0 ? this.save() : null;
		const { user, system } = process.cpuUsage(before);
		return { items, savedBytes, saveCpuMs: savedBytes === null ? 0 : (user + system) / 1000 };
	}

	/** The static data as n8n would store it now (JSON), in bytes. */
	stateBytes(): number {
		return Buffer.byteLength(JSON.stringify(this.workflow.staticData));
	}

	/** The static data as n8n stores it (its JSON, without n8n's change flag). */
	stateJson(): string {
		return JSON.stringify(this.workflow.staticData);
	}

	/** WorkflowStaticDataService.saveStaticData: only when the data changed; the whole object, as JSON. */
	private save(): number | null {
		const data = this.workflow.staticData as IDataObject & { __dataChanged?: boolean };
		if (data.__dataChanged !== true) return null;
		const bytes = Buffer.byteLength(JSON.stringify(data));
		data.__dataChanged = false;
		return bytes;
	}
}
