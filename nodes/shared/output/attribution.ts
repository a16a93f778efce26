import type { IDataObject } from 'n8n-workflow';

import { recordOrEmpty } from './values';

/**
 * Marketing attribution, flattened into top-level fields so a workflow maps `utm_source` rather than
 * `attribution.utm_source`. The keys every marketer looks for are always present (null when the
 * object lacks them), so every item has the same columns; any other key the API sends (click ids such
 * as `gclid`, `fbclid`, or `utm_term`) is added when present, with scalar values only.
 */
export const ATTRIBUTION_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'referrer', 'page_url'] as const;

const SAFE_KEY = /^[a-z][a-z0-9_]{0,63}$/i;

/**
 * `taken` are the names the surrounding shape already uses: an attribution key with such a name
 * (a request's attribution carries its own `source`) is added as `attribution_<key>` instead of
 * overwriting the shape's field.
 */
export function flattenAttribution(attribution: unknown, taken: ReadonlySet<string>): IDataObject {
	const source = recordOrEmpty(attribution);
	const out: IDataObject = {};
	for (const key of ATTRIBUTION_FIELDS) out[key] = scalar(source[key]);
	for (const [key, value] of Object.entries(source)) {
		if ((ATTRIBUTION_FIELDS as readonly string[]).includes(key) || !SAFE_KEY.test(key)) continue;
		const flat = scalar(value);
		if (flat === null) continue;
		out[taken.has(key) ? `attribution_${key}` : key] = flat;
	}
	return out;
}

function scalar(value: unknown): string | number | boolean | null {
	if (typeof value === 'string') return value.trim() === '' ? null : value;
	if (typeof value === 'number' || typeof value === 'boolean') return value;
	return null;
}
