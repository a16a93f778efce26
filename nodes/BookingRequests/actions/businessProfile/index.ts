import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../common/fields';
import * as getAll from './getAll.operation';

export { getAll };

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
	...getAll.description,
];
