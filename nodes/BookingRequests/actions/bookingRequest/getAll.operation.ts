import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { API_PATHS } from '../../../shared/constants';
import { simpleRequestFieldList, simplifyRequest } from '../../../shared/output/request';
import { paginate } from '../../../shared/transport/paginate';
import type { BookingRequest } from '../../../shared/types';
import { businessProfileLocator, formLocator, getManyFields, simplifyField } from '../common/fields';
import { readDate, readLimit, readOptionalId, timeOf } from '../common/parameters';

const properties: INodeProperties[] = [
	...getManyFields('booking requests'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Created After',
				name: 'createdAfter',
				type: 'dateTime',
				default: '',
				description:
					'Only requests created after this moment. Paging stops at the first older request, so an incremental sync costs one call per 100 new requests.',
			},
			{ ...businessProfileLocator('Only requests routed to this business profile (location)') },
			{ ...formLocator('Only requests submitted through this form') },
		],
	},
	simplifyField(simpleRequestFieldList()),
];

export const description = updateDisplayOptions({ show: { resource: ['bookingRequest'], operation: ['getAll'] } }, properties);

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
