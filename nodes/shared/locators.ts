import type { INodeProperties } from 'n8n-workflow';

/**
 * Resource-locator parameters for ids the API accepts as filters: "From list" (a list search through
 * the rate-limited transport) or "By ID" (a UUID, checked in the editor and again before any request).
 */

const UUID_REGEX = '^\\s*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\s*$';

function uuidLocator(displayName: string, name: string, searchListMethod: string, description: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true },
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

export function formLocator(description: string): INodeProperties {
	return uuidLocator('Form', 'formId', 'searchForms', description);
}

export function businessProfileLocator(description: string): INodeProperties {
	return uuidLocator('Business Profile', 'businessProfileId', 'searchBusinessProfiles', description);
}
