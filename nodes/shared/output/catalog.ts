import type { IDataObject } from 'n8n-workflow';

import type { BookingForm, BusinessProfile } from '../types';
import { valueOrNull } from './values';

/** Simplified forms and business profiles (action node, Simplify on). */

export const SIMPLE_FORM_FIELDS = ['id', 'name', 'is_default', 'locations', 'created_at', 'updated_at'] as const;

export const SIMPLE_PROFILE_FIELDS = [
	'id',
	'title',
	'form_id',
	'is_default',
	'primary_phone',
	'website_url',
	'address',
	'address_city',
	'address_state',
] as const;

function pick(source: IDataObject, keys: readonly string[]): IDataObject {
	const out: IDataObject = {};
	for (const key of keys) out[key] = valueOrNull(source[key]);
	return out;
}

export function simplifyForm(form: BookingForm): IDataObject {
	return pick(form as IDataObject, SIMPLE_FORM_FIELDS);
}

export function simplifyProfile(profile: BusinessProfile): IDataObject {
	return pick(profile as IDataObject, SIMPLE_PROFILE_FIELDS);
}
