/**
 * New Request: a booking request created since the last poll (the request list is newest first by
 * `created_at`). The request window also serves Skip Customers Who Booked (skipBooked.ts): each booking
 * it passes is remembered for its customer, whether or not New Request is selected. Event time:
 * `created_at`.
 */
import type { BookingRequest } from '../../shared/types';
import type { EventBase } from '../model/event';
import { sortTime } from '../model/pages';
import type { SkipBookedSettings } from './skipBooked';
import { bookingOf, skipsBooked } from './skipBooked';
import type { Candidate } from '../windows/window';
import { REQUEST_ITEM_FIELDS, requestItem } from '../output/itemFields';
import { SAMPLES_PER_EVENT } from '../output/samples';
import type { Decision, JudgeContext } from './context';
import type { EventKind } from './kind';

export interface RequestCreatedEvent extends EventBase {
	event: 'request.created';
	request: BookingRequest;
}

/** `request.created:<request id>`. */
export function createdEventId(request: BookingRequest): string {
	return `request.created:${request.id}`;
}

function judge(candidate: Candidate, context: JudgeContext<SkipBookedSettings>): Decision<RequestCreatedEvent> {
	const { settings } = context;
	const request = candidate.item as BookingRequest;
	const booked = skipsBooked(settings) ? bookingOf(request, candidate.time, context) : undefined;
	// With a Form filter and Skip Customers Who Booked the list holds every form's requests: only this form's are new.
	const reported = settings.events.requestCreated && (settings.requestsForm === undefined || request.form_id === settings.requestsForm);
	return {
		candidate,
		event: reported ? { event: 'request.created', eventId: createdEventId(request), at: candidate.at, request } : undefined,
		...(booked ? { booked } : {}),
	};
}

export const requestCreated: EventKind<RequestCreatedEvent, SkipBookedSettings> = {
	value: 'requestCreated',
	name: 'request.created',
	letter: 'n',
	words: {
		name: 'New Request',
		description: 'A customer sent a booking request',
		when: 'a new booking request arrives',
		startsFor: 'each new booking request',
		subtitle: 'New Request',
		fields: REQUEST_ITEM_FIELDS,
	},
	windows: () => ['requests'],
	judges: ['requests'],
	judge,
	item: requestItem,
	samples: (first) => {
		const requests = first.requests ?? [];
		const dated = requests.filter((request) => sortTime('requests', request) !== null);
		return (dated.length > 0 ? dated : requests)
			.slice(0, SAMPLES_PER_EVENT)
			.map((request): RequestCreatedEvent => ({ event: 'request.created', eventId: createdEventId(request), at: sortTime('requests', request) ?? first.now, request }));
	},
};
