import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { assertUuid } from '../../../shared/validation';
import { timestampMs } from '../../../shared/utils';

/**
 * Reading and checking parameters shared by several operations. Errors name a parameter by the
 * label the user sees in the editor ("Form"), never by its internal name (`formId`).
 */

/** Editor labels of the filters and options read here (their `displayName`). */
export const PARAMETER_LABELS: Record<string, string> = {
	formId: 'Form',
	businessProfileId: 'Business Profile',
	createdAfter: 'Created After',
	updatedAfter: 'Updated After',
	requestId: 'Request ID',
	email: 'E-Mail',
	phone: 'Phone',
};

function labelOf(name: string): string {
	return PARAMETER_LABELS[name] ?? name;
}

/** `undefined` = Return All. */
export function readLimit(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	if (ctx.getNodeParameter('returnAll', itemIndex, false) as boolean) return undefined;
	const limit = Number(ctx.getNodeParameter('limit', itemIndex, 50));
	if (!Number.isInteger(limit) || limit < 1) {
		throw new NodeOperationError(ctx.getNode(), `Limit must be a whole number of at least 1, got ${String(limit)}`, { itemIndex });
	}
	return limit;
}

/** A resource-locator filter's id, validated; `undefined` when the filter is not set. */
export function readOptionalId(ctx: IExecuteFunctions, filters: IDataObject, name: string, itemIndex: number): string | undefined {
	if (!(name in filters)) return undefined;
	const value = ctx.getNodeParameter(`filters.${name}`, itemIndex, '', { extractValue: true }) as unknown;
	if (value === '' || value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
		// An empty filter the user left empty means "no filter"; one that an expression resolved to
		// empty is a broken mapping, and silently listing the whole workspace would be wrong.
		const raw = (ctx.getNode().parameters.filters as IDataObject | undefined)?.[name] as IDataObject | undefined;
		const written = raw && typeof raw === 'object' ? raw.value : raw;
		if (typeof written === 'string' && written.startsWith('=')) {
			throw new NodeOperationError(ctx.getNode(), `Parameter "${labelOf(name)}" resolved to an empty value`, {
				itemIndex,
				description: 'Its expression gave no id for this item, so no request was sent. Remove the filter to list everything, or fix the expression.',
			});
		}
		return undefined;
	}
	return assertUuid(ctx.getNode(), value, labelOf(name), itemIndex);
}

/** Offset of `timeZone` from UTC at `utcMs`, in ms. */
function zoneOffsetMs(timeZone: string, utcMs: number): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(utcMs));
	const get = (type: string) => Number(parts.find((part) => part.type === type)?.value);
	const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
	return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/**
 * A date parameter as epoch ms. n8n's date picker gives a wall-clock time without a zone: it is read in
 * the workflow's time zone, as n8n's own nodes do. ISO strings with a zone, numbers (ms) and Luxon or
 * JS dates from expressions are taken as they are.
 */
export function readDate(ctx: IExecuteFunctions, filters: IDataObject, name: string, itemIndex: number): number | undefined {
	const value = filters[name] as unknown;
	if (value === undefined || value === null || value === '') return undefined;
	let ms = NaN;
	if (typeof value === 'number') ms = value;
	else if (value instanceof Date) ms = value.getTime();
	else if (typeof value === 'object' && typeof (value as { toMillis?: unknown }).toMillis === 'function') {
		ms = (value as { toMillis: () => number }).toMillis();
	} else if (typeof value === 'string') {
		const text = value.trim();
		if (/(Z|[+-]\d{2}:?\d{2})$/i.test(text)) ms = Date.parse(text);
		else if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
			const wall = Date.parse(`${text.length === 10 ? `${text}T00:00:00` : text}Z`);
			if (Number.isFinite(wall)) {
				const zone = ctx.getTimezone();
				ms = wall - zoneOffsetMs(zone, wall);
				ms = wall - zoneOffsetMs(zone, ms); // second pass settles DST edges
			}
		}
	}
	if (!Number.isFinite(ms)) {
		throw new NodeOperationError(ctx.getNode(), `Parameter "${labelOf(name)}" is not a valid date`, {
			itemIndex,
			description: 'Use the date picker, an ISO 8601 date such as 2026-11-01T00:00:00Z, or an expression such as {{ $now.minus(1, "day") }}.',
		});
	}
	return ms;
}

/** Time of an API timestamp; null or unparsable sorts as oldest. */
export function timeOf(value: unknown): number {
	return timestampMs(value) ?? -Infinity;
}
