import type { INodeProperties } from 'n8n-workflow';

/**
 * Resource-locator parameters for ids the API accepts as filters: "From list" (a list search through
 * the rate-limited transport) or "By ID" (a UUID, checked in code before any request: validation.ts).
 * The By ID mode has no `validation` regex: n8n checks a workflow's parameters before every execution
 * (WorkflowExecute's workflow issues), and a regex there runs in n8n's safe regex engine, whose 250 ms
 * watchdog fails the whole run on a starved server.
 */

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
