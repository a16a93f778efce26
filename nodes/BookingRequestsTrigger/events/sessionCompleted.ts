/**
 * Session Completed: a session whose `request_id` became set (completing a booking moves it to the top
 * of the list), including placeholder sessions (a booking without a saved draft). `recovered`: this
 * trigger reported the same customer abandoned (any session) in the RECOVERY_WINDOW_DAYS before, or saw
 * this very session abandoned. Event time: `updated_at`.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { includedRequest } from '../../shared/output/funnel';
import { isCompleted, requestIdOf } from '../../shared/output/session';
import type { BookingRequest, BookingSession } from '../../shared/types';
import { REMINDED_RETENTION_DAYS } from '../state/customers';
import { DAY_MS } from '../state/seen';
import type { EventBase } from '../model/event';
import { EDGE_WINDOW_MS, sortTime } from '../model/pages';
import type { Candidate } from '../windows/window';
import type { FormNames, ItemOptions } from '../output/itemFields';
import { SESSION_ITEM_FIELDS, sessionItem } from '../output/itemFields';
import { contactRank, ranked, SAMPLES_PER_EVENT } from '../output/samples';
import type { Decision, JudgeContext } from './context';
import { sessionCodes } from './context';
import type { EventKind, ParameterInput, SettingsPart } from './kind';
import { ABANDONED_AFTER } from './sessionAbandoned';

export interface SessionCompletedEvent extends EventBase {
	event: 'session.completed';
	session: BookingSession;
	/** The session's booking request when the item needs it (null when the API answered 404), attached by poll/attach.ts. */
	request?: BookingRequest | null;
	/** Whether this trigger reported the same customer abandoned (any session) within the recovery window before, or saw this very session abandoned. */
	recovered?: boolean;
	/** The session of that abandonment (null when not recovered). */
	recoveredFromSessionId?: string | null;
	/** Whole minutes from that session's last activity to this completion (null when not recovered or unknown). */
	minutesToRecover?: number | null;
}

/** Session Completed's options. */
export interface CompletedSettings {
	/** "Only Recovered". */
	onlyRecovered: boolean;
}

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
function customerNotKnownYet(candidate: Candidate, request: BookingRequest | undefined, context: JudgeContext<CompletedSettings>): boolean {
	return request === undefined && context.requestsReadAt !== undefined && candidate.time >= context.requestsReadAt - EDGE_WINDOW_MS;
}

function judge(candidate: Candidate, context: JudgeContext<CompletedSettings>): Decision<SessionCompletedEvent> {
	const { settings, memory } = context;
	const { item, id } = candidate;
	if (!isCompleted(item) || !settings.events.sessionCompleted) return { candidate };
	const session = item as BookingSession;
	const request = context.bookings.byId.get(requestIdOf(session) as string);
	if (customerNotKnownYet(candidate, request, context)) return { candidate, defer: true };
	const codes = memory.identity(sessionCodes(session, request));
	const reminder = memory.lastReminder(codes);
	// A completion judged after the reminder went out was not visible before it (events go out oldest
	// first), so one stamped up to EDGE_WINDOW_MS before the reminder's time was committed late after it.
	const byCustomer = reminder && reminder.at <= candidate.at + EDGE_WINDOW_MS && candidate.at - reminder.at <= RECOVERY_WINDOW_DAYS * DAY_MS ? reminder : undefined;
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

/** `recovered`, `recovered_from_session_id`, `minutes_to_recover` (nulls when not recovered), and with Include Booking Request `minutes_to_book` and `request`, as Get Many sessions has them. */
function item(event: SessionCompletedEvent, options: ItemOptions, formNames: FormNames): IDataObject {
	const recovered = event.recovered === true;
	const json: IDataObject = {
		...sessionItem(event, options, formNames, event.request),
		recovered,
		recovered_from_session_id: recovered ? (event.recoveredFromSessionId ?? null) : null,
		minutes_to_recover: recovered ? (event.minutesToRecover ?? null) : null,
	};
	return options.includeRequest ? { ...json, ...includedRequest(event.session, event.request ?? null, options.simplify) } : json;
}

const OPTIONS: INodeProperties[] = [
	{
		displayName: 'Include Booking Request',
		name: 'includeRequest',
		type: 'boolean',
		default: false,
		description:
			'Whether to attach the booking request of each completed session as "request", with "minutes_to_book" (first save to booking). Read from the request list, about 1 more call per 100 completed sessions (none when the poll read it already, 1 each when only a few).',
	},
	{
		displayName: 'Only Recovered',
		name: 'onlyRecovered',
		type: 'boolean',
		default: false,
		description:
			'Whether to report only completed bookings of customers this trigger reported abandoned in the 30 days before (same e-mail or phone, any session: customers who came back). Abandonments from before the workflow was published do not count.',
	},
];

function read(input: ParameterInput): SettingsPart<CompletedSettings> {
	const { options, events } = input;
	return { settings: { onlyRecovered: options.onlyRecovered === true }, output: { includeRequest: options.includeRequest === true && events.sessionCompleted } };
}

export const sessionCompleted: EventKind<SessionCompletedEvent, CompletedSettings> = {
	value: 'sessionCompleted',
	name: 'session.completed',
	letter: 'c',
	words: {
		name: 'Session Completed',
		description: 'A customer finished a booking (also bookings made without a saved draft)',
		when: 'a customer finishes a booking',
		startsFor: 'each booking a customer finishes',
		subtitle: 'Completed',
		fields: `${SESSION_ITEM_FIELDS}, recovered, recovered_from_session_id, minutes_to_recover (with Include Booking Request also minutes_to_book and request)`,
	},
	parameters: [ABANDONED_AFTER],
	options: OPTIONS,
	read,
	// The horizon too: a session seen abandoned makes its completion `recovered`, whichever events are selected.
	windows: () => ['completions', 'horizon', 'held'],
	judges: ['completions'],
	judge,
	attachTo: (event) => event.session,
	item,
	samples: (first) =>
		ranked((first.sessions ?? []).filter(isCompleted), [contactRank])
			.slice(0, SAMPLES_PER_EVENT)
			.map((session): SessionCompletedEvent => ({ event: 'session.completed', eventId: completedEventId(session), at: sortTime('sessions', session) ?? first.now, session, recovered: false })),
};
