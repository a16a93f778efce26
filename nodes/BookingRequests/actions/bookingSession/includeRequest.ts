import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { API_PATHS, MAX_PER_PAGE } from '../../../shared/constants';
import { includedRequest } from '../../../shared/output/funnel';
import { sessionStatus } from '../../../shared/output/session';
import { textOrNull } from '../../../shared/output/values';
import { joinRequests } from '../../../shared/requestJoin';
import { readPage } from '../../../shared/transport/pageReader';
import { getRequestById } from '../../../shared/transport/requestById';
import type { BookingRequest, BookingSession } from '../../../shared/types';
import { timestampMs } from '../../../shared/utils';
import { assertRequestShape } from '../bookingRequest/shape';

/**
 * Include Booking Request: the booking requests of the completed sessions read, through the one join
 * (shared/requestJoin.ts): the pages of the request list that span them (read from the top), then Get
 * request for any a page did not bring (null when the API no longer has it, 404). The same result as
 * one Get request per completed session, at about one call per 100 of them.
 */

/** The request id of a completed session, else null. */
function requestIdOf(session: BookingSession): string | null {
	return sessionStatus(session) === 'completed' ? textOrNull(session.request_id) : null;
}

/**
 * What Include Booking Request adds to each session's item, in the sessions' order: `minutes_to_book`
 * and `request` (simplified or raw, following Simplify) for a completed session, nothing for an
 * abandoned one.
 */
export async function includedFields(
	ctx: IExecuteFunctions,
	sessions: BookingSession[],
	options: { itemIndex: number; formId?: string; simplify: boolean },
): Promise<IDataObject[]> {
	const requests = await requestsOf(ctx, sessions, options);
	return sessions.map((session) => {
		const id = requestIdOf(session);
		if (id === null) return {};
		return includedRequest(session, requests.get(id) ?? null, options.simplify);
	});
}

async function requestsOf(ctx: IExecuteFunctions, sessions: BookingSession[], options: { itemIndex: number; formId?: string }): Promise<Map<string, BookingRequest | null>> {
	const { itemIndex, formId } = options;
	const wanted = sessions.flatMap((session) => {
		const id = requestIdOf(session);
		// the request is created when its session completes: the session's updated_at says where it is
		return id === null ? [] : [{ id, at: timestampMs(session.updated_at) }];
	});
	if (wanted.length === 0) return new Map();
	// a session's request comes from the session's form: with a Form filter, only that form's requests are read
	const qs: IDataObject = formId ? { form_id: formId } : {};
	return await joinRequests(
		wanted,
		{
			callsLeft: () => Infinity,
			read: async (page) => await readPage<BookingRequest>(ctx, API_PATHS.requests, { qs, page, perPage: MAX_PER_PAGE, itemIndex }),
		},
		async (id) => {
			const body = await getRequestById(ctx, id, { itemIndex, nullIfNotFound: true });
			return body === null ? null : assertRequestShape(ctx, body, itemIndex);
		},
	);
}
