import type { INodeProperties } from 'n8n-workflow';

import { getManyFields, operationField, simplifyField } from '../common/fields';

export { execute as getAll } from './getAll.operation';

export const description: INodeProperties[] = [
	operationField('bookingForm', [
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many booking forms',
			description: "List the workspace's booking forms, the default form first. A form's ID filters requests, sessions and profiles.",
		},
	]),
	...getManyFields('bookingForm', 'booking forms'),
	simplifyField('bookingForm', ['getAll'], 'id, name, is_default, locations, created_at, updated_at'),
];
