import type { INodeProperties } from 'n8n-workflow';

import { formLocator, getManyFields, operationField, simplifyField } from '../common/fields';

export { execute as getAll } from './getAll.operation';

const show = { resource: ['bookingSession'] };

export const description: INodeProperties[] = [
	operationField('bookingSession', [
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many booking sessions',
			description:
				'List booking sessions (drafts saved by the booking widget), most recently active first. Use Status = Abandoned to find customers who did not finish a booking.',
		},
	]),
	...getManyFields('bookingSession', 'booking sessions'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { ...show, operation: ['getAll'] } },
		options: [
			{ ...formLocator('Only sessions on this form') },
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'all',
				description:
					'The API returns abandoned and completed sessions together; this filter is applied by the node after each page is read (a session is abandoned while its request_id is empty)',
				options: [
					{ name: 'All', value: 'all', description: 'Abandoned and completed sessions' },
					{ name: 'Abandoned', value: 'abandoned', description: 'Sessions with no booking request (request_id empty)' },
					{ name: 'Completed', value: 'completed', description: 'Sessions that turned into a booking request' },
				],
			},
			{
				displayName: 'Updated After',
				name: 'updatedAfter',
				type: 'dateTime',
				default: '',
				description:
					'Only sessions with activity after this moment. Paging stops at the first older session, so a frequent sync costs one call per 100 changed sessions.',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { ...show, operation: ['getAll'] } },
		options: [
			{
				displayName: 'Include Booking Request',
				name: 'includeRequest',
				type: 'boolean',
				default: false,
				description:
					'Whether to fetch the booking request of each completed session and attach it as "request". Each costs one more call, at 1 call per second.',
			},
		],
	},
	simplifyField(
		'bookingSession',
		['getAll'],
		'id, status (abandoned or completed), form_id, step, contact email, first_name, last_name and phone from the saved draft, request_id, source, created_at, updated_at',
	),
];
