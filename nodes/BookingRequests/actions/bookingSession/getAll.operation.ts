import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { API_PATHS } from '../../../shared/constants';
import { sessionStatus, simplifySession } from '../../../shared/output/session';
import { paginate } from '../../../shared/transport/paginate';
import type { BookingSession } from '../../../shared/types';
import { timestampMs } from '../../../shared/utils';
import { formLocator, getManyFields, simplifyField } from '../common/fields';
import { readDate, readLimit, readOptionalId, timeOf } from '../common/parameters';
import { includedFields } from './includeRequest';

type StatusFilter = 'all' | 'abandoned' | 'completed';

const properties: INodeProperties[] = [
	...getManyFields('booking sessions'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{ ...formLocator('Only sessions on this form') },
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'all',
				description:
					'The API returns abandoned and completed sessions together; this filter is applied by the node after each page is read (a session is abandoned while its request_id is empty)',
				options: [
					{ name: 'All', value: 'all', description: 'Abandoned and completed sessions' },
					{ name: 'Abandoned', value: 'abandoned', description: 'Sessions with no booking request (request_id empty)' },
					{ name: 'Completed', value: 'completed', description: 'Sessions that turned into a booking request' },
				],
			},
			{
				displayName: 'Updated After',
				name: 'updatedAfter',
				type: 'dateTime',
				default: '',
				description:
					'Only sessions with activity after this moment. Paging stops at the first older session, so a frequent sync costs one call per 100 changed sessions.',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Include Booking Request',
				name: 'includeRequest',
				type: 'boolean',
				default: false,
				description:
					'Whether to attach the booking request of each completed session as "request", with "minutes_to_book" (first save to booking). Read from the request list, about 1 more call per 100 completed sessions.',
			},
		],
	},
	simplifyField(
		'id, request_id, status (abandoned or completed), form_id, step, email, first_name, last_name and phone from the saved draft, zip, address, scheduled_date, service_ids, source, utm_source, utm_medium, utm_campaign, referrer, page_url (and any other attribution key), created_at, updated_at; with Include Booking Request, completed sessions also get minutes_to_book and request',
	),
];

export const description = updateDisplayOptions({ show: { resource: ['bookingSession'], operation: ['getAll'] } }, properties);

/** Which sessions are returned: the Status filter, and with Updated After only sessions that have an `updated_at`. */
function acceptOf(status: StatusFilter, updatedAfter: number | undefined): ((session: BookingSession) => boolean) | undefined {
	if (status === 'all' && updatedAfter === undefined) return undefined;
	return (session) =>
		(status === 'all' || sessionStatus(session) === status) && (updatedAfter === undefined || timestampMs(session.updated_at) !== null);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const formId = readOptionalId(this, filters, 'formId', itemIndex);
	const updatedAfter = readDate(this, filters, 'updatedAfter', itemIndex);
	const status = (filters.status as StatusFilter | undefined) ?? 'all';
	const limit = readLimit(this, itemIndex);

	const { items } = await paginate<BookingSession>(this, API_PATHS.sessions, {
		qs: { form_id: formId },
		itemIndex,
		limit,
		accept: acceptOf(status, updatedAfter),
		// Most recently active first by updated_at: the first session not after the date ends it. One
		// without updated_at is before any date, but the API may list it first: it never ends the read.
		stopAt: updatedAfter === undefined ? undefined : (session) => timestampMs(session.updated_at) !== null && timeOf(session.updated_at) <= updatedAfter,
		// A session that changes jumps to the top; the paginator re-reads the top so none is missed.
		movesToTopBy: (session) => session.updated_at,
	});

	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	const included = options.includeRequest === true ? await includedFields(this, items, { itemIndex, formId, simplify }) : [];
	return items.map((session, index) => ({ ...(simplify ? simplifySession(session) : session), ...included[index] }) as IDataObject);
}
