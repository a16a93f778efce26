import type { INodePropertyOptions, INodeProperties } from 'n8n-workflow';

/**
 * Parameter blocks several operations share. They carry no resource/operation display conditions:
 * each operation file scopes its own parameters with `updateDisplayOptions` (the Cal / Airtable v2
 * pattern), so a parameter is declared in exactly one place.
 */

/** The Operation selector of one resource (the only parameter a resource's index.ts declares). */
export function operationField(resource: string, options: INodePropertyOptions[], defaultOperation = 'getAll'): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: defaultOperation,
	};
}

/** Return All / Limit of a Get Many. */
export function getManyFields(itemsName: string): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			hint: `Return All reads the ${itemsName} 100 per call, at most 1 call per second (the API's limit)`,
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			default: 50,
			typeOptions: { minValue: 1 },
			displayOptions: { show: { returnAll: [false] } },
			description: 'Max number of results to return',
		},
	];
}

export function simplifyField(fields: string): INodeProperties {
	return {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: `Whether to return a simplified version of the response instead of the raw data. Simplified: ${fields}.`,
	};
}

export { businessProfileLocator, formLocator } from '../../../shared/locators';
