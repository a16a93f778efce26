import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { API_PATHS } from '../../../shared/constants';
import { paginate } from '../../../shared/transport/paginate';
import type { BusinessProfile } from '../../../shared/types';
import { readLimit, readOptionalId } from '../common/parameters';
import { simplifyProfile } from '../common/simplify';

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
