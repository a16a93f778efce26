/**
 * Session Abandoned: a session with no booking request whose last activity (`updated_at`) is older than
 * Abandoned After, judged on the copy read now (a customer who came back has moved above the horizon).
 * Once per session (the seen memory), or once per idle period with Fire Again If Reabandoned; with Skip
 * Customers Who Booked not for a customer who booked since starting the draft; with the cooldown not
 * twice for one customer within it. Event time: `updated_at` + the delay.
 */
import type { IDataObject } from 'n8n-workflow';

import { draftContact, hasEmail, isCompleted } from '../../shared/output/session';
import type { BookingSession } from '../../shared/types';
import { timestampMs } from '../../shared/utils';
import type { Reminder } from '../state/customers';
import { customerCodes } from '../state/customers';
import type { TriggerEvent } from '../model/event';
import { sortTime } from '../model/pages';
import type { TriggerSettings } from '../model/settings';
import { keepsReminded, keepsSeen, skipsBooked } from '../model/settings';
import type { Candidate } from '../windows/window';
import { sessionItem } from '../output/itemFields';
import { contactRank, ranked, SAMPLES_PER_EVENT } from '../output/samples';
import type { Decision, JudgeContext } from './context';
import type { EventKind } from './kind';

/** `session.abandoned:<session id>:<updated_at ms>`: one idle period of one session. */
export function abandonedEventId(sessionId: string, activity: number): string {
	return `session.abandoned:${sessionId}:${activity}`;
}

/** Whether the customer of this draft is left out: no e-mail, booked since, or reminded within the cooldown. */
function skipReason(session: BookingSession, codes: string[], candidate: Candidate, context: JudgeContext): Decision['skipped'] {
	const { settings, memory } = context;
	if (settings.onlyWithEmail === true && !hasEmail(draftContact(session))) return 'noEmail';
	// A booking from before the draft does not count (a returning customer starting a new one).
	if (skipsBooked(settings) && codes.length > 0 && context.bookedSince(codes, timestampMs(session.created_at) ?? candidate.time)) return 'booked';
	const cooldown = settings.customerCooldownMs ?? 0;
	const last = cooldown > 0 && codes.length > 0 ? memory.lastReminder(codes) : undefined;
	return last && candidate.at - last.at < cooldown ? 'cooldown' : undefined;
}

function judge(candidate: Candidate, context: JudgeContext): Decision {
	const { settings, memory } = context;
	const { id, item } = candidate;
	if (isCompleted(item)) return { candidate };
	const seenBefore = memory.hasSeen(id, candidate.at);
	const markSeen = (): Pick<Decision, 'seen'> => {
		if (!keepsSeen(settings)) return {};
		memory.see(id, candidate.at);
		return { seen: { id, at: candidate.at } };
	};
	if (!settings.events.sessionAbandoned || (seenBefore && !settings.fireAgainIfReabandoned)) return { candidate, ...markSeen() };
	const session = item as BookingSession;
	const codes = memory.identity(customerCodes(draftContact(session)));
	// Not reported, so not seen: judged again if it is abandoned again.
	const skipped = skipReason(session, codes, candidate, context);
	if (skipped) return { candidate, skipped };
	const reminder: Reminder | undefined =
		keepsReminded(settings) && codes.length > 0 ? { codes: codes.slice(0, 2), sessionId: id, activity: candidate.time, at: candidate.at } : undefined;
	if (reminder) memory.remind(reminder);
	return {
		candidate,
		event: { event: 'session.abandoned', eventId: abandonedEventId(id, candidate.time), at: candidate.at, session },
		...markSeen(),
		...(reminder ? { reminded: reminder } : {}),
	};
}

/** Open sessions with a timestamp: with contact details first, then those idle for the delay, then the newest. */
function samples(first: { sessions?: BookingSession[]; now: number }, settings: TriggerSettings): TriggerEvent[] {
	const delay = settings.abandonedAfterMs;
	const open = (first.sessions ?? []).filter((session) => !isCompleted(session) && sortTime('sessions', session) !== null);
	const activity = (session: BookingSession) => sortTime('sessions', session) as number;
	const isIdle = (session: BookingSession) => (activity(session) + delay <= first.now ? 1 : 0);
	return ranked(open, [contactRank, isIdle])
		.slice(0, SAMPLES_PER_EVENT)
		.map((session) => ({ event: 'session.abandoned', eventId: abandonedEventId(session.id, activity(session)), at: activity(session) + delay, session }));
}

export const sessionAbandoned: EventKind = {
	value: 'sessionAbandoned',
	name: 'session.abandoned',
	letter: 'a',
	option: {
		name: 'Session Abandoned',
		description: 'A customer started a booking and left it unfinished for the "Abandoned After" time',
		startsFor: 'each customer who leaves a booking unfinished',
		subtitle: 'Abandoned after {abandonedAfterMinutes} min',
	},
	windows: (settings) => ['horizon', 'held', ...(skipsBooked(settings) ? (['requests'] as const) : [])],
	judges: ['horizon', 'held'],
	judge,
	item: (event, options, formNames): IDataObject => sessionItem(event, options, formNames),
	samples,
};
