import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { API_PATHS } from '../../../shared/constants';
import { customerKeys, MIN_PHONE_DIGITS, normaliseEmail, normalisePhone } from '../../../shared/customer';
import { simpleRequestFieldList, simplifyRequest } from '../../../shared/output/request';
import { paginate } from '../../../shared/transport/paginate';
import type { BookingRequest } from '../../../shared/types';
import { timestampMs } from '../../../shared/utils';
import { formLocator, getManyFields, simplifyField } from '../common/fields';
import { PARAMETER_LABELS, readDate, readLimit, readOptionalId } from '../common/parameters';

/** Without Created After, the request list is read back this far. */
export const DEFAULT_LOOKBACK_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

const properties: INodeProperties[] = [
	{
		displayName: 'E-Mail',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		default: '',
		description:
			"The customer's e-mail address. Compared with spaces trimmed and case ignored. Give an e-mail, a phone, or both: a request matches when either is the same.",
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		placeholder: '(512) 555-0199',
		default: '',
		description:
			'The customer\'s phone in any format ("(512) 555-0199", "+1 512 555 0199"). Compared as the digits of its international form; 10 digits without a country code are read as a North American number.',
	},
	{
		displayName: 'Created After',
		name: 'createdAfter',
		type: 'dateTime',
		default: '',
		description: `Only requests created after this moment, e.g. when the customer's booking session started. Empty: the last ${DEFAULT_LOOKBACK_DAYS} days.`,
		hint: 'The API has no e-mail filter: the request list is read newest first, 100 per call, down to this date. Costs 1 call plus 1 per 100 requests created since.',
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		options: [
			{
				name: 'Matching Requests',
				value: 'requests',
				description: 'One item per booking request of the customer, newest first; none when the customer has no request',
			},
			{
				name: 'One Summary per Input Item',
				value: 'summary',
				description:
					'One item per input item with "booked" (true or false), "request_count" and the matching "requests": for an If node that asks whether the customer booked',
			},
		],
		default: 'requests',
	},
	...getManyFields("customer's booking requests"),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [{ ...formLocator('Only requests submitted through this form (read on the server: fewer calls)') }],
	},
	simplifyField(simpleRequestFieldList()),
];

export const description = updateDisplayOptions({ show: { resource: ['bookingRequest'], operation: ['findByCustomer'] } }, properties);

/** The e-mail and phone parameters, checked before any request. */
export function readCustomer(ctx: IExecuteFunctions, itemIndex: number): { email?: string; phone?: string } {
	const raw = {
		email: ctx.getNodeParameter('email', itemIndex, '') as unknown,
		phone: ctx.getNodeParameter('phone', itemIndex, '') as unknown,
	};
	const given = (value: unknown) => value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '');
	const shown = (value: unknown) => {
		const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
		return `"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`;
	};
	const customer: { email?: string; phone?: string } = {};
	if (given(raw.email)) {
		const email = normaliseEmail(raw.email);
		if (!email) {
			throw new NodeOperationError(ctx.getNode(), `Parameter "${PARAMETER_LABELS.email}" is not an e-mail address, got ${shown(raw.email)}`, {
				itemIndex,
				description: 'Give an address such as ann.lee@example.com, or leave it empty and give a Phone. No request was sent.',
			});
		}
		customer.email = email;
	}
	if (given(raw.phone)) {
		const phone = normalisePhone(raw.phone);
		if (!phone) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Parameter "${PARAMETER_LABELS.phone}" has fewer than ${MIN_PHONE_DIGITS} digits, got ${shown(raw.phone)}`,
				{ itemIndex, description: 'A phone this short identifies nobody. Give the whole number, or leave it empty and give an E-Mail. No request was sent.' },
			);
		}
		customer.phone = typeof raw.phone === 'number' ? String(raw.phone) : (raw.phone as string).trim();
	}
	if (customerKeys(customer).length === 0) {
		throw new NodeOperationError(ctx.getNode(), `Give the customer's "${PARAMETER_LABELS.email}" or "${PARAMETER_LABELS.phone}" (or both)`, {
			itemIndex,
			description:
				'Both are empty for this item, so there is nobody to look for. Map them from the previous node, e.g. {{ $json.email }} and {{ $json.phone }}. No request was sent.',
		});
	}
	return customer;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const customer = readCustomer(this, itemIndex);
	const keys = new Set(customerKeys(customer));
	const createdAfter =
		readDate(this, { createdAfter: this.getNodeParameter('createdAfter', itemIndex, '') as unknown } as IDataObject, 'createdAfter', itemIndex) ??
		Date.now() - DEFAULT_LOOKBACK_DAYS * DAY_MS;
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const formId = readOptionalId(this, filters, 'formId', itemIndex);
	const limit = readLimit(this, itemIndex);
	const output = this.getNodeParameter('output', itemIndex, 'requests') as string;

	const { items } = await paginate<BookingRequest>(this, API_PATHS.requests, {
		qs: { form_id: formId },
		itemIndex,
		limit,
		// Newest first by created_at: the first request known to be older ends the read. A request
		// without a readable created_at cannot be placed in time: it neither ends the read nor matches.
		stopAt: (request) => {
			const created = timestampMs(request.created_at);
			return created !== null && created <= createdAfter;
		},
		accept: (request) => {
			const created = timestampMs(request.created_at);
			return created !== null && created > createdAfter && customerKeys(request).some((key) => keys.has(key));
		},
	});
	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	const requests = items.map((request) => (simplify ? simplifyRequest(request) : (request as IDataObject)));
	if (output !== 'summary') return requests;
	return [
		{
			email: customer.email ?? null,
			phone: customer.phone ?? null,
			created_after: new Date(createdAfter).toISOString(),
			booked: requests.length > 0,
			request_count: requests.length,
			requests,
		},
	];
}
