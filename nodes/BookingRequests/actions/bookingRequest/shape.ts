import type { IExecuteFunctions, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { BookingRequest } from '../../../shared/types';

/** Get request answers with the Request itself; anything else is not passed on as data. */
export function assertRequestShape(ctx: IExecuteFunctions | IPollFunctions, body: unknown, itemIndex: number): BookingRequest {
	if (typeof body === 'object' && body !== null && !Array.isArray(body) && typeof (body as BookingRequest).id === 'string') {
		return body as BookingRequest;
	}
	throw new NodeApiError(
		ctx.getNode(),
		{ error: 'invalid_response', message: 'Get request did not answer with a request object' },
		{
			message: "The API's answer does not match the Booking Requests API contract: Get request returned no request object",
			description: 'Nothing was returned for this item. If it persists, report it to the API provider.',
			itemIndex,
		},
	);
}
