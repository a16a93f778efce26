import type { IDataObject } from 'n8n-workflow';

import type { BookingRequest, BookingSession } from '../types';
import { simplifyRequest } from './request';
import { timestampMs } from '../utils';
import { recordOrEmpty } from './values';

/**
 * Funnel fields: what a report on the way from booking session to booking request needs without a
 * Code node (docs/guides/funnel-report.md).
 */

/**
 * A placeholder session: the one a booking made without a saved draft gets (contract: step `confirm`,
 * empty `data`, `request_id` set). It has no first save; its `created_at` is the booking's.
 */
export function isPlaceholderSession(session: BookingSession): boolean {
	return session.step === 'confirm' && Object.keys(recordOrEmpty(session.data)).length === 0;
}

/**
 * `minutes_to_book`: whole minutes from the session's first save to the booking, that is from the
 * session's `created_at` (the widget stores a draft from the end of the contact step on, so a session
 * starts with its first save) to its request's `created_at` (the booking submitted). Null when either
 * time is missing or unreadable, for a placeholder session (no first save), and when the request is
 * older than the session (the two do not belong together in time).
 */
export function minutesToBook(session: BookingSession, request: BookingRequest | null): number | null {
	if (!request || isPlaceholderSession(session)) return null;
	const firstSave = timestampMs(session.created_at);
	const booked = timestampMs(request.created_at);
	if (firstSave === null || booked === null || booked < firstSave) return null;
	return Math.floor((booked - firstSave) / 60_000);
}

/**
 * What "Include Booking Request" adds to a completed session's item (Get Many sessions and the trigger's
 * Session Completed): `minutes_to_book`, and `request`, simplified or raw following Simplify (null when
 * the API no longer has it).
 */
export function includedRequest(session: BookingSession, request: BookingRequest | null, simplify: boolean): IDataObject {
	return { minutes_to_book: minutesToBook(session, request), request: request === null ? null : simplify ? simplifyRequest(request) : (request as IDataObject) };
}
