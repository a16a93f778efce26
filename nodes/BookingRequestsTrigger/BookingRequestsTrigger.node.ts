import { createHash } from 'node:crypto';

import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { bookingRequestsApiTest } from '../shared/methods/credentialTest';
import { searchForms } from '../shared/methods/listSearch';
import { resolveTarget } from '../shared/transport/request';
import { assertUuid } from '../shared/validation';
import { TRIGGER_DESCRIPTION, triggerProperties } from './description';
import type { TriggerSettings } from './diff';
import { diff, listsFor } from './diff';
import { fetchChanges } from './fetch';
import type { ItemOptions } from './items';
import { attachRequests, toItems } from './items';
import { pickSamples } from './samples';
import { readState, STATE_KEY } from './state';

const EVENT_VALUES = ['sessionAbandoned', 'sessionCompleted', 'requestCreated'] as const;

interface Parameters {
	settings: TriggerSettings;
	formId: string | undefined;
	/** How events become items (items.ts); `now` is set per poll. */
	output: Omit<ItemOptions, 'now'>;
}

async function readParameters(ctx: IPollFunctions): Promise<Parameters> {
	const node = ctx.getNode();
	const selected = ctx.getNodeParameter('events', []) as string[];
	const events = {
		sessionAbandoned: selected.includes('sessionAbandoned'),
		sessionCompleted: selected.includes('sessionCompleted'),
		requestCreated: selected.includes('requestCreated'),
	};
	if (!EVENT_VALUES.some((value) => events[value])) {
		throw new NodeOperationError(node, 'Select at least one event', {
			description: 'Choose Session Abandoned, Session Completed and/or New Request in "Events".',
		});
	}
	const minutes = Number(ctx.getNodeParameter('abandonedAfterMinutes', 30));
	if (!Number.isFinite(minutes) || minutes < 1) {
		throw new NodeOperationError(node, `"Abandoned After (Minutes)" must be at least 1, got ${String(minutes)}`);
	}
	const rawForm = ctx.getNodeParameter('formId', '', { extractValue: true }) as unknown;
	const formId = typeof rawForm === 'string' && rawForm.trim() === '' ? undefined : assertUuid(node, rawForm, 'Form', 0);
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const target = await resolveTarget(ctx);
	const fingerprint = createHash('sha256')
		.update(JSON.stringify([EVENT_VALUES.filter((value) => events[value]), formId ?? '', target.baseUrl, target.keyId]))
		.digest('hex')
		.slice(0, 16);
	return {
		settings: {
			events,
			abandonedAfterMs: Math.round(minutes * 60_000),
			fireAgainIfReabandoned: options.fireAgainIfReabandoned === true,
			onlyRecovered: options.onlyRecovered === true,
			fingerprint,
		},
		formId,
		output: {
			simplify: ctx.getNodeParameter('simplify', true) !== false,
			includeRequest: options.includeRequest === true && events.sessionCompleted,
			onlyWithEmail: options.onlyWithEmail === true && events.sessionAbandoned,
		},
	};
}

/**
 * Polls of one trigger node never overlap inside one n8n process: a poll that starts while the
 * previous one is still reading (a slow API, a very short interval) returns nothing and leaves the
 * state to the running one, instead of both reporting the same events.
 */
const IN_FLIGHT_SYMBOL = Symbol.for('n8n-nodes-booking-requests.trigger-in-flight.v1');
const IN_FLIGHT_STALE_MS = 30 * 60_000;

function inFlight(): Map<string, number> {
	const holder = globalThis as unknown as Record<symbol, Map<string, number> | undefined>;
	return (holder[IN_FLIGHT_SYMBOL] ??= new Map());
}

export class BookingRequestsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Booking Requests Trigger',
		name: 'bookingRequestsTrigger',
		icon: { light: 'file:bookingRequestsTrigger.svg', dark: 'file:bookingRequestsTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		// "Abandoned after 30 min, Completed, New Request": short enough for the canvas, which cuts
		// subtitles at about 25 characters (no arrow functions: both expression engines).
		subtitle:
			'={{ [$parameter["events"].includes("sessionAbandoned") ? "Abandoned after " + $parameter["abandonedAfterMinutes"] + " min" : "", $parameter["events"].includes("sessionCompleted") ? "Completed" : "", $parameter["events"].includes("requestCreated") ? "New Request" : ""].filter(Boolean).join(", ") }}',
		description: TRIGGER_DESCRIPTION,
		defaults: { name: 'Booking Requests Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bookingRequestsApi', required: true, testedBy: 'bookingRequestsApiTest' }],
		properties: triggerProperties,
	};

	methods = {
		listSearch: { searchForms },
		credentialTest: { bookingRequestsApiTest },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const { settings, formId, output } = await readParameters(this);

		if (this.getMode() === 'manual') {
			// "Fetch Test Event": up to 3 recent samples of each selected event; the state is not touched.
			const { fetched } = await fetchChanges(this, undefined, settings, formId, { firstPageOnly: true });
			const samples = pickSamples(fetched.sessions?.items, fetched.requests?.items, fetched.now, settings);
			const withRequests = await attachRequests(this, samples, output, fetched.requests?.items);
			const items = await toItems(this, withRequests, { ...output, now: fetched.now });
			return items.length > 0 ? [items] : null;
		}

		const key = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
		const running = inFlight();
		const startedAt = running.get(key);
		if (startedAt !== undefined && Date.now() - startedAt < IN_FLIGHT_STALE_MS) return null;
		running.set(key, Date.now());
		try {
			const staticData = this.getWorkflowStaticData('node');
			const previous = readState(staticData[STATE_KEY], settings.fingerprint, listsFor(settings));
			const { fetched, calls } = await fetchChanges(this, previous, settings, formId);
			const { events, state, baseline } = diff(previous, fetched, settings);
			// Built before the state is stored: a failed Get request fails the poll and nothing advances.
			const withRequests = await attachRequests(this, events, output, fetched.requests?.items);
			const items = await toItems(this, withRequests, { ...output, now: fetched.now });
			staticData[STATE_KEY] = state as unknown as IDataObject;
			this.logger.debug('Booking Requests Trigger poll', {
				baseline,
				events: items.length,
				sessionCalls: calls.sessions,
				requestCalls: calls.requests,
				pending: Object.keys(state.sessions?.pending ?? {}).length,
			});
			return items.length > 0 ? [items] : null;
		} finally {
			if (running.get(key) !== undefined) running.delete(key);
		}
	}
}
