/**
 * Session Abandoned: a session with no booking request whose last activity (`updated_at`) is older than
 * Abandoned After, judged on the copy read now (a customer who came back has moved above the horizon).
 * Once per session (the seen memory), or once per idle period with Fire Again If Reabandoned; with Skip
 * Customers Who Booked (skipBooked.ts) not for a customer who booked since starting the draft; with the
 * cooldown not twice for one customer within it.
 *
 * The delay, in one place: "Abandoned After (Minutes)" (`ABANDONED_AFTER`, read by `read`) is the offset
 * of the windows this event judges (`offset`): the horizon reads the sessions whose last activity plus it
 * has passed (windows/horizon.ts), and their event time is `updated_at` + the delay.
 */
import type { INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { draftContact, hasEmail, isCompleted } from '../../shared/output/session';
import type { BookingSession } from '../../shared/types';
import type { Reminder } from '../state/customers';
import { customerCodes } from '../state/customers';
import type { EventBase } from '../model/event';
import { sortTime } from '../model/pages';
import type { SettingsOf } from '../model/settings';
import type { SkipBookedSettings } from './skipBooked';
import { bookedSinceDraft, readSkipBooked, SKIP_IF_BOOKED, skipsBooked } from './skipBooked';
import type { Candidate } from '../windows/window';
import { SESSION_ITEM_FIELDS, sessionItem } from '../output/itemFields';
import { contactRank, ranked, SAMPLES_PER_EVENT } from '../output/samples';
import type { Decision, JudgeContext } from './context';
import type { EventKind, ParameterInput, SettingsPart } from './kind';

/** Session Abandoned's options (and Skip Customers Who Booked's, which it shows). */
export interface AbandonedSettings extends SkipBookedSettings {
	/** "Abandoned After (Minutes)", in ms. */
	abandonedAfterMs: number;
	fireAgainIfReabandoned: boolean;
	/** "Remind a Customer At Most Once Every (Days)", in ms: 0 or absent = off. */
	customerCooldownMs?: number;
	/** "Only Sessions With an E-Mail" (`leftOutWithoutEmail`). */
	onlyWithEmail?: boolean;
}

type Settings = SettingsOf<AbandonedSettings>;

/** Sessions seen abandoned are remembered whenever a session event is on (once per session, `recovered`). */
function keepsSeen(settings: Settings): boolean {
	return settings.events.sessionAbandoned === true || settings.events.sessionCompleted === true;
}

export interface SessionAbandonedEvent extends EventBase {
	event: 'session.abandoned';
	session: BookingSession;
}

/** `session.abandoned:<session id>:<updated_at ms>`: one idle period of one session. */
export function abandonedEventId(sessionId: string, activity: number): string {
	return `session.abandoned:${sessionId}:${activity}`;
}

/**
 * "Only Sessions With an E-Mail": an idle session without an e-mail is no Session Abandoned, so it is no
 * reminder either (no cooldown starts, a later completion is no recovery from it). The one place of the
 * rule: the judge and the samples apply it, the items do not filter again.
 */
function leftOutWithoutEmail(session: BookingSession, settings: Settings): boolean {
	return settings.onlyWithEmail === true && !hasEmail(draftContact(session));
}

/** Whether the customer of this draft is left out: no e-mail, booked since, or reminded within the cooldown. */
function skipReason(session: BookingSession, codes: string[], candidate: Candidate, context: JudgeContext<AbandonedSettings>): Decision['skipped'] {
	const { settings, memory } = context;
	if (leftOutWithoutEmail(session, settings)) return 'noEmail';
	if (skipsBooked(settings) && bookedSinceDraft(session, codes, context, candidate.time)) return 'booked';
	const cooldown = settings.customerCooldownMs ?? 0;
	const last = cooldown > 0 && codes.length > 0 ? memory.lastReminder(codes) : undefined;
	return last && candidate.at - last.at < cooldown ? 'cooldown' : undefined;
}

function judge(candidate: Candidate, context: JudgeContext<AbandonedSettings>): Decision<SessionAbandonedEvent> {
	const { settings, memory } = context;
	const { id, item } = candidate;
	if (isCompleted(item)) return { candidate };
	const seenBefore = memory.hasSeen(id, candidate.at);
	const markSeen = (): Pick<Decision<SessionAbandonedEvent>, 'seen'> => {
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
	// Every customer reported is remembered, whether the cooldown or `recovered` reads it or not: adding
	// Session Completed or the cooldown later then knows who was reminded.
	const reminder: Reminder | undefined =
		codes.length > 0 ? { codes: codes.slice(0, 2), sessionId: id, activity: candidate.time, at: candidate.at } : undefined;
	if (reminder) memory.remind(reminder);
	return {
		candidate,
		event: { event: 'session.abandoned', eventId: abandonedEventId(id, candidate.time), at: candidate.at, session },
		...markSeen(),
		...(reminder ? { reminded: reminder } : {}),
	};
}

/** Open sessions with a timestamp (with an e-mail, when asked): with contact details first, then those idle for the delay, then the newest. */
function samples(first: { sessions?: BookingSession[]; now: number }, settings: Settings): SessionAbandonedEvent[] {
	const delay = settings.abandonedAfterMs;
	const open = (first.sessions ?? []).filter((session) => !isCompleted(session) && sortTime('sessions', session) !== null && !leftOutWithoutEmail(session, settings));
	const activity = (session: BookingSession) => sortTime('sessions', session) as number;
	const isIdle = (session: BookingSession) => (activity(session) + delay <= first.now ? 1 : 0);
	return ranked(open, [contactRank, isIdle])
		.slice(0, SAMPLES_PER_EVENT)
		.map((session): SessionAbandonedEvent => ({ event: 'session.abandoned', eventId: abandonedEventId(session.id, activity(session)), at: activity(session) + delay, session }));
}

/** "Abandoned After (Minutes)": the delay of the horizon, so Session Completed shows it too (`recovered`). */
export const ABANDONED_AFTER: INodeProperties = {
	displayName: 'Abandoned After (Minutes)',
	name: 'abandonedAfterMinutes',
	type: 'number',
	default: 30,
	typeOptions: { minValue: 1, maxValue: 10080 },
	description:
		'How long a customer must be inactive before an unfinished booking counts as abandoned. Customers still busy are remembered and reported once the time has passed.',
};

const OPTIONS: INodeProperties[] = [
	{
		displayName: 'Fire Again If Reabandoned',
		name: 'fireAgainIfReabandoned',
		type: 'boolean',
		default: false,
		description: 'Whether a customer reported as abandoned is reported again when they come back, continue and leave again. Off: once per session.',
	},
	{
		displayName: 'Only Sessions With an E-Mail',
		name: 'onlyWithEmail',
		type: 'boolean',
		default: false,
		description:
			'Whether to leave out abandoned sessions without an e-mail address (about 1 in 5: the widget can save a draft before or without the e-mail). Turn on for reminder e-mails; other events are not filtered.',
	},
	{
		displayName: 'Remind a Customer At Most Once Every (Days)',
		name: 'customerCooldownDays',
		type: 'number',
		default: 0,
		typeOptions: { minValue: 0, maxValue: 30 },
		description:
			'After a "Session Abandoned" for a customer (same e-mail or phone), no other one for that customer for this many days, whatever the session or form. 0: off.',
	},
];

/** Abandoned After, Skip Customers Who Booked, the cooldown and the options, checked. */
function read(input: ParameterInput): SettingsPart<AbandonedSettings> {
	const { node, options, events } = input;
	const minutes = Number(input.value('abandonedAfterMinutes', 30));
	if (!Number.isFinite(minutes) || minutes < 1) {
		throw new NodeOperationError(node, `"Abandoned After (Minutes)" must be at least 1, got ${String(minutes)}`);
	}
	const cooldownDays = Number(options.customerCooldownDays ?? 0);
	if (!Number.isFinite(cooldownDays) || cooldownDays < 0 || cooldownDays > 30) {
		throw new NodeOperationError(node, `"Remind a Customer At Most Once Every (Days)" must be between 0 and 30, got ${String(options.customerCooldownDays)}`);
	}
	return {
		settings: {
			abandonedAfterMs: Math.round(minutes * 60_000),
			...readSkipBooked(input),
			customerCooldownMs: Math.round(cooldownDays * 86_400_000),
			fireAgainIfReabandoned: options.fireAgainIfReabandoned === true,
			onlyWithEmail: options.onlyWithEmail === true && events.sessionAbandoned,
		},
	};
}

export const sessionAbandoned: EventKind<SessionAbandonedEvent, AbandonedSettings> = {
	value: 'sessionAbandoned',
	name: 'session.abandoned',
	letter: 'a',
	words: {
		name: 'Session Abandoned',
		description: 'A customer started a booking and left it unfinished for the "Abandoned After" time',
		when: 'a customer leaves a booking unfinished',
		startsFor: 'each customer who leaves a booking unfinished',
		subtitle: 'Abandoned after {abandonedAfterMinutes} min',
		fields: SESSION_ITEM_FIELDS,
	},
	parameters: [ABANDONED_AFTER, ...SKIP_IF_BOOKED],
	options: OPTIONS,
	read,
	windows: (settings) => ['horizon', 'held', ...(skipsBooked(settings) ? (['requests'] as const) : [])],
	offset: (settings) => settings.abandonedAfterMs,
	judges: ['horizon', 'held'],
	judge,
	skips: ['booked', 'cooldown', 'noEmail'],
	item: (event, options, formNames) => sessionItem(event, options, formNames),
	samples,
};
