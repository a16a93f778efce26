/**
 * Session Completed: a session whose `request_id` became set (completing a booking moves it to the top
 * of the list), including placeholder sessions (a booking without a saved draft). `recovered`: this
 * trigger reported the same customer abandoned (any session) in the RECOVERY_WINDOW_DAYS before, or saw
 * this very session abandoned. Event time: `updated_at`.
 */
import type { IDataObject } from 'n8n-workflow';

import { simplifyRequest } from '../../shared/output/request';
import { isCompleted, requestIdOf } from '../../shared/output/session';
import type { BookingRequest, BookingSession } from '../../shared/types';
import { REMINDED_RETENTION_DAYS } from '../state/customers';
import { DAY_MS } from '../state/seen';
import type { TriggerEvent } from '../model/event';
import { EDGE_WINDOW_MS, sortTime } from '../model/pages';
import type { Candidate } from '../windows/window';
import type { FormNames, ItemOptions } from '../output/itemFields';
import { sessionItem } from '../output/itemFields';
import { contactRank, ranked, SAMPLES_PER_EVENT } from '../output/samples';
import type { Decision, JudgeContext } from './context';
import { sessionCodes } from './context';
import type { EventKind } from './kind';

/** A completion is a recovery when the customer was reported abandoned at most this many days before. */
export const RECOVERY_WINDOW_DAYS = REMINDED_RETENTION_DAYS;

/** `session.completed:<session id>:<request_id>`. */
export function completedEventId(session: BookingSession): string {
	return `session.completed:${session.id}:${String(session.request_id)}`;
}

/**
 * Whether the completion's customer may not be known yet: its booking request (created with it) is not
 * among the requests the poll read, and may have been committed after the poll read the request list.
 * The next poll reads the list again and knows it.
 */
function customerNotKnownYet(candidate: Candidate, request: BookingRequest | undefined, context: JudgeContext): boolean {
	return request === undefined && context.requestsReadAt !== undefined && candidate.time >= context.requestsReadAt - EDGE_WINDOW_MS;
}

function judge(candidate: Candidate, context: JudgeContext): Decision {
	const { settings, memory } = context;
	const { item, id } = candidate;
	if (!isCompleted(item) || !settings.events.sessionCompleted) return { candidate };
	const session = item as BookingSession;
	const request = context.bookings.byId.get(requestIdOf(session) as string);
	if (customerNotKnownYet(candidate, request, context)) return { candidate, defer: true };
	const codes = memory.identity(sessionCodes(session, request));
	const reminder = memory.lastReminder(codes);
	const byCustomer = reminder && reminder.at <= candidate.at && candidate.at - reminder.at <= RECOVERY_WINDOW_DAYS * DAY_MS ? reminder : undefined;
	const recovered = byCustomer !== undefined || memory.hasSeen(id, candidate.at);
	if (settings.onlyRecovered && !recovered) return { candidate };
	return {
		candidate,
		event: {
			event: 'session.completed',
			eventId: completedEventId(session),
			at: candidate.at,
			session,
			recovered,
			recoveredFromSessionId: byCustomer ? byCustomer.sessionId : recovered ? id : null,
			minutesToRecover: byCustomer ? Math.max(0, Math.floor((candidate.time - byCustomer.activity) / 60_000)) : null,
		},
	};
}

/** `recovered`, `recovered_from_session_id`, `minutes_to_recover` (nulls when not recovered), and `request`. */
function item(event: TriggerEvent, options: ItemOptions, formNames: FormNames): IDataObject {
	const recovered = event.recovered === true;
	const json: IDataObject = {
		...sessionItem(event, options, formNames, event.request),
		recovered,
		recovered_from_session_id: recovered ? (event.recoveredFromSessionId ?? null) : null,
		minutes_to_recover: recovered ? (event.minutesToRecover ?? null) : null,
	};
	if (options.includeRequest) json.request = event.request ? (options.simplify ? simplifyRequest(event.request) : (event.request as IDataObject)) : null;
	return json;
}

export const sessionCompleted: EventKind = {
	value: 'sessionCompleted',
	name: 'session.completed',
	letter: 'c',
	option: {
		name: 'Session Completed',
		description: 'A customer finished a booking (also bookings made without a saved draft)',
		startsFor: 'each booking a customer finishes',
		subtitle: 'Completed',
	},
	// The horizon too: a session seen abandoned makes its completion `recovered`, whichever events are selected.
	windows: () => ['completions', 'horizon', 'held'],
	judges: ['completions'],
	judge,
	item,
	samples: (first) =>
		ranked((first.sessions ?? []).filter(isCompleted), [contactRank])
			.slice(0, SAMPLES_PER_EVENT)
			.map((session) => ({ event: 'session.completed', eventId: completedEventId(session), at: sortTime('sessions', session) ?? first.now, session, recovered: false })),
};
