// choices.values = 'open': the contract shows no allowed values for a request's `status` and
// `lead_status`, a preferred time's `slot`, an intake response's `scope` and `type`, or a profile's
// `source`, and says a draft's shape "may change". Some seeded rows get values and keys no document
// names (chosen by position, so the seed's own draws do not move): a client must pass them through.

import type { Workspace } from './types';

export const OPEN_STATUSES = ['in_review', 'Complete', 'archived', 'no_show'];
export const OPEN_LEAD_STATUSES = ['unqualified', 'Qualified', 'nurturing', 'spam'];
export const OPEN_SLOTS = ['late_evening', 'ANY', '07:00-09:00'];
export const OPEN_INTAKE_TYPES = ['date', 'file', 'rating'];
export const OPEN_INTAKE_SCOPES = ['business_profile', 'Form'];
export const OPEN_PROFILE_SOURCES = ['google_business', 'api', 'Import (CSV)'];
/** Draft keys no document names (the widget's shape moved on). */
export const OPEN_DRAFT_KEYS = { promoCode: 'SPRING10', widgetVersion: 3 };

const nth = <T>(values: T[], i: number): T => values[i % values.length];

export function openValues(ws: Workspace): void {
	ws.requests.forEach((request, i) => {
		if (i % 9 === 4) request.status = nth(OPEN_STATUSES, i);
		if (i % 11 === 6) request.lead_status = nth(OPEN_LEAD_STATUSES, i);
		request.preferred_times.forEach((time, j) => {
			if ((i + j) % 13 === 0) time.slot = nth(OPEN_SLOTS, i + j);
		});
		request.intake_responses.forEach((response, j) => {
			if ((i + j) % 17 === 5) response.type = nth(OPEN_INTAKE_TYPES, i + j);
			if ((i + j) % 19 === 7) response.scope = nth(OPEN_INTAKE_SCOPES, i + j);
		});
	});
	ws.profiles.forEach((profile, i) => {
		if (i % 3 === 2) profile.source = nth(OPEN_PROFILE_SOURCES, i);
	});
	ws.sessions.forEach((session, i) => {
		if (i % 10 === 3 && Object.keys(session.data).length > 0) Object.assign(session.data, OPEN_DRAFT_KEYS);
	});
}
