/**
 * Form names for the trigger's simplified items (`form_name`), from a cache per n8n process keyed by
 * the API target (Base URL + key id, never the key) and the form id.
 *
 * Refresh rule: names read from the API are trusted for FORM_NAMES_TTL_MS (1 hour). A poll that emits
 * events needs the names of their forms; it makes no call when every one of them is in a cache entry
 * younger than that (a form the list did not contain is remembered as unknown, so a deleted form costs
 * no call per poll either), and otherwise exactly one: GET /api/v1/forms?per_page=100, which refreshes
 * the whole entry. A renamed form therefore shows its new name within an hour, a new form at once.
 * That call never fails the poll: when the poll's time budget is spent or the call fails, the item
 * gets the name from an older entry if there is one, else `form_name: null`.
 */
import { API_PATHS, MAX_PER_PAGE } from '../../shared/constants';
import { isDeadlineReached } from '../../shared/transport/deadline';
import type { ApiContext } from '../../shared/transport/request';
import { apiRequest, resolveTarget } from '../../shared/transport/request';
import { isRecord } from '../../shared/utils';
import type { FormNames } from '../output/itemFields';

export const FORM_NAMES_TTL_MS = 60 * 60_000;

interface Entry {
	readAt: number;
	names: Map<string, string | null>;
}

/** One trigger bundle holds this module, so a module-level map is one cache per process. */
const cache = new Map<string, Entry>();

/** For tests: forget every cached name. */
export function clearFormNamesCache(): void {
	cache.clear();
}

/** The names of `formIds` when the cache can answer for all of them, else undefined (a call is needed). */
function cachedFormNames(cacheKey: string, formIds: readonly string[], now = Date.now()): FormNames | undefined {
	const entry = cache.get(cacheKey);
	if (!entry || now - entry.readAt >= FORM_NAMES_TTL_MS) return undefined;
	if (!formIds.every((id) => entry.names.has(id))) return undefined;
	return entry.names;
}

/** Names from whatever the cache holds, however old; null for the rest. */
function staleNames(cacheKey: string, formIds: readonly string[]): FormNames {
	const entry = cache.get(cacheKey);
	return new Map(formIds.map((id) => [id, entry?.names.get(id) ?? null]));
}

interface FormNamesOptions {
	/** The poll's time budget (Date.now() clock): the forms call is only started if it can end by then. */
	deadline?: number;
	/** The clock the cache's age is measured with (tests); default Date.now. */
	clock?: () => number;
}

/** The names of `formIds` (distinct ids of the events being shaped): at most one API call. */
export async function formNamesFor(ctx: ApiContext, formIds: readonly string[], options: FormNamesOptions = {}): Promise<FormNames> {
	if (formIds.length === 0) return new Map();
	const target = await resolveTarget(ctx);
	const cacheKey = `${target.baseUrl}#${target.keyId}`;
	const clock = options.clock ?? Date.now;
	const cached = cachedFormNames(cacheKey, formIds, clock());
	if (cached) return cached;
	try {
		const { body } = await apiRequest<unknown>(ctx, API_PATHS.forms, { qs: { page: 1, per_page: MAX_PER_PAGE }, deadline: options.deadline });
		const names = new Map<string, string | null>();
		const items = isRecord(body) && Array.isArray(body.items) ? body.items : [];
		for (const form of items) {
			if (isRecord(form) && typeof form.id === 'string') names.set(form.id, typeof form.name === 'string' && form.name.trim() ? form.name : null);
		}
		// Forms the list does not hold (deleted, or beyond its first 100) are remembered as unknown.
		for (const id of formIds) if (!names.has(id)) names.set(id, null);
		cache.set(cacheKey, { readAt: clock(), names });
		return names;
	} catch (error) {
		ctx.logger.warn(
			isDeadlineReached(error)
				? 'Booking Requests Trigger: no time left in this poll to read form names; items carry form_name from the cache or null'
				: 'Booking Requests Trigger: could not read form names; items carry form_name from the cache or null',
			{ error: (error as Error).message },
		);
		return staleNames(cacheKey, formIds);
	}
}
