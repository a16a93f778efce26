import { createHash } from 'node:crypto';

import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { REQUEST_TIMEOUT_MS } from '../shared/constants';
import { searchForms } from '../shared/methods/listSearch';
import { resolveTarget } from '../shared/transport/request';
import type { BookingSession } from '../shared/types';
import { assertUuid } from '../shared/validation';
import { TRIGGER_DESCRIPTION, triggerProperties } from './description';
import { runningPolls } from './runningPolls';
import type { TriggerSettings } from './diff';
import { listsFor } from './diff';
import { apiSource, attachSampleRequests, CallBudget, pollChanges, readFirstPages } from './fetch';
import type { ItemOptions } from './items';
import { needsRequest, toItems } from './items';
import { pickSamples } from './samples';
import { carriedCustomerMemories, EVENT_LETTERS, readState, STATE_KEY } from './state';
import type { UpdateSettings } from './updates/detect';
import { DEFAULT_WATCH_NEWEST, MAX_WATCH_NEWEST } from './updates/detect';
import type { WatchGroup } from './updates/fields';
import { WATCH_GROUPS } from './updates/fields';
import { afterKeyChange } from './workspace';

const EVENT_VALUES = ['sessionAbandoned', 'sessionCompleted', 'requestCreated', 'requestUpdated'] as const;

interface Parameters {
	settings: TriggerSettings;
	formId: string | undefined;
	/** How events become items (items.ts); `now` is set per poll. */
	output: Omit<ItemOptions, 'now'>;
	/** The credential's key id (a hash), and the fingerprint versions before 0.2 wrote (it covered the key and the events). */
	key: { id: string; legacyFingerprint: string };
	/** The selected events as the state's `ev` writes them. */
	eventLetters: string;
	/** The Base URL as the state's `bu` writes it (a short hash). */
	baseUrlId: string;
}

async function readParameters(ctx: IPollFunctions): Promise<Parameters> {
	const node = ctx.getNode();
	const selected = ctx.getNodeParameter('events', []) as string[];
	const events = {
		sessionAbandoned: selected.includes('sessionAbandoned'),
		sessionCompleted: selected.includes('sessionCompleted'),
		requestCreated: selected.includes('requestCreated'),
		requestUpdated: selected.includes('requestUpdated'),
	};
	if (!EVENT_VALUES.some((value) => events[value])) {
		throw new NodeOperationError(node, 'Select at least one event', {
			description: 'Choose Session Abandoned, Session Completed, New Request and/or Request Updated in "Events".',
		});
	}
	const minutes = Number(ctx.getNodeParameter('abandonedAfterMinutes', 30));
	if (!Number.isFinite(minutes) || minutes < 1) {
		throw new NodeOperationError(node, `"Abandoned After (Minutes)" must be at least 1, got ${String(minutes)}`);
	}
	const rawForm = ctx.getNodeParameter('formId', '', { extractValue: true }) as unknown;
	const formId = typeof rawForm === 'string' && rawForm.trim() === '' ? undefined : assertUuid(node, rawForm, 'Form', 0);
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	// On in new nodes (1.1), off in nodes of version 1 (description.ts).
	const skipIfBooked = events.sessionAbandoned && ctx.getNodeParameter('skipIfBooked', node.typeVersion >= 1.1) === true;
	const cooldownDays = Number(options.customerCooldownDays ?? 0);
	if (!Number.isFinite(cooldownDays) || cooldownDays < 0 || cooldownDays > 30) {
		throw new NodeOperationError(node, `"Remind a Customer At Most Once Every (Days)" must be between 0 and 30, got ${String(options.customerCooldownDays)}`);
	}
	const updates = events.requestUpdated ? readUpdateOptions(node, options) : undefined;
	const target = await resolveTarget(ctx);
	// Neither the key (another key of the same workspace continues the state: workspace.ts) nor the
	// events (an added event starts from the last poll, the rest is kept: state.ts readState).
	const fingerprintOf = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
	const fingerprint = fingerprintOf(['v0.2', formId ?? '', target.baseUrl]);
	const selectedValues = EVENT_VALUES.filter((value) => events[value]);
	return {
		settings: {
			events,
			abandonedAfterMs: Math.round(minutes * 60_000),
			fireAgainIfReabandoned: options.fireAgainIfReabandoned === true,
			onlyRecovered: options.onlyRecovered === true,
			skipIfBooked,
			// Bookings on every form count: with a Form filter the request list is read for every form.
			...(skipIfBooked && formId ? { requestsForm: formId } : {}),
			customerCooldownMs: Math.round(cooldownDays * 86_400_000),
			onlyWithEmail: options.onlyWithEmail === true && events.sessionAbandoned,
			...(updates ? { updates } : {}),
			fingerprint,
		},
		formId,
		key: { id: target.keyId, legacyFingerprint: fingerprintOf([selectedValues, formId ?? '', target.baseUrl, target.keyId]) },
		eventLetters: selectedValues.map((value) => EVENT_LETTERS[value]).join(''),
		baseUrlId: fingerprintOf(['base URL', target.baseUrl]).slice(0, 8),
		output: {
			simplify: ctx.getNodeParameter('simplify', true) !== false,
			includeRequest: options.includeRequest === true && events.sessionCompleted,
			onlyWithEmail: options.onlyWithEmail === true && events.sessionAbandoned,
		},
	};
}

/** A comma-separated list of values, trimmed and in lower case (empty entries left out). */
function valueList(raw: unknown): string[] {
	if (raw === undefined || raw === null) return [];
	return String(raw)
		.split(',')
		.map((value) => value.trim().toLowerCase())
		.filter((value) => value !== '');
}

/** Request Updated's options, checked. */
function readUpdateOptions(node: INode, options: IDataObject): UpdateSettings {
	const watchNewest = Number(options.watchNewest ?? DEFAULT_WATCH_NEWEST);
	if (!Number.isInteger(watchNewest) || watchNewest < 1 || watchNewest > MAX_WATCH_NEWEST) {
		throw new NodeOperationError(node, `"Watch the Newest (Requests)" must be a whole number from 1 to ${MAX_WATCH_NEWEST}, got ${String(options.watchNewest)}`);
	}
	const raw = options.watchFields ?? [...WATCH_GROUPS];
	const fields = Array.isArray(raw) ? raw.filter((field): field is WatchGroup => (WATCH_GROUPS as readonly unknown[]).includes(field)) : [];
	if (fields.length === 0) {
		throw new NodeOperationError(node, '"Fields to Watch" is empty', { description: 'Choose at least one field whose changes start "Request Updated".' });
	}
	return { watchNewest, fields, statusTo: valueList(options.statusChangesTo), leadStatusTo: valueList(options.leadStatusChangesTo) };
}

/** The poll budget on n8n versions that do not tell it (n8n 1.x, n8n 2.x before 2.40). */
export const DEFAULT_POLL_BUDGET_MS = 4 * 60_000;

/** What this poll may spend: n8n's `getPollBudgetMs()` where it exists, else the default. */
export function pollBudgetMs(ctx: IPollFunctions): number {
	const getter = (ctx as { getPollBudgetMs?: unknown }).getPollBudgetMs;
	if (typeof getter !== 'function') return DEFAULT_POLL_BUDGET_MS;
	try {
		const value = Number((getter as () => unknown).call(ctx));
		return Number.isFinite(value) && value > 0 ? value : DEFAULT_POLL_BUDGET_MS;
	} catch {
		return DEFAULT_POLL_BUDGET_MS;
	}
}

/** Kept free at the end of the budget for building the items and returning them: 10%, 2 s to 30 s. */
export function safetyMarginMs(budgetMs: number): number {
	return Math.min(30_000, Math.max(2_000, budgetMs / 10), budgetMs / 2);
}

export class BookingRequestsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Booking Requests Trigger',
		name: 'bookingRequestsTrigger',
		icon: { light: 'file:bookingRequestsTrigger.svg', dark: 'file:bookingRequestsTrigger.dark.svg' },
		group: ['trigger'],
		// 1.1: Skip Customers Who Booked on by default (description.ts).
		version: [1, 1.1],
		defaultVersion: 1.1,
		// "Abandoned after 30 min, Completed, New Request": short enough for the canvas, which cuts
		// subtitles at about 25 characters (no arrow functions: both expression engines).
		subtitle:
			'={{ [$parameter["events"].includes("sessionAbandoned") ? "Abandoned after " + $parameter["abandonedAfterMinutes"] + " min" : "", $parameter["events"].includes("sessionCompleted") ? "Completed" : "", $parameter["events"].includes("requestCreated") ? "New Request" : "", $parameter["events"].includes("requestUpdated") ? "Request Updated" : ""].filter(Boolean).join(", ") }}',
		description: TRIGGER_DESCRIPTION,
		defaults: { name: 'Booking Requests Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bookingRequestsApi', required: true }],
		properties: triggerProperties,
	};

	methods = {
		listSearch: { searchForms },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const { settings, formId, output, key: apiKey, eventLetters, baseUrlId } = await readParameters(this);
		// A completed session's booking request is read (within the budget) when its item needs it.
		const requestNeeded = (session: BookingSession) => needsRequest(session, output);
		const budgetMs = pollBudgetMs(this);
		const deadline = Date.now() + budgetMs - safetyMarginMs(budgetMs);
		const source = apiSource(this, formId, deadline);

		if (this.getMode() === 'manual') {
			// (samples of the watched form only: the request list filtered as the user sees it)
			// "Fetch Test Event": up to 3 recent samples of each selected event; the state is not touched.
			const first = await readFirstPages(source, settings);
			const samples = pickSamples(first.sessions, first.requests, first.now, settings);
			await attachSampleRequests(source, samples, first.requests, requestNeeded);
			const items = await toItems(this, samples, { ...output, now: first.now }, { deadline });
			return items.length > 0 ? [items] : null;
		}

		const key = `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
		const running = runningPolls();
		const busyUntil = running.get(key);
		if (busyUntil !== undefined && Date.now() < busyUntil) return null;
		running.set(key, Date.now() + budgetMs + REQUEST_TIMEOUT_MS);
		try {
			const staticData = this.getWorkflowStaticData('node');
			const stored = readState(staticData[STATE_KEY], settings.fingerprint, listsFor(settings), { fingerprint: apiKey.legacyFingerprint, key: apiKey.id }, {
				events: eventLetters,
				abandonedAfterMs: settings.abandonedAfterMs,
			});
			const active = settings.requestsForm ? apiSource(this, formId, deadline, { requestsOfEveryForm: true }) : source;
			const change = stored && (await afterKeyChange(stored, apiKey.id, active));
			if (change?.continues === 'later') return null;
			if (change?.continues === false) {
				this.logger.info(`Booking Requests Trigger: the API key changed and ${change.reason === 'another workspace' ? 'belongs to another workspace' : 'the state holds no request to compare workspaces with'}; starting afresh from now.`);
			}
			const previous = change?.continues === true ? change.state : undefined;
			const selection = { events: eventLetters, abandonedAfterMs: settings.abandonedAfterMs };
			const carry = stored ? undefined : carriedCustomerMemories(staticData[STATE_KEY], settings.fingerprint, listsFor(settings), selection, { baseUrl: baseUrlId, key: apiKey.id });
			const result = await pollChanges(active, previous, settings, {
				carry,
				budget: new CallBudget(deadline),
				needsRequest: requestNeeded,
			});
			if (result.forgotten > 0) {
				this.logger.warn(
					`Booking Requests Trigger: the memory of sessions seen abandoned is full; the ${result.forgotten} oldest were forgotten. "Only Recovered" misses them if they complete, and without "Fire Again If Reabandoned" they are reported again if they are abandoned again.`,
				);
			}
			const { booked, reminded } = result.customersForgotten;
			if (booked + reminded > 0) {
				this.logger.warn(
					`Booking Requests Trigger: the memory of customers is full; forgotten: ${booked} customer keys who booked (Skip Customers Who Booked may remind them), ${reminded} customers reminded (the cooldown and "recovered" miss them).`,
				);
			}
			// Built before the state is stored: a failed Get request fails the poll and nothing advances.
			const items = await toItems(this, result.events, { ...output, now: result.now }, { deadline });
			if (result.state) staticData[STATE_KEY] = { ...result.state, key: apiKey.id, ev: eventLetters, bu: baseUrlId } as unknown as IDataObject;
			this.logger.debug('Booking Requests Trigger poll', {
				baseline: result.baseline,
				events: items.length,
				sessionCalls: result.calls.sessions,
				requestCalls: result.calls.requests,
				getRequestCalls: result.calls.getRequest,
				skippedBooked: result.skipped.booked,
				skippedCooldown: result.skipped.cooldown,
				skippedWithoutEmail: result.skipped.noEmail,
				requestUpdates: result.updates.changed,
				requestsLeftWatchedRange: result.updates.forgotten,
				resumesNextPoll: result.cut,
				budgetMs,
			});
			return items.length > 0 ? [items] : null;
		} finally {
			running.delete(key);
		}
	}
}
