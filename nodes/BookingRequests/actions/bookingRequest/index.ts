import type { INodeProperties } from 'n8n-workflow';

import { businessProfileLocator, formLocator, getManyFields, operationField, simplifyField } from '../common/fields';
import { SIMPLE_REQUEST_FIELDS } from '../common/simplify';

export { execute as get } from './get.operation';
export { execute as getAll } from './getAll.operation';

const show = { resource: ['bookingRequest'] };

export const description: INodeProperties[] = [
	operationField('bookingRequest', [
		{
			name: 'Get',
			value: 'get',
			action: 'Get a booking request',
			description: 'Retrieve one booking request by its ID (costs 1 call)',
		},
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many booking requests',
			description:
				'List booking requests, newest first, optionally only those of one form or business profile or created after a date',
		},
	]),
	{
		displayName: 'Request ID',
		name: 'requestId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
		displayOptions: { show: { ...show, operation: ['get'] } },
		description:
			"UUID of the booking request. Comes from Get Many, from a booking session's request_id, or from a webhook's data.request_id.",
	},
	...getManyFields('bookingRequest', 'booking requests'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { ...show, operation: ['getAll'] } },
		options: [
			{
				displayName: 'Created After',
				name: 'createdAfter',
				type: 'dateTime',
				default: '',
				description:
					'Only requests created after this moment. Paging stops at the first older request, so an incremental sync costs one call per 100 new requests.',
			},
			{ ...businessProfileLocator('Only requests routed to this business profile (location)') },
			{ ...formLocator('Only requests submitted through this form') },
		],
	},
	simplifyField('bookingRequest', ['get', 'getAll'], SIMPLE_REQUEST_FIELDS.join(', ')),
];
