import type { IDataObject } from 'n8n-workflow';

import type { BookingRequest, BookingSession } from '../types';
import { flattenAttribution } from './attribution';
import { recordOrEmpty, stringList, textOrNull, valueOrNull } from './values';

/**
 * Simplified booking sessions: the draft's contact and progress pulled up to the top level. The
 * action node's Booking Session → Get Many and the trigger's session events share these fields.
 */

/**
 * The id of the booking request a session turned into; null while the session is abandoned. The
 * contract gives a uuid or null; an empty or blank id names no request, so it counts as none.
 */
export function requestIdOf(session: object): string | null {
	return textOrNull((session as { request_id?: unknown }).request_id);
}

/**
 * Whether a session is completed (it has its booking request): the one rule, for the action node's
 * Status and Include Booking Request and for the trigger's events.
 */
export function isCompleted(session: object): boolean {
	return requestIdOf(session) !== null;
}

export function sessionStatus(session: BookingSession): 'abandoned' | 'completed' {
	return isCompleted(session) ? 'completed' : 'abandoned';
}

export interface DraftContact {
	email: string | null;
	first_name: string | null;
	last_name: string | null;
	phone: string | null;
}

/** The contact the customer typed into the widget (`data.contact`); nulls where the draft has none. */
export function draftContact(session: BookingSession): DraftContact {
	const contact = recordOrEmpty(recordOrEmpty(session.data).contact);
	return {
		email: textOrNull(contact.email),
		first_name: textOrNull(contact.firstname),
		last_name: textOrNull(contact.lastname),
		phone: textOrNull(contact.phone),
	};
}

/**
 * Whether the session has an e-mail a reminder can go to. Saving starts after the contact step, but
 * the widget may save a draft without one (the e-mail field can be optional, or left empty).
 */
export function hasEmail(contact: Pick<DraftContact, 'email'>): boolean {
	return contact.email !== null && contact.email.includes('@');
}

/** The request's contact in the draft's field names (for completed sessions whose draft has none). */
export function requestContact(request: BookingRequest): DraftContact {
	return {
		email: textOrNull(request.email),
		first_name: textOrNull(request.first_name),
		last_name: textOrNull(request.last_name),
		phone: textOrNull(request.phone),
	};
}

/** The flat session fields, in order; `contact` replaces the draft's contact when given. */
export function sessionFields(session: BookingSession, contact: DraftContact = draftContact(session)): IDataObject {
	const data = recordOrEmpty(session.data);
	const fields: IDataObject = {
		request_id: textOrNull(session.request_id),
		status: sessionStatus(session),
		form_id: valueOrNull(session.form_id),
		step: valueOrNull(session.step),
		email: contact.email,
		first_name: contact.first_name,
		last_name: contact.last_name,
		phone: contact.phone,
		zip: textOrNull(data.zip),
		address: textOrNull(data.address),
		scheduled_date: textOrNull(data.scheduledDate),
		service_ids: stringList(data.serviceIds),
		source: valueOrNull(session.source),
	};
	return {
		...fields,
		...flattenAttribution(session.attribution, new Set(Object.keys(fields).concat('id', 'session_id', 'created_at', 'updated_at'))),
		created_at: valueOrNull(session.created_at),
		updated_at: valueOrNull(session.updated_at),
	};
}

/** Booking Session → Get Many with Simplify on. */
export function simplifySession(session: BookingSession): IDataObject {
	return { id: session.id, ...sessionFields(session) };
}
