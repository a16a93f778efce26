import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../common/fields';
import * as findByCustomer from './findByCustomer.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export { findByCustomer, get, getAll };

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
		{
			name: 'Find by Customer',
			value: 'findByCustomer',
			action: "Find a customer's booking requests by e-mail or phone",
			description:
				"List one customer's booking requests, newest first, created after a date (default: the last 30 days), found by e-mail or phone in any format. Answers whether a customer has booked since a moment.",
		},
	]),
	...get.description,
	...getAll.description,
	...findByCustomer.description,
];
