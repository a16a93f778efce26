import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { searchBusinessProfiles, searchForms } from '../shared/methods/listSearch';
import * as bookingForm from './actions/bookingForm';
import * as bookingRequest from './actions/bookingRequest';
import * as bookingSession from './actions/bookingSession';
import * as businessProfile from './actions/businessProfile';
import { router } from './actions/router';

export class BookingRequests implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Booking Requests',
		name: 'bookingRequests',
		icon: { light: 'file:bookingRequests.svg', dark: 'file:bookingRequests.dark.svg' },
		group: ['input'],
		version: 1,
		// "Get Many: Booking Requests", "Get: Booking Request", "Find by Customer: Booking Requests"
		// (no arrow functions: both expression engines).
		subtitle:
			'={{ ({ "get": "Get: ", "findByCustomer": "Find by Customer: " }[$parameter["operation"]] || "Get Many: ") + ({ "bookingRequest": "Booking Request", "bookingSession": "Booking Session", "bookingForm": "Booking Form", "businessProfile": "Business Profile" }[$parameter["resource"]] || $parameter["resource"]) + ($parameter["operation"] === "get" ? "" : "s") }}',
		description:
			'Read booking requests, abandoned or completed booking sessions, booking forms and business profiles from the Booking Requests API',
		defaults: { name: 'Booking Requests' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bookingRequestsApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Booking Form',
						value: 'bookingForm',
						description: 'A booking form of the workspace (the widget customers book through)',
					},
					{
						name: 'Booking Request',
						value: 'bookingRequest',
						description: 'A booking a customer submitted: contact, address, chosen services and preferred times',
					},
					{
						name: 'Booking Session',
						value: 'bookingSession',
						description: 'A draft saved while a customer fills in a form; abandoned until it becomes a request',
					},
					{
						name: 'Business Profile',
						value: 'businessProfile',
						description: 'A service location that requests are routed to',
					},
				],
				default: 'bookingRequest',
			},
			...bookingRequest.description,
			...bookingSession.description,
			...bookingForm.description,
			...businessProfile.description,
		],
	};

	methods = {
		listSearch: { searchForms, searchBusinessProfiles },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
