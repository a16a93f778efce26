/**
 * Request Updated: the watched fields of one of the newest booking requests changed since this trigger
 * last read it (changes.ts has the rules). Not a window of the list: the newest "Watch the Newest"
 * requests are re-read in rotation (events/watched.ts) and compared with what is remembered of each
 * (records.ts, in the state's `updates`). Event time: `updated_at`, else the poll's now.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { BookingRequest } from '../../../shared/types';
import { timestampMs } from '../../../shared/utils';
import type { EventBase } from '../../model/event';
import { sortTime } from '../../model/pages';
import { REQUEST_ITEM_FIELDS, requestItem } from '../../output/itemFields';
import { SAMPLES_PER_EVENT } from '../../output/samples';
import type { WindowMemory } from '../../windows/window';
import type { EventKind, EventMemory, ParameterInput, SettingsPart, WatchInput, WatchResult } from '../kind';
import { detectUpdates } from './changes';
import type { UpdateSettings, WatchGroup } from './fields';
import { WATCH_GROUP_NAMES, WATCH_GROUPS } from './fields';
import type { SkipBookedSettings } from '../skipBooked';
import type { UpdatesChange, UpdatesState } from './records';
import { isUpdatesState, UpdatesMemory } from './records';
import { WATCH_PAGES_PER_POLL } from '../watched';

export interface RequestUpdatedEvent extends EventBase {
	event: 'request.updated';
	request: BookingRequest;
	/** The changed fields (empty when not known). */
	changedFields?: string[];
	/** Their earlier values (null when not known). */
	previous?: Record<string, string | null> | null;
}

/** `request.updated:<request id>:<updated_at ms, or h + a link of the change chain>` (changes.ts: a change's version). */
export function updatedEventId(id: string, version: number | string): string {
	return `request.updated:${id}:${version}`;
}

/** "Watch the Newest (Requests)": its default, and the most a poll budget can honour (docs/booking-requests-trigger.md). */
export const DEFAULT_WATCH_NEWEST = 500;
export const MAX_WATCH_NEWEST = 5_000;

const OPTIONS: INodeProperties[] = [
	{
		displayName: 'Fields to Watch',
		name: 'watchFields',
		type: 'multiOptions',
		default: [...WATCH_GROUPS],
		description: 'Which changes start "Request Updated". A change of other fields is not reported.',
		options: WATCH_GROUPS.map((value) => ({ name: WATCH_GROUP_NAMES[value], value })).sort((a, b) => a.name.localeCompare(b.name)),
	},
	{
		displayName: 'Only When Lead Status Changes To',
		name: 'leadStatusChangesTo',
		type: 'string',
		default: '',
		placeholder: 'e.g. qualified, won',
		description:
			'Comma-separated lead status values: "Request Updated" only when the lead status changed to one of them (case is ignored). With both "Only When" options set, either passes. Empty: any change.',
	},
	{
		displayName: 'Only When Status Changes To',
		name: 'statusChangesTo',
		type: 'string',
		default: '',
		placeholder: 'e.g. complete, cancelled',
		description:
			'Comma-separated status values: "Request Updated" only when the status changed to one of them (case is ignored). With both "Only When" options set, either passes. Empty: any change.',
	},
	{
		displayName: 'Watch the Newest (Requests)',
		name: 'watchNewest',
		type: 'number',
		default: DEFAULT_WATCH_NEWEST,
		typeOptions: { minValue: 1, maxValue: MAX_WATCH_NEWEST },
		description: `How many of the newest booking requests "Request Updated" watches. Each poll reads the newest 100 and up to ${WATCH_PAGES_PER_POLL * 100} older ones in turn (1 call per 100): up to 1,100 are checked every poll, more take several polls. Older requests are not watched.`,
	},
];

/** A comma-separated list of values, trimmed and in lower case (empty entries left out). */
function valueList(raw: unknown): string[] {
	if (raw === undefined || raw === null) return [];
	return String(raw)
		.split(',')
		.map((value) => value.trim().toLowerCase())
		.filter((value) => value !== '');
}

/** Request Updated's options (set when it is selected), and Skip Customers Who Booked's form (only its requests are reported). */
export interface UpdatedSettings extends Pick<SkipBookedSettings, 'requestsForm'> {
	updates?: UpdateSettings;
}

function read(input: ParameterInput): SettingsPart<UpdatedSettings> {
	const { node, options } = input;
	if (!input.events.requestUpdated) return {};
	const watchNewest = Number(options.watchNewest ?? DEFAULT_WATCH_NEWEST);
	if (!Number.isInteger(watchNewest) || watchNewest < 1 || watchNewest > MAX_WATCH_NEWEST) {
		throw new NodeOperationError(node, `"Watch the Newest (Requests)" must be a whole number from 1 to ${MAX_WATCH_NEWEST}, got ${String(options.watchNewest)}`);
	}
	const raw = options.watchFields ?? [...WATCH_GROUPS];
	const fields = Array.isArray(raw) ? raw.filter((field): field is WatchGroup => (WATCH_GROUPS as readonly unknown[]).includes(field)) : [];
	if (fields.length === 0) {
		throw new NodeOperationError(node, '"Fields to Watch" is empty', { description: 'Choose at least one field whose changes start "Request Updated".' });
	}
	const updates: UpdateSettings = { watchNewest, fields, statusTo: valueList(options.statusChangesTo), leadStatusTo: valueList(options.leadStatusChangesTo) };
	return { settings: { updates } };
}

/** Its records in the state's `updates`: a malformed copy starts them afresh. */
const memory: EventMemory<UpdatesMemory, UpdatesState, UpdatesChange> = {
	slot: 'updates',
	read: (raw) => (isUpdatesState(raw) ? { ...raw, values: [...raw.values] } : undefined),
	decode: (state) => UpdatesMemory.decode(state),
	encode: (records, polledAt) => records.encode(records.from ?? polledAt),
	apply: (records, change) => records.apply(change),
	size: (records) => records.size,
};

/** Whether the request window (after this poll) has passed a request: its creation is handled. */
function passedBy(window: WindowMemory | undefined): (request: BookingRequest) => boolean {
	if (!window) return () => true;
	return (request) => {
		const created = sortTime('requests', request);
		return created === null || created <= window.floor || window.done.has(created, request.id);
	};
}

function watch(input: WatchInput<UpdatesMemory, UpdatedSettings>): WatchResult<RequestUpdatedEvent, UpdatesChange> {
	const { settings, memory: previous, watched } = input;
	// `watches` gives a range whenever the settings have one: `watched` is there with them.
	if (!settings.updates || !watched) return { events: [], change: { records: [] } };
	const starting = previous.from === undefined;
	const { changes, records } = detectUpdates({
		memory: previous,
		watched,
		passed: passedBy(input.windows.requests),
		since: previous.from ?? input.now,
		now: input.now,
		baseline: starting,
		settings: settings.updates,
		form: settings.requestsForm,
	});
	const change: UpdatesChange = { ...records, ...(starting ? { from: input.now } : {}) };
	const events = changes.map(
		(update): RequestUpdatedEvent => ({
			event: 'request.updated',
			eventId: updatedEventId(update.request.id, update.version),
			at: update.at,
			request: update.request,
			changedFields: update.changedFields,
			previous: update.previous,
		}),
	);
	return { events, change };
}

/** The requests changed last (by `updated_at`); what changed is not known from one read. */
function samples(first: { requests?: BookingRequest[]; now: number }): RequestUpdatedEvent[] {
	const requests = first.requests ?? [];
	const changed = requests
		.filter((request) => timestampMs(request.updated_at) !== null)
		.sort((a, b) => (timestampMs(b.updated_at) as number) - (timestampMs(a.updated_at) as number));
	return (changed.length > 0 ? changed : requests).slice(0, SAMPLES_PER_EVENT).map((request): RequestUpdatedEvent => {
		const at = timestampMs(request.updated_at);
		return { event: 'request.updated', eventId: updatedEventId(request.id, at ?? 'sample'), at: at ?? first.now, request, changedFields: [], previous: null };
	});
}

export const requestUpdated: EventKind<RequestUpdatedEvent, UpdatedSettings, UpdatesMemory, UpdatesState, UpdatesChange> = {
	value: 'requestUpdated',
	name: 'request.updated',
	letter: 'u',
	words: {
		name: 'Request Updated',
		description: "A booking request's status, lead status, internal notes, completion or contact details changed (among the newest requests: see the options)",
		when: 'a booking request changes',
		startsFor: 'each change to a booking request',
		subtitle: 'Request Updated',
		fields: `${REQUEST_ITEM_FIELDS}, changed_fields and previous`,
	},
	options: OPTIONS,
	read,
	// The request window tells which requests are new (New Request), so that a creation is never an update.
	windows: () => ['requests'],
	judges: [],
	memory,
	watches: (settings) => settings.updates?.watchNewest,
	watch,
	item: (event, options, formNames): IDataObject => ({
		...requestItem(event, options, formNames),
		changed_fields: event.changedFields ?? [],
		previous: event.previous ?? null,
	}),
	samples,
};
