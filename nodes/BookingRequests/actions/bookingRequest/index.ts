import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../common/fields';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export { get, getAll };

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
	...get.description,
	...getAll.description,
];
