/**
 * "Fetch Test Event" (manual mode): the newest item of each selected kind from the first page of
 * each list, shaped exactly like a real event. Pure; the trigger's state is neither read nor written.
 */

import type { BookingRequest, BookingSession } from '../shared/types';
import type { TriggerEvent, TriggerSettings } from './diff';
import { activityOf, requestSortTime } from './diff';

function hasRequest(session: BookingSession): boolean {
	return typeof session.request_id === 'string' && session.request_id !== '';
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
		// The newest open session that is idle for the delay; failing that, the newest open one with a
		// timestamp (a sample of the shape even if nobody has abandoned a booking in the last page).
		const open = sessions.filter((session) => !hasRequest(session) && activityOf(session) !== null);
		const sample = open.find((session) => (activityOf(session) as number) + delay <= now) ?? open[0];
		if (sample) {
			const at = activityOf(sample) as number;
			samples.push({ event: 'session.abandoned', eventId: `session.abandoned:${sample.id}:${at}`, at: at + delay, session: sample });
		}
	}
	if (settings.events.sessionCompleted && sessions) {
		const sample = sessions.find(hasRequest);
		if (sample) {
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
		const sample = requests.find((request) => requestSortTime(request) !== null) ?? requests[0];
		if (sample) {
			samples.push({ event: 'request.created', eventId: `request.created:${sample.id}`, at: requestSortTime(sample) ?? now, request: sample });
		}
	}
	return samples;
}
