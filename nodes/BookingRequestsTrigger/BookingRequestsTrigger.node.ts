import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

// Placeholder while the trigger is written (issue 4).
export class BookingRequestsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Booking Requests Trigger',
		name: 'bookingRequestsTrigger',
		icon: { light: 'file:bookingRequestsTrigger.svg', dark: 'file:bookingRequestsTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		description: 'Starts the workflow when booking sessions are abandoned or completed, or requests arrive',
		defaults: { name: 'Booking Requests Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bookingRequestsApi', required: true }],
		properties: [],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return null;
	}
}
