import type { INodeProperties } from 'n8n-workflow';

import { formLocator, getManyFields, operationField, simplifyField } from '../common/fields';

export { execute as getAll } from './getAll.operation';

const show = { resource: ['businessProfile'] };

export const description: INodeProperties[] = [
	operationField('businessProfile', [
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many business profiles',
			description:
				"List the workspace's business profiles (service locations), the default first. A profile's ID filters booking requests.",
		},
	]),
	...getManyFields('businessProfile', 'business profiles'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { ...show, operation: ['getAll'] } },
		options: [{ ...formLocator('Only profiles assigned to this form') }],
	},
	simplifyField(
		'businessProfile',
		['getAll'],
		'id, title, form_id, is_default, primary_phone, website_url, address, address_city, address_state',
	),
];
