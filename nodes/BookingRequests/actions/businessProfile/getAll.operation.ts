import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { API_PATHS } from '../../../shared/constants';
import { SIMPLE_PROFILE_FIELDS, simplifyProfile } from '../../../shared/output/catalog';
import { paginate } from '../../../shared/transport/paginate';
import type { BusinessProfile } from '../../../shared/types';
import { formLocator, getManyFields, simplifyField } from '../common/fields';
import { readLimit, readOptionalId } from '../common/parameters';

const properties: INodeProperties[] = [
	...getManyFields('business profiles'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [{ ...formLocator('Only profiles assigned to this form') }],
	},
	simplifyField(SIMPLE_PROFILE_FIELDS.join(', ')),
];

export const description = updateDisplayOptions({ show: { resource: ['businessProfile'], operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const formId = readOptionalId(this, filters, 'formId', itemIndex);
	const { items } = await paginate<BusinessProfile>(this, API_PATHS.profiles, {
		qs: { form_id: formId },
		itemIndex,
		limit: readLimit(this, itemIndex),
	});
	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	return items.map((profile) => (simplify ? simplifyProfile(profile) : (profile as IDataObject)));
}
