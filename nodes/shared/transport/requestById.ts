import { API_PATHS } from '../constants';
import type { ApiContext } from './request';
import { apiRequest } from './request';

export interface RequestByIdOptions {
	itemIndex?: number;
	/** A 404 gives null instead of an error (the request was removed since it was listed). */
	nullIfNotFound?: boolean;
	/** The call, its retries and waits end by then (the trigger's poll budget). */
	deadline?: number;
}

/**
 * Get request: the one place that builds its path and how errors name it. Returns the answer's body
 * as received (null on 404 with `nullIfNotFound`); each caller decides how strictly it checks its shape.
 */
export async function getRequestById(ctx: ApiContext, id: string, options: RequestByIdOptions = {}): Promise<unknown> {
	const { body } = await apiRequest<unknown>(ctx, `${API_PATHS.requests}/${encodeURIComponent(id)}`, {
		itemIndex: options.itemIndex,
		resourceLabel: `booking request ${id}`,
		nullIfNotFound: options.nullIfNotFound,
		deadline: options.deadline,
	});
	return body;
}
