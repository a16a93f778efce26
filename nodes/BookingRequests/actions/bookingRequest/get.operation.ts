import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { simpleRequestFieldList, simplifyRequest } from '../../../shared/output/request';
import { getRequestById } from '../../../shared/transport/requestById';
import { assertUuid } from '../../../shared/validation';
import { simplifyField } from '../common/fields';
import { PARAMETER_LABELS } from '../common/parameters';
import { assertRequestShape } from './shape';

const properties: INodeProperties[] = [
	{
		displayName: 'Request ID',
		name: 'requestId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
		description:
			"UUID of the booking request. Comes from Get Many, from a booking session's request_id, or from a webhook's data.request_id.",
	},
	simplifyField(simpleRequestFieldList()),
];

export const description = updateDisplayOptions({ show: { resource: ['bookingRequest'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const id = assertUuid(this.getNode(), this.getNodeParameter('requestId', itemIndex), PARAMETER_LABELS.requestId, itemIndex);
	const request = assertRequestShape(this, await getRequestById(this, id, { itemIndex }), itemIndex);
	return [this.getNodeParameter('simplify', itemIndex, true) ? simplifyRequest(request) : (request as IDataObject)];
}
