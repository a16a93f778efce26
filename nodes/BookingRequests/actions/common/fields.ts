import type { INodePropertyOptions, INodeProperties } from 'n8n-workflow';

/** Parameter blocks every Get Many shares: Return All / Limit / Simplify (and, re-exported, the locators). */

/** The Operation selector of one resource. */
export function operationField(resource: string, options: INodePropertyOptions[]): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: 'getAll',
	};
}

export function getManyFields(resource: string, itemsName: string): INodeProperties[] {
	const show = { resource: [resource], operation: ['getAll'] };
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			displayOptions: { show },
			description: 'Whether to return all results or only up to a given limit',
			hint: `Return All reads the ${itemsName} 100 per call, at most 1 call per second (the API's limit)`,
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			default: 50,
			typeOptions: { minValue: 1 },
			displayOptions: { show: { ...show, returnAll: [false] } },
			description: 'Max number of results to return',
		},
	];
}

export function simplifyField(resource: string, operations: string[], fields: string): INodeProperties {
	return {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		displayOptions: { show: { resource: [resource], operation: operations } },
		description: `Whether to return a simplified version of the response instead of the raw data. Simplified: ${fields}.`,
	};
}

export { businessProfileLocator, formLocator } from '../../../shared/locators';
