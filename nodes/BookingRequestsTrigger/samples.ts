/**
 * "Fetch Test Event" (manual mode): up to SAMPLES_PER_EVENT recent examples of each selected event
 * from the first page of each list, those with the customer's contact details first, shaped exactly
 * like real events (items.ts shapes them as the active trigger does). Pure; the trigger's state is
 * neither read nor written.
 */

import { draftContact, hasEmail } from '../shared/output/session';
import type { BookingRequest, BookingSession } from '../shared/types';
import { timestampMs } from '../shared/utils';
import type { TriggerEvent, TriggerSettings } from './diff';
import { activityOf, requestSortTime } from './diff';
import { hasRequest } from './windows';

export const SAMPLES_PER_EVENT = 3;

/** 2: an e-mail; 1: a name or phone only; 0: no contact details in the draft. */
function contactRank(session: BookingSession): number {
	const contact = draftContact(session);
	if (hasEmail(contact)) return 2;
	return contact.first_name || contact.last_name || contact.phone ? 1 : 0;
}

/** Stable order: by the given keys, then as the list had them (newest first). */
function ranked<T>(items: T[], keys: Array<(item: T) => number>): T[] {
	return items
		.map((item, index) => ({ item, index }))
		.sort((a, b) => {
			for (const key of keys) {
				const diff = key(b.item) - key(a.item);
				if (diff !== 0) return diff;
			}
			return a.index - b.index;
		})
		.map(({ item }) => item);
}

export function pickSamples(
	sessions: BookingSession[] | undefined,
	requests: BookingRequest[] | undefined,
	now: number,
	settings: TriggerSettings,
): TriggerEvent[] {
	const samples: TriggerEvent[] = [];
	const delay = settings.abandonedAfterMs;
	if (settings.events.sessionAbandoned && sessions) {
		// Open sessions with a timestamp: with contact details first, then those idle for the delay
		// (really abandoned), then the newest. A session still active stands in only when too few are idle.
		const open = sessions.filter((session) => !hasRequest(session) && activityOf(session) !== null);
		const isIdle = (session: BookingSession) => ((activityOf(session) as number) + delay <= now ? 1 : 0);
		for (const sample of ranked(open, [contactRank, isIdle]).slice(0, SAMPLES_PER_EVENT)) {
			const at = activityOf(sample) as number;
			samples.push({ event: 'session.abandoned', eventId: `session.abandoned:${sample.id}:${at}`, at: at + delay, session: sample });
		}
	}
	if (settings.events.sessionCompleted && sessions) {
		for (const sample of ranked(sessions.filter(hasRequest), [contactRank]).slice(0, SAMPLES_PER_EVENT)) {
			samples.push({
				event: 'session.completed',
				eventId: `session.completed:${sample.id}:${sample.request_id}`,
				at: activityOf(sample) ?? now,
				session: sample,
				recovered: false,
			});
		}
	}
	if (settings.events.requestCreated && requests) {
		const dated = requests.filter((request) => requestSortTime(request) !== null);
		for (const sample of (dated.length > 0 ? dated : requests).slice(0, SAMPLES_PER_EVENT)) {
			samples.push({ event: 'request.created', eventId: `request.created:${sample.id}`, at: requestSortTime(sample) ?? now, request: sample });
		}
	}
	if (settings.events.requestUpdated && requests) {
		// The requests changed last (by `updated_at`); what changed is not known from one read.
		const changed = requests
			.filter((request) => timestampMs(request.updated_at) !== null)
			.sort((a, b) => (timestampMs(b.updated_at) as number) - (timestampMs(a.updated_at) as number));
		for (const sample of (changed.length > 0 ? changed : requests).slice(0, SAMPLES_PER_EVENT)) {
			const at = timestampMs(sample.updated_at);
			samples.push({
				event: 'request.updated',
				eventId: `request.updated:${sample.id}:${at ?? 'sample'}`,
				at: at ?? now,
				request: sample,
				changedFields: [],
				previous: null,
			});
		}
	}
	return samples;
}
