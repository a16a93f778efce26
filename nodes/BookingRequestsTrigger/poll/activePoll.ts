/**
 * A poll of the published trigger: one at a time per node, the state read once (or the memory this
 * process kept from the node's last poll, when the state is the one it wrote: memory.ts), a new key
 * checked against the workspace, the poll (engine.ts), the items, and the state written once.
 */
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { REQUEST_TIMEOUT_MS } from '../../shared/constants';
import { listsFor, windowOffsets } from '../events';
import type { TriggerMemory } from '../state/decoded';
import { needsRequest } from '../output/itemFields';
import type { TriggerSettings } from '../events';
import type { ItemOptions } from '../output/itemFields';
import { STATE_KEY } from '../state/format';
import { CallBudget } from './budget';
import type { Forgotten, ReadInput } from './memory';
import { finishPoll, putBack, takeMemory } from './memory';
import type { PollResult } from './engine';
import { pollChanges } from './engine';
import { toItems } from './items';
import { afterKeyChange } from './keyChange';
import { runningPolls } from './runningPolls';
import { apiSource } from './source';

/** What the node's parameters say (parameters.ts reads and checks them). */
export interface PollParameters {
	settings: TriggerSettings;
	formId: string | undefined;
	/** How events become items; `now` is set per poll. */
	output: Omit<ItemOptions, 'now'>;
	/** The credential's key id (a hash), and the fingerprint versions before 0.2 wrote (it covered the key and the events). */
	key: { id: string; legacyFingerprint: string };
	/** The selected events as the state records them. */
	eventLetters: string;
	/** The Base URL as the state records it (a short hash). */
	baseUrlId: string;
}

interface PollWindow {
	budgetMs: number;
	deadline: number;
}

/** Warnings when a bounded memory forgot entries, and what the poll did (debug). */
function logResult(ctx: IPollFunctions, result: PollResult, summary: { items: number; budgetMs: number; forgotten: Forgotten }): void {
	const { seen, booked, reminded, events } = summary.forgotten;
	if (seen > 0) {
		ctx.logger.warn(
			`Booking Requests Trigger: the memory of sessions seen abandoned is full; the ${seen} oldest were forgotten. "Only Recovered" misses them if they complete, and without "Fire Again If Reabandoned" they are reported again if they are abandoned again.`,
		);
	}
	if (booked + reminded > 0) {
		ctx.logger.warn(
			`Booking Requests Trigger: the memory of customers is full; forgotten: ${booked} customer keys who booked (Skip Customers Who Booked may remind them), ${reminded} customers reminded (the cooldown and "recovered" miss them).`,
		);
	}
	ctx.logger.debug('Booking Requests Trigger poll', {
		baseline: result.baseline,
		events: summary.items,
		sessionCalls: result.calls.sessions,
		requestCalls: result.calls.requests,
		getRequestCalls: result.calls.getRequest,
		skipped: result.skipped,
		watchedEvents: result.watched,
		forgottenByEvents: events,
		resumesNextPoll: result.cut,
		budgetMs: summary.budgetMs,
	});
}

/** The memory to go on with: the stored one, unless a new key reads another workspace. `later`: ask again next poll. */
async function continuedMemory(ctx: IPollFunctions, memory: TriggerMemory | undefined, params: PollParameters, deadline: number): Promise<TriggerMemory | undefined | 'later'> {
	if (!memory) return undefined;
	const change = await afterKeyChange(memory, params.key.id, apiSource(ctx, params.formId, { deadline }));
	if (change.continues === 'later') return 'later';
	if (change.continues === true) return memory;
	ctx.logger.info(
		`Booking Requests Trigger: the API key changed and ${change.reason === 'another workspace' ? 'belongs to another workspace' : 'the state holds no request to compare workspaces with'}; starting afresh from now.`,
	);
	return undefined;
}

/** How this poll reads the stored state. */
function readInput(params: PollParameters): ReadInput {
	const { settings } = params;
	return {
		expect: {
			fingerprint: settings.fingerprint,
			lists: listsFor(settings),
			legacy: { fingerprint: params.key.legacyFingerprint, key: params.key.id },
			selection: { events: params.eventLetters, offsets: windowOffsets(settings) },
		},
		settings,
		about: { baseUrl: params.baseUrlId, key: params.key.id },
	};
}

async function pollOnce(ctx: IPollFunctions, params: PollParameters, window: PollWindow & { key: string }): Promise<INodeExecutionData[][] | null> {
	const { settings, output } = params;
	const staticData = ctx.getWorkflowStaticData('node');
	const read = readInput(params);
	const stored = takeMemory(window.key, staticData[STATE_KEY], read);
	const previous = await continuedMemory(ctx, stored.memory, params, window.deadline);
	if (previous === 'later') {
		putBack(window.key, stored.memory as TriggerMemory, staticData[STATE_KEY], read);
		return null;
	}
	const source = apiSource(ctx, params.formId, { deadline: window.deadline, requestsOfEveryForm: settings.requestsForm !== undefined });
	const result = await pollChanges(source, previous, settings, {
		budget: new CallBudget(window.deadline),
		needsRequest: (session) => needsRequest(session, output),
	});
	// Built before the memory changes: a failed Get request fails the poll and nothing advances.
	const items = await toItems(ctx, result.events, { ...output, now: result.now }, { deadline: window.deadline });
	const label = { key: params.key.id, events: params.eventLetters, baseUrl: params.baseUrlId };
	const end = finishPoll({ key: window.key, raw: staticData[STATE_KEY], stored, memory: previous, changes: result.changes, read, label });
	if (end.state) staticData[STATE_KEY] = end.state as unknown as IDataObject;
	const { forgotten } = end;
	logResult(ctx, result, { items: items.length, budgetMs: window.budgetMs, forgotten });
	return items.length > 0 ? [items] : null;
}

/** A poll of the published trigger; a poll that starts while the node's previous one runs returns nothing. */
export async function activePoll(ctx: IPollFunctions, params: PollParameters, window: PollWindow): Promise<INodeExecutionData[][] | null> {
	const key = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}`;
	const running = runningPolls();
	const busyUntil = running.get(key);
	if (busyUntil !== undefined && Date.now() < busyUntil) return null;
	running.set(key, Date.now() + window.budgetMs + REQUEST_TIMEOUT_MS);
	try {
		return await pollOnce(ctx, params, { ...window, key });
	} finally {
		running.delete(key);
	}
}
