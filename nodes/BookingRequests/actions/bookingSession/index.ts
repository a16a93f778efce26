import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../common/fields';
import * as getAll from './getAll.operation';

export { getAll };

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
	...getAll.description,
];
