import type { INodeProperties } from 'n8n-workflow';

/** Parameter blocks every Get Many shares: Return All / Limit / Simplify, and the resource locators. */

const UUID_REGEX = '^\\s*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\s*$';

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

export function formLocator(description: string): INodeProperties {
	return {
		displayName: 'Form',
		name: 'formId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchForms', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
				validation: [{ type: 'regex', properties: { regex: UUID_REGEX, errorMessage: 'Not a valid UUID' } }],
			},
		],
	};
}

export function businessProfileLocator(description: string): INodeProperties {
	return {
		displayName: 'Business Profile',
		name: 'businessProfileId',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchBusinessProfiles', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
				validation: [{ type: 'regex', properties: { regex: UUID_REGEX, errorMessage: 'Not a valid UUID' } }],
			},
		],
	};
}
