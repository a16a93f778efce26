/**
 * The node's parameters, read and checked once per poll: the settings the rules use, how items are
 * shaped, and what the state records about the API target (hashes only).
 */
import { createHash } from 'node:crypto';

import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { resolveTarget } from '../shared/transport/request';
import { assertUuid } from '../shared/validation';
import { EVENT_KINDS, eventLetters } from './events';
import type { ParameterInput } from './events/kind';
import type { TriggerSettings } from './events';
import type { PollParameters } from './poll/activePoll';

/** The selected events, checked: at least one. */
function readEvents(ctx: IPollFunctions): TriggerSettings['events'] {
	const selected = ctx.getNodeParameter('events', []) as string[];
	const events = Object.fromEntries(EVENT_KINDS.map((kind) => [kind.value, selected.includes(kind.value)])) as TriggerSettings['events'];
	if (!EVENT_KINDS.some((kind) => events[kind.value])) {
		const names = EVENT_KINDS.map((kind) => kind.words.name);
		throw new NodeOperationError(ctx.getNode(), 'Select at least one event', { description: `Choose ${names.slice(0, -1).join(', ')} and/or ${names.at(-1)} in "Events".` });
	}
	return events;
}

const fingerprintOf = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);

export async function readParameters(ctx: IPollFunctions): Promise<PollParameters> {
	const node = ctx.getNode();
	const events = readEvents(ctx);
	const rawForm = ctx.getNodeParameter('formId', '', { extractValue: true }) as unknown;
	const formId = typeof rawForm === 'string' && rawForm.trim() === '' ? undefined : assertUuid(node, rawForm, 'Form', 0);
	const input: ParameterInput = { node, value: (name, fallback) => ctx.getNodeParameter(name, fallback), options: ctx.getNodeParameter('options', {}) as IDataObject, events, formId };
	// Each event reads and checks its own options (events/*.ts `read`), in the order they are listed.
	const parts = EVENT_KINDS.map((kind) => kind.read?.(input) ?? {});
	const target = await resolveTarget(ctx);
	// Neither the key (another key of the same workspace continues the state: poll/keyChange.ts) nor the
	// events (an added event starts from the last poll, the rest is kept: state/codec.ts) are in it.
	const fingerprint = fingerprintOf(['v0.2', formId ?? '', target.baseUrl]);
	const settings = Object.assign({ events }, ...parts.map((part) => part.settings), { fingerprint }) as TriggerSettings;
	const selectedValues = EVENT_KINDS.filter((kind) => events[kind.value]).map((kind) => kind.value);
	return {
		settings,
		formId,
		key: { id: target.keyId, legacyFingerprint: fingerprintOf([selectedValues, formId ?? '', target.baseUrl, target.keyId]) },
		eventLetters: eventLetters(settings),
		baseUrlId: fingerprintOf(['base URL', target.baseUrl]).slice(0, 8),
		output: Object.assign({ simplify: ctx.getNodeParameter('simplify', true) !== false, includeRequest: false }, ...parts.map((part) => part.output)),
	};
}

/** The poll budget on n8n versions that do not tell it (n8n 1.x, n8n 2.x before 2.40). */
const DEFAULT_POLL_BUDGET_MS = 4 * 60_000;

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
