/**
 * The node's parameters, read and checked once per poll: the settings the rules use, how items are
 * shaped, and what the state records about the API target (hashes only).
 */
import { createHash } from 'node:crypto';

import type { IDataObject, INode, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { resolveTarget } from '../shared/transport/request';
import { assertUuid } from '../shared/validation';
import { EVENT_KINDS, eventLetters } from './events';
import { DEFAULT_WATCH_NEWEST, MAX_WATCH_NEWEST } from './events/requestUpdated/changes';
import type { WatchGroup } from './events/requestUpdated/fields';
import { WATCH_GROUPS } from './events/requestUpdated/fields';
import type { TriggerSettings, UpdateSettings } from './model/settings';
import type { PollParameters } from './poll/activePoll';

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

/** The selected events, checked: at least one. */
function readEvents(ctx: IPollFunctions): TriggerSettings['events'] {
	const selected = ctx.getNodeParameter('events', []) as string[];
	const events = Object.fromEntries(EVENT_KINDS.map((kind) => [kind.value, selected.includes(kind.value)])) as TriggerSettings['events'];
	if (!EVENT_KINDS.some((kind) => events[kind.value])) {
		const names = EVENT_KINDS.map((kind) => kind.option.name);
		throw new NodeOperationError(ctx.getNode(), 'Select at least one event', { description: `Choose ${names.slice(0, -1).join(', ')} and/or ${names.at(-1)} in "Events".` });
	}
	return events;
}

/** The session options: Abandoned After, Skip Customers Who Booked, the cooldown. */
function readSessionOptions(ctx: IPollFunctions, events: TriggerSettings['events'], options: IDataObject): Pick<TriggerSettings, 'abandonedAfterMs' | 'skipIfBooked' | 'customerCooldownMs'> {
	const node = ctx.getNode();
	const minutes = Number(ctx.getNodeParameter('abandonedAfterMinutes', 30));
	if (!Number.isFinite(minutes) || minutes < 1) {
		throw new NodeOperationError(node, `"Abandoned After (Minutes)" must be at least 1, got ${String(minutes)}`);
	}
	const cooldownDays = Number(options.customerCooldownDays ?? 0);
	if (!Number.isFinite(cooldownDays) || cooldownDays < 0 || cooldownDays > 30) {
		throw new NodeOperationError(node, `"Remind a Customer At Most Once Every (Days)" must be between 0 and 30, got ${String(options.customerCooldownDays)}`);
	}
	// On in new nodes (1.1), off in nodes of version 1 (description.ts).
	const skipIfBooked = events.sessionAbandoned && ctx.getNodeParameter('skipIfBooked', node.typeVersion >= 1.1) === true;
	return { abandonedAfterMs: Math.round(minutes * 60_000), skipIfBooked, customerCooldownMs: Math.round(cooldownDays * 86_400_000) };
}

const fingerprintOf = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);

export async function readParameters(ctx: IPollFunctions): Promise<PollParameters> {
	const node = ctx.getNode();
	const events = readEvents(ctx);
	const rawForm = ctx.getNodeParameter('formId', '', { extractValue: true }) as unknown;
	const formId = typeof rawForm === 'string' && rawForm.trim() === '' ? undefined : assertUuid(node, rawForm, 'Form', 0);
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const sessionOptions = readSessionOptions(ctx, events, options);
	const updates = events.requestUpdated ? readUpdateOptions(node, options) : undefined;
	const target = await resolveTarget(ctx);
	// Neither the key (another key of the same workspace continues the state: poll/keyChange.ts) nor the
	// events (an added event starts from the last poll, the rest is kept: state/codec.ts) are in it.
	const fingerprint = fingerprintOf(['v0.2', formId ?? '', target.baseUrl]);
	const settings: TriggerSettings = {
		events,
		...sessionOptions,
		fireAgainIfReabandoned: options.fireAgainIfReabandoned === true,
		onlyRecovered: options.onlyRecovered === true,
		// Bookings on every form count: with a Form filter the request list is read for every form.
		...(sessionOptions.skipIfBooked && formId ? { requestsForm: formId } : {}),
		onlyWithEmail: options.onlyWithEmail === true && events.sessionAbandoned,
		...(updates ? { updates } : {}),
		fingerprint,
	};
	const selectedValues = EVENT_KINDS.filter((kind) => events[kind.value]).map((kind) => kind.value);
	return {
		settings,
		formId,
		key: { id: target.keyId, legacyFingerprint: fingerprintOf([selectedValues, formId ?? '', target.baseUrl, target.keyId]) },
		eventLetters: eventLetters(settings),
		baseUrlId: fingerprintOf(['base URL', target.baseUrl]).slice(0, 8),
		output: {
			simplify: ctx.getNodeParameter('simplify', true) !== false,
			includeRequest: options.includeRequest === true && events.sessionCompleted,
			onlyWithEmail: options.onlyWithEmail === true && events.sessionAbandoned,
		},
	};
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
