/**
 * What every item shares, whatever its event: the options that shape items, the form name, the
 * customer's contact, the idle time. Each event's own item is in its module (events/*.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import { simplifyRequest } from '../../shared/output/request';
import type { DraftContact } from '../../shared/output/session';
import { draftContact, hasEmail, requestContact, sessionFields } from '../../shared/output/session';
import type { BookingRequest, BookingSession } from '../../shared/types';
import { timestampMs } from '../../shared/utils';
import type { EventBase } from '../model/event';

/** The fields of a simplified session event (docs/booking-requests-trigger.md). */
export const SESSION_ITEM_FIELDS =
	'event, event_id, session_id, request_id, status, form_id, form_name, step, email, first_name, last_name, phone, zip, address, scheduled_date, service_ids, source, utm_source, utm_medium, utm_campaign, referrer, page_url, created_at, updated_at, idle_minutes';

/** The fields of a simplified request event. */
export const REQUEST_ITEM_FIELDS = 'event, event_id, form_name and the simplified request of the action node';

export interface ItemOptions {
	/** "Simplify" (default on): one flat item per event; off: the raw API object plus `event`, `event_id`. */
	simplify: boolean;
	/** "Include Booking Request": completed sessions carry `request` (simplified or raw, following Simplify; null on 404). */
	includeRequest: boolean;
	/** The poll's time on the API server's clock (ms): `idle_minutes` counts up to it. */
	now: number;
}

/** Form id → name (null when not known): poll/formNames.ts reads them. */
export type FormNames = ReadonlyMap<string, string | null>;

/**
 * Whether a completed session's booking request must be read for its item: always with "Include
 * Booking Request", and with Simplify when the draft has no e-mail (a booking made without a saved
 * draft), so that the flat item still has the customer's contact (poll/attach.ts reads them).
 */
export function needsRequest(session: BookingSession, options: Pick<ItemOptions, 'simplify' | 'includeRequest'>): boolean {
	return options.includeRequest || (options.simplify && !hasEmail(draftContact(session)));
}

/** The `Date` header's resolution (RFC 9110: whole seconds). */
const DATE_HEADER_RESOLUTION_MS = 1000;

/**
 * Whole minutes from the session's last activity to `now`; null when the session has no timestamp.
 * `now` normally comes from the server's `Date` header, which is truncated to the second, so the count
 * runs to the end of that second: a session idle 31 min 0.4 s reads 31, not 30.
 */
export function idleMinutes(session: BookingSession, now: number): number | null {
	const activity = timestampMs(session.updated_at) ?? timestampMs(session.created_at);
	if (activity === null) return null;
	return Math.max(0, Math.floor((now + DATE_HEADER_RESOLUTION_MS - 1 - activity) / 60_000));
}

/** The object with `form_name` placed right after `form_id`. */
export function withFormName(fields: IDataObject, formNames: FormNames): IDataObject {
	const out: IDataObject = {};
	const formId = typeof fields.form_id === 'string' ? fields.form_id : undefined;
	for (const [key, value] of Object.entries(fields)) {
		out[key] = value;
		if (key === 'form_id') out.form_name = formId === undefined ? null : (formNames.get(formId) ?? null);
	}
	return out;
}

/** Draft contact, completed per field from the request when the draft lacks it. */
function contactFor(session: BookingSession, request: BookingRequest | null | undefined): DraftContact {
	const draft = draftContact(session);
	if (!request) return draft;
	const fromRequest = requestContact(request);
	return {
		email: draft.email ?? fromRequest.email,
		first_name: draft.first_name ?? fromRequest.first_name,
		last_name: draft.last_name ?? fromRequest.last_name,
		phone: draft.phone ?? fromRequest.phone,
	};
}

/** A session event's item: flat with Simplify (contact completed from `request` when given), else the raw session. */
export function sessionItem(event: EventBase, options: ItemOptions, formNames: FormNames, request?: BookingRequest | null): IDataObject {
	const session = event.session as BookingSession;
	if (!options.simplify) return { ...session, event: event.event, event_id: event.eventId };
	return {
		event: event.event,
		event_id: event.eventId,
		session_id: session.id,
		...withFormName(sessionFields(session, contactFor(session, request)), formNames),
		idle_minutes: idleMinutes(session, options.now),
	};
}

/** A request event's item: flat with Simplify, else the raw request; `event` and `event_id` either way. */
export function requestItem(event: EventBase, options: ItemOptions, formNames: FormNames): IDataObject {
	const request = event.request as BookingRequest;
	return options.simplify
		? { event: event.event, event_id: event.eventId, ...withFormName(simplifyRequest(request), formNames) }
		: { ...request, event: event.event, event_id: event.eventId };
}
