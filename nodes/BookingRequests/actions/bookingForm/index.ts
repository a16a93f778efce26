import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../common/fields';
import * as getAll from './getAll.operation';

export { getAll };

export const description: INodeProperties[] = [
	operationField('bookingForm', [
		{
			name: 'Get Many',
			value: 'getAll',
			action: 'Get many booking forms',
			description: "List the workspace's booking forms, the default form first. A form's ID filters requests, sessions and profiles.",
		},
	]),
	...getAll.description,
];
