import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { API_PATHS } from '../../../shared/constants';
import { paginate } from '../../../shared/transport/paginate';
import type { BookingForm } from '../../../shared/types';
import { readLimit } from '../common/parameters';
import { simplifyForm } from '../common/simplify';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const { items } = await paginate<BookingForm>(this, API_PATHS.forms, { itemIndex, limit: readLimit(this, itemIndex) });
	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	return items.map((form) => (simplify ? simplifyForm(form) : (form as IDataObject)));
}
