import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { API_PATHS } from '../../../shared/constants';
import { apiRequest } from '../../../shared/transport/request';
import type { BookingRequest } from '../../../shared/types';
import { assertUuid } from '../../../shared/validation';
import { simplifyRequest } from '../common/simplify';
import { assertRequestShape } from './shape';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const id = assertUuid(this.getNode(), this.getNodeParameter('requestId', itemIndex), 'requestId', itemIndex);
	const { body } = await apiRequest<BookingRequest>(this, `${API_PATHS.requests}/${encodeURIComponent(id)}`, {
		itemIndex,
		resourceLabel: `booking request ${id}`,
	});
	const request = assertRequestShape(this, body, itemIndex);
	return [this.getNodeParameter('simplify', itemIndex, true) ? simplifyRequest(request) : (request as IDataObject)];
}
