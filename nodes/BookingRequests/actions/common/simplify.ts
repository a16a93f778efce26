import type { IDataObject } from 'n8n-workflow';

import type { BookingForm, BookingRequest, BookingSession, BusinessProfile } from '../../../shared/types';

/**
 * "Simplify" output shapes: the fields a workflow builder needs most. Documented in the README
 * ("Output shapes"); the raw API object is returned when Simplify is off.
 */

function pick(source: IDataObject, keys: string[]): IDataObject {
	const out: IDataObject = {};
	for (const key of keys) out[key] = source[key] === undefined ? null : source[key];
	return out;
}

export const SIMPLE_REQUEST_FIELDS = [
	'id',
	'created_at',
	'status',
	'lead_status',
	'first_name',
	'last_name',
	'email',
	'phone',
	'company',
	'form_id',
	'business_profile_id',
	'preferred_times',
	'source',
];

export function simplifyRequest(request: BookingRequest): IDataObject {
	return pick(request as IDataObject, SIMPLE_REQUEST_FIELDS);
}

export function sessionStatus(session: BookingSession): 'abandoned' | 'completed' {
	return session.request_id ? 'completed' : 'abandoned';
}

export function simplifySession(session: BookingSession): IDataObject {
	const data = session.data && typeof session.data === 'object' ? (session.data as IDataObject) : {};
	const contact = data.contact && typeof data.contact === 'object' ? (data.contact as IDataObject) : {};
	const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
	return {
		id: session.id,
		status: sessionStatus(session),
		form_id: session.form_id ?? null,
		step: session.step ?? null,
		email: text(contact.email),
		first_name: text(contact.firstname),
		last_name: text(contact.lastname),
		phone: text(contact.phone),
		request_id: session.request_id ?? null,
		source: session.source ?? null,
		created_at: session.created_at ?? null,
		updated_at: session.updated_at ?? null,
	};
}

export function simplifyForm(form: BookingForm): IDataObject {
	return pick(form as IDataObject, ['id', 'name', 'is_default', 'locations', 'created_at', 'updated_at']);
}

export function simplifyProfile(profile: BusinessProfile): IDataObject {
	return pick(profile as IDataObject, [
		'id',
		'title',
		'form_id',
		'is_default',
		'primary_phone',
		'website_url',
		'address',
		'address_city',
		'address_state',
	]);
}
