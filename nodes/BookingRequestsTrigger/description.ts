import type { INodeProperties } from 'n8n-workflow';

import { formLocator } from '../shared/locators';
import { EVENT_KINDS } from './events';
import { DEFAULT_WATCH_NEWEST, MAX_WATCH_NEWEST } from './events/requestUpdated/changes';
import { WATCH_PAGES_PER_POLL } from './events/requestUpdated/rotation';

export const TRIGGER_DESCRIPTION =
	'Starts a workflow when a customer leaves a booking unfinished, finishes a booking, or a new booking request arrives';

/** The fields of a simplified session event (docs/booking-requests-trigger.md). */
export const SIMPLE_SESSION_EVENT_FIELDS =
	'event, event_id, session_id, request_id, status, form_id, form_name, step, email, first_name, last_name, phone, zip, address, scheduled_date, service_ids, source, utm_source, utm_medium, utm_campaign, referrer, page_url, created_at, updated_at, idle_minutes (and recovered, recovered_from_session_id, minutes_to_recover for completed sessions)';

const SKIP_IF_BOOKED_DESCRIPTION =
	'Whether to send no "Session Abandoned" for a customer who booked after starting the draft (same e-mail or phone), through another session or a booking without a draft, on any form';

/**
 * The canvas subtitle, e.g. "Abandoned after 30 min, Completed, New Request": each selected event's
 * part, short enough for the canvas, which cuts subtitles at about 25 characters (no arrow functions
 * in the expression: both of n8n's expression engines read it).
 */
export const TRIGGER_SUBTITLE = `={{ [${EVENT_KINDS.map(
	(kind) => `$parameter["events"].includes("${kind.value}") ? "${kind.option.subtitle.replace(/\{(\w+)\}/g, '" + $parameter["$1"] + "')}" : ""`,
).join(', ')}].filter(Boolean).join(", ") }}`;

function listed(parts: string[]): string {
	return parts.length < 2 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/**
 * The notice at the top names every selected event. A notice is static text shown by displayOptions,
 * so there is one per combination of events, shown when exactly that combination is selected: `show`
 * needs one of its events, `hide` drops it when another event is selected or one of its own is not
 * (a `not` condition holds when no selected value equals it). With no event selected none is shown;
 * with Events as an expression n8n shows every notice whose `show` names it (n8n shows a parameter
 * whenever a value it depends on is an expression).
 */
function eventNotices(): INodeProperties[] {
	const all = EVENT_KINDS.map((kind) => kind.value);
	const combinations = Array.from({ length: 2 ** all.length - 1 }, (_, i) => all.filter((_value, bit) => (i + 1) & (1 << bit)));
	return combinations.map((selected) => ({
		displayName: `Checks for news at the interval under "Poll Times" and starts the workflow once for ${listed(
			EVENT_KINDS.filter((kind) => selected.includes(kind.value)).map((kind) => `${kind.option.startsFor} (${kind.option.name})`),
		)}. Only what happens after you publish the workflow (n8n 1.x: activate) is sent, never anything from before. "Fetch Test Event" shows up to 3 recent examples of each event and does not change what the published workflow will send.`,
		name: 'notice',
		type: 'notice',
		default: '',
		displayOptions: {
			show: { events: selected },
			hide: { events: [...all.filter((value) => !selected.includes(value)), ...selected.map((value) => ({ _cnd: { not: value } }))] },
		},
	}));
}

export const triggerProperties: INodeProperties[] = [
	...eventNotices(),
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: ['sessionAbandoned'],
		description:
			'What starts the workflow. An event added to a published workflow counts from the last check; what the trigger remembers is kept.',
		// Each event's entry comes from its module (events/*.ts), listed by name as n8n's editor expects.
		options: [...EVENT_KINDS]
			.sort((a, b) => a.option.name.localeCompare(b.option.name))
			.map((kind) => ({ name: kind.option.name, value: kind.value, description: kind.option.description })),
	},
	{
		displayName: 'Abandoned After (Minutes)',
		name: 'abandonedAfterMinutes',
		type: 'number',
		default: 30,
		typeOptions: { minValue: 1, maxValue: 10080 },
		displayOptions: { show: { events: ['sessionAbandoned', 'sessionCompleted'] } },
		description:
			'How long a customer must be inactive before an unfinished booking counts as abandoned. Customers still busy are remembered and reported once the time has passed.',
	},
	// "Skip Customers Who Booked": on in new nodes (version 1.1), off in nodes of version 1, so that
	// existing workflows do not change behaviour silently.
	{
		displayName: 'Skip Customers Who Booked',
		name: 'skipIfBooked',
		type: 'boolean',
		default: false,
		displayOptions: { show: { events: ['sessionAbandoned'], '@version': [1] } },
		description: SKIP_IF_BOOKED_DESCRIPTION,
	},
	{
		displayName: 'Skip Customers Who Booked',
		name: 'skipIfBooked',
		type: 'boolean',
		default: true,
		displayOptions: { show: { events: ['sessionAbandoned'], '@version': [{ _cnd: { gte: 1.1 } }] } },
		description: SKIP_IF_BOOKED_DESCRIPTION,
	},
	formLocator('Only sessions and requests of this form. Leave empty for all forms. Changing it starts afresh from the moment of the change.'),
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: `Whether to return one flat item per event instead of the raw API object. Sessions: ${SIMPLE_SESSION_EVENT_FIELDS}. New and updated requests: event, event_id, form_name and the simplified request of the action node (updated requests also changed_fields and previous).`,
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Fields to Watch',
				name: 'watchFields',
				type: 'multiOptions',
				default: ['status', 'lead_status', 'internal_notes', 'completed_at', 'contact'],
				displayOptions: { show: { '/events': ['requestUpdated'] } },
				description: 'Which changes start "Request Updated". A change of other fields is not reported.',
				options: [
					{ name: 'Completed At', value: 'completed_at' },
					{ name: 'Contact (Name, E-Mail, Phone)', value: 'contact' },
					{ name: 'Internal Notes', value: 'internal_notes' },
					{ name: 'Lead Status', value: 'lead_status' },
					{ name: 'Status', value: 'status' },
				],
			},
			{
				displayName: 'Fire Again If Reabandoned',
				name: 'fireAgainIfReabandoned',
				type: 'boolean',
				default: false,
				displayOptions: { show: { '/events': ['sessionAbandoned'] } },
				description:
					'Whether a customer reported as abandoned is reported again when they come back, continue and leave again. Off: once per session.',
			},
			{
				displayName: 'Include Booking Request',
				name: 'includeRequest',
				type: 'boolean',
				default: false,
				displayOptions: { show: { '/events': ['sessionCompleted'] } },
				description:
					'Whether to attach the full booking request to each completed session (field "request"). Costs 1 more call per completed session, at most 1 per second.',
			},
			{
				displayName: 'Only Recovered',
				name: 'onlyRecovered',
				type: 'boolean',
				default: false,
				displayOptions: { show: { '/events': ['sessionCompleted'] } },
				description:
					'Whether to report only completed bookings of customers this trigger reported abandoned in the 30 days before (same e-mail or phone, any session: customers who came back). Abandonments from before the workflow was published do not count.',
			},
			{
				displayName: 'Only Sessions With an E-Mail',
				name: 'onlyWithEmail',
				type: 'boolean',
				default: false,
				displayOptions: { show: { '/events': ['sessionAbandoned'] } },
				description:
					'Whether to leave out abandoned sessions without an e-mail address (about 1 in 5: the widget can save a draft before or without the e-mail). Turn on for reminder e-mails; other events are not filtered.',
			},
			{
				displayName: 'Only When Lead Status Changes To',
				name: 'leadStatusChangesTo',
				type: 'string',
				default: '',
				placeholder: 'e.g. qualified, won',
				displayOptions: { show: { '/events': ['requestUpdated'] } },
				description:
					'Comma-separated lead status values: "Request Updated" only when the lead status changed to one of them (case is ignored). With both "Only When" options set, either passes. Empty: any change.',
			},
			{
				displayName: 'Only When Status Changes To',
				name: 'statusChangesTo',
				type: 'string',
				default: '',
				placeholder: 'e.g. complete, cancelled',
				displayOptions: { show: { '/events': ['requestUpdated'] } },
				description:
					'Comma-separated status values: "Request Updated" only when the status changed to one of them (case is ignored). With both "Only When" options set, either passes. Empty: any change.',
			},
			{
				displayName: 'Remind a Customer At Most Once Every (Days)',
				name: 'customerCooldownDays',
				type: 'number',
				default: 0,
				typeOptions: { minValue: 0, maxValue: 30 },
				displayOptions: { show: { '/events': ['sessionAbandoned'] } },
				description:
					'After a "Session Abandoned" for a customer (same e-mail or phone), no other one for that customer for this many days, whatever the session or form. 0: off.',
			},
			{
				displayName: 'Watch the Newest (Requests)',
				name: 'watchNewest',
				type: 'number',
				default: DEFAULT_WATCH_NEWEST,
				typeOptions: { minValue: 1, maxValue: MAX_WATCH_NEWEST },
				displayOptions: { show: { '/events': ['requestUpdated'] } },
				description: `How many of the newest booking requests "Request Updated" watches. Each poll reads the newest 100 and up to ${WATCH_PAGES_PER_POLL * 100} older ones in turn (1 call per 100): up to 1,100 are checked every poll, more take several polls. Older requests are not watched.`,
			},
		],
	},
];
