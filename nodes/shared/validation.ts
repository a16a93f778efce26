import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
	return typeof value === 'string' && UUID.test(value);
}

/**
 * Contract: ids in paths and filters must be valid UUIDs. Checked before any request, so a bad id
 * costs no call and never reaches a URL. The error shows at most a short, quoted excerpt of the value.
 */
export function assertUuid(node: INode, value: unknown, parameter: string, itemIndex: number): string {
	const text = typeof value === 'string' ? value.trim() : value;
	if (isUuid(text)) return text.toLowerCase();
	return failInvalidUuid(node, value, parameter, itemIndex);
}

function failInvalidUuid(node: INode, value: unknown, parameter: string, itemIndex: number): never {
	let shown: string;
	if (typeof value !== 'string') shown = `a ${value === null ? 'null' : typeof value} value`;
	else if (value.trim() === '') shown = 'an empty value';
	else shown = `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
	throw new NodeOperationError(node, `Parameter "${parameter}" must be a UUID, got ${shown}`, {
		itemIndex,
		description:
			'Ids look like 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f. Take them from a Get Many result, from "From list", or from a session\'s request_id. No request was sent.',
	});
}
