import type { IDataObject } from 'n8n-workflow';

import type { BookingRequest } from '../types';
import { flattenAttribution } from './attribution';
import { recordOrEmpty, stringList, textOrNull, valueOrNull } from './values';

/**
 * The simplified booking request: everything a CRM sync maps, flat. Used by the action node
 * (Simplify on) and by the trigger's New Request events. docs/booking-requests-node.md and docs/booking-requests-trigger.md.
 */
export const SIMPLE_REQUEST_FIELDS = [
	'id',
	'status',
	'lead_status',
	'internal_notes',
	'first_name',
	'last_name',
	'email',
	'phone',
	'company',
	'address',
	'address_2',
	'city',
	'state',
	'zip',
	'country',
	'form_id',
	'business_profile_id',
	'source',
	'selected_services',
	'preferred_times',
	'intake_answers',
	'created_at',
	'updated_at',
	'completed_at',
] as const;

const TAKEN = new Set<string>(SIMPLE_REQUEST_FIELDS);

export interface IntakeAnswer {
	[key: string]: string;
	question: string;
	answer: string;
}

/** The intake questions and their answers, in the order asked; questions without an answer are left out. */
export function intakeAnswers(responses: unknown): IntakeAnswer[] {
	if (!Array.isArray(responses)) return [];
	const answers: IntakeAnswer[] = [];
	for (const response of responses) {
		const entry = recordOrEmpty(response);
		const question = textOrNull(entry.question);
		const answer = textOrNull(entry.answer);
		if (question !== null && answer !== null) answers.push({ question, answer });
	}
	return answers;
}

export function simplifyRequest(request: BookingRequest): IDataObject {
	const source = request as IDataObject;
	const out: IDataObject = {};
	for (const key of SIMPLE_REQUEST_FIELDS) {
		if (key === 'selected_services') out[key] = stringList(request.selected_services);
		else if (key === 'preferred_times') out[key] = Array.isArray(request.preferred_times) ? (request.preferred_times as unknown as IDataObject[]) : [];
		else if (key === 'intake_answers') out[key] = intakeAnswers(request.intake_responses);
		else out[key] = valueOrNull(source[key]);
	}
	return { ...out, ...flattenAttribution(request.attribution, TAKEN) };
}

/** The fields a simplified request is documented with, for parameter descriptions. */
export function simpleRequestFieldList(): string {
	return `${SIMPLE_REQUEST_FIELDS.join(', ')}, utm_source, utm_medium, utm_campaign, referrer, page_url`;
}
