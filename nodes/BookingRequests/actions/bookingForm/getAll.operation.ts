import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { API_PATHS } from '../../../shared/constants';
import { SIMPLE_FORM_FIELDS, simplifyForm } from '../../../shared/output/catalog';
import { paginate } from '../../../shared/transport/paginate';
import type { BookingForm } from '../../../shared/types';
import { getManyFields, simplifyField } from '../common/fields';
import { readLimit } from '../common/parameters';

const properties: INodeProperties[] = [...getManyFields('booking forms'), simplifyField(SIMPLE_FORM_FIELDS.join(', '))];

export const description = updateDisplayOptions({ show: { resource: ['bookingForm'], operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const { items } = await paginate<BookingForm>(this, API_PATHS.forms, { itemIndex, limit: readLimit(this, itemIndex) });
	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	return items.map((form) => (simplify ? simplifyForm(form) : (form as IDataObject)));
}
