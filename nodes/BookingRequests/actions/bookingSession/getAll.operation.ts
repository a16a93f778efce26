import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { API_PATHS } from '../../../shared/constants';
import { paginate } from '../../../shared/transport/paginate';
import { apiRequest } from '../../../shared/transport/request';
import type { BookingRequest, BookingSession } from '../../../shared/types';
import { readDate, readLimit, readOptionalId, timeOf } from '../common/parameters';
import { sessionStatus, simplifyRequest, simplifySession } from '../common/simplify';
import { assertRequestShape } from '../bookingRequest/shape';

type StatusFilter = 'all' | 'abandoned' | 'completed';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const formId = readOptionalId(this, filters, 'formId', itemIndex);
	const updatedAfter = readDate(this, filters, 'updatedAfter', itemIndex);
	const status = (filters.status as StatusFilter | undefined) ?? 'all';
	const limit = readLimit(this, itemIndex);

	const { items } = await paginate<BookingSession>(this, API_PATHS.sessions, {
		qs: { form_id: formId },
		itemIndex,
		limit,
		accept: status === 'all' ? undefined : (session) => sessionStatus(session) === status,
		// Most recently active first by updated_at (null last): the first session not after the date ends it.
		stopAt: updatedAfter === undefined ? undefined : (session) => timeOf(session.updated_at) <= updatedAfter,
		// A session that changes jumps to the top; the paginator re-reads the top so none is missed.
		movesToTopBy: (session) => session.updated_at,
	});

	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	const results: IDataObject[] = [];
	for (const session of items) {
		const out = simplify ? simplifySession(session) : ({ ...session } as IDataObject);
		if (options.includeRequest === true && session.request_id) {
			out.request = await fetchRequest(this, session.request_id, itemIndex, simplify);
		}
		results.push(out);
	}
	return results;
}

/** The session's request; null when the API no longer has it (404), any other failure stops the item. */
async function fetchRequest(ctx: IExecuteFunctions, requestId: string, itemIndex: number, simplify: boolean): Promise<IDataObject | null> {
	const { body } = await apiRequest<BookingRequest | null>(ctx, `${API_PATHS.requests}/${encodeURIComponent(requestId)}`, {
		itemIndex,
		resourceLabel: `booking request ${requestId}`,
		nullIfNotFound: true,
	});
	if (body === null) return null;
	const request = assertRequestShape(ctx, body, itemIndex);
	return simplify ? simplifyRequest(request) : (request as IDataObject);
}
