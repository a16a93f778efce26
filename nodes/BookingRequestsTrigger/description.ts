import type { INodeProperties } from 'n8n-workflow';

import { formLocator } from '../shared/locators';

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			'Each poll reads the session list and/or the request list newest first: 1 call per list when nothing changed, 1 more per 100 changes, at most 1 call per second per API key. "Fetch Test Event" returns the newest sample of each selected event and does not change what the active trigger has seen.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: ['sessionAbandoned'],
		description:
			'What starts the workflow. Session events read the session list (1 call per poll when quiet), New Request reads the request list (1 call per poll when quiet). Changing the events takes a new baseline.',
		options: [
			{
				name: 'New Request',
				value: 'requestCreated',
				description: 'A booking request was submitted since the last poll',
			},
			{
				name: 'Session Abandoned',
				value: 'sessionAbandoned',
				description: 'A customer left a booking unfinished: no activity for the Abandoned After delay, no request yet',
			},
			{
				name: 'Session Completed',
				value: 'sessionCompleted',
				description: 'A session turned into a booking request (also bookings made without a saved draft)',
			},
		],
	},
	{
		displayName: 'Abandoned After (Minutes)',
		name: 'abandonedAfterMinutes',
		type: 'number',
		default: 30,
		typeOptions: { minValue: 1, maxValue: 10080 },
		displayOptions: { show: { events: ['sessionAbandoned', 'sessionCompleted'] } },
		description:
			"How long a session must go without activity (on the API server's clock) before it counts as abandoned. Sessions still active are remembered and reported when the delay has passed.",
	},
	formLocator('Only sessions and requests of this form. Leave empty for all forms. Changing it takes a new baseline.'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Fire Again If Reabandoned',
				name: 'fireAgainIfReabandoned',
				type: 'boolean',
				default: false,
				displayOptions: { show: { '/events': ['sessionAbandoned'] } },
				description:
					'Whether a session reported abandoned is reported again when the customer comes back, saves again and leaves again. Off: once per session.',
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
					'Whether to report only completed sessions this trigger had seen abandoned before (customers who came back). Sessions abandoned before the trigger was activated do not count.',
			},
		],
	},
];
