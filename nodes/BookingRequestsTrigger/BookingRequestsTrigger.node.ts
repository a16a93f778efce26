import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { searchForms } from '../shared/methods/listSearch';
import { TRIGGER_DESCRIPTION, TRIGGER_SUBTITLE, triggerProperties } from './description';
import { pollBudgetMs, readParameters, safetyMarginMs } from './parameters';
import { activePoll } from './poll/activePoll';
import { apiSource } from './poll/source';
import { testEvent } from './poll/testEvent';

export class BookingRequestsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Booking Requests Trigger',
		name: 'bookingRequestsTrigger',
		icon: { light: 'file:bookingRequestsTrigger.svg', dark: 'file:bookingRequestsTrigger.dark.svg' },
		group: ['trigger'],
		// 1.1: Skip Customers Who Booked on by default (description.ts).
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: TRIGGER_SUBTITLE,
		description: TRIGGER_DESCRIPTION,
		defaults: { name: 'Booking Requests Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bookingRequestsApi', required: true }],
		properties: triggerProperties,
	};

	methods = {
		listSearch: { searchForms },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const params = await readParameters(this);
		const budgetMs = pollBudgetMs(this);
		const deadline = Date.now() + budgetMs - safetyMarginMs(budgetMs);
		if (this.getMode() !== 'manual') return await activePoll(this, params, { budgetMs, deadline });
		// "Fetch Test Event": samples of the watched form only (the request list filtered as the user sees it).
		const items = await testEvent(this, { source: apiSource(this, params.formId, { deadline }), settings: params.settings, output: params.output, deadline });
		return items.length > 0 ? [items] : null;
	}
}
