import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { API_PATHS } from '../../../shared/constants';
import { paginate } from '../../../shared/transport/paginate';
import type { BookingRequest } from '../../../shared/types';
import { readDate, readLimit, readOptionalId, timeOf } from '../common/parameters';
import { simplifyRequest } from '../common/simplify';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const formId = readOptionalId(this, filters, 'formId', itemIndex);
	const businessProfileId = readOptionalId(this, filters, 'businessProfileId', itemIndex);
	const createdAfter = readDate(this, filters, 'createdAfter', itemIndex);
	const limit = readLimit(this, itemIndex);

	const { items } = await paginate<BookingRequest>(this, API_PATHS.requests, {
		qs: { form_id: formId, business_profile_id: businessProfileId },
		itemIndex,
		limit,
		// Newest first by created_at: the first request not after the date ends the listing.
		stopAt: createdAfter === undefined ? undefined : (request) => timeOf(request.created_at) <= createdAfter,
	});
	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	return items.map((request) => (simplify ? simplifyRequest(request) : (request as IDataObject)));
}
