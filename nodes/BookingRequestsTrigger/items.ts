/**
 * The trigger's output items: one item per event, oldest first. What an item looks like is decided
 * here and only here (docs/booking-requests-trigger.md).
 *
 * Interface with the engine (diff / fetch / poll):
 * - the engine produces `TriggerEvent`s; for a `session.completed` event it attaches the session's
 *   booking request as `event.request` whenever `needsRequest(session, options)` says so (null when
 *   the API answered 404), read within the poll budget;
 * - `toItems(ctx, events, options, { deadline })` applies "Only Sessions With an E-mail", reads form
 *   names (formNames.ts: at most one call, none when cached and fresh; within `deadline`, else
 *   `form_name: null`) and shapes the items with `shapeItems`, a pure function of (events, options,
 *   form names) that is unit-tested without n8n.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { simplifyRequest } from '../shared/output/request';
import type { DraftContact } from '../shared/output/session';
import { draftContact, hasEmail, requestContact, sessionFields } from '../shared/output/session';
import type { ApiContext } from '../shared/transport/request';
import type { BookingRequest, BookingSession } from '../shared/types';
import { timestampMs } from '../shared/utils';
import type { TriggerEvent } from './diff';
import type { FormNames } from './formNames';
import { formNamesFor } from './formNames';

export interface ItemOptions {
	/** "Simplify" (default on): one flat item per event; off: the raw API object plus `event`, `event_id`. */
	simplify: boolean;
	/** "Include Booking Request": completed sessions carry `request` (simplified or raw, following Simplify; null on 404). */
	includeRequest: boolean;
	/** "Only Sessions With an E-mail": abandoned sessions without an e-mail are left out. */
	onlyWithEmail: boolean;
	/** The poll's time on the API server's clock (ms): `idle_minutes` counts up to it. */
	now: number;
}

/**
 * Whether a completed session's booking request must be read for its item: always with "Include
 * Booking Request", and with Simplify when the draft has no e-mail (a booking made without a saved
 * draft), so that the flat item still has the customer's contact. How they are read: fetch.ts (request
 * list pages for many, requestLookup.ts; one Get request each for a few).
 */
export function needsRequest(session: BookingSession, options: Pick<ItemOptions, 'simplify' | 'includeRequest'>): boolean {
	return options.includeRequest || (options.simplify && !hasEmail(draftContact(session)));
}

/** "Only Sessions With an E-mail" applies to abandoned sessions only. */
export function keepsEvent(event: TriggerEvent, options: Pick<ItemOptions, 'onlyWithEmail'>): boolean {
	if (!options.onlyWithEmail || event.event !== 'session.abandoned' || !event.session) return true;
	return hasEmail(draftContact(event.session));
}

/** The `Date` header's resolution (RFC 9110: whole seconds). */
const DATE_HEADER_RESOLUTION_MS = 1000;

/**
 * Whole minutes from the session's last activity to `now`; null when the session has no timestamp.
 * `now` normally comes from the server's `Date` header, which is truncated to the second, so the count
 * runs to the end of that second: a session idle 31 min 0.4 s reads 31, not 30.
 */
export function idleMinutes(session: BookingSession, now: number): number | null {
	const activity = timestampMs(session.updated_at) ?? timestampMs(session.created_at);
	if (activity === null) return null;
	return Math.max(0, Math.floor((now + DATE_HEADER_RESOLUTION_MS - 1 - activity) / 60_000));
}

/** The object with `form_name` placed right after `form_id`. */
function withFormName(fields: IDataObject, formNames: FormNames): IDataObject {
	const out: IDataObject = {};
	const formId = typeof fields.form_id === 'string' ? fields.form_id : undefined;
	for (const [key, value] of Object.entries(fields)) {
		out[key] = value;
		if (key === 'form_id') out.form_name = formId === undefined ? null : (formNames.get(formId) ?? null);
	}
	return out;
}

/** Draft contact, completed per field from the request when the draft lacks it. */
function contactFor(session: BookingSession, request: BookingRequest | null | undefined): DraftContact {
	const draft = draftContact(session);
	if (!request) return draft;
	const fromRequest = requestContact(request);
	return {
		email: draft.email ?? fromRequest.email,
		first_name: draft.first_name ?? fromRequest.first_name,
		last_name: draft.last_name ?? fromRequest.last_name,
		phone: draft.phone ?? fromRequest.phone,
	};
}

/** `recovered`, `recovered_from_session_id`, `minutes_to_recover` (nulls when not recovered). */
function recoveryFields(event: TriggerEvent): IDataObject {
	const recovered = event.recovered === true;
	return {
		recovered,
		recovered_from_session_id: recovered ? (event.recoveredFromSessionId ?? null) : null,
		minutes_to_recover: recovered ? (event.minutesToRecover ?? null) : null,
	};
}

function simpleSessionItem(event: TriggerEvent, session: BookingSession, options: ItemOptions, formNames: FormNames): IDataObject {
	const completed = event.event === 'session.completed';
	const json: IDataObject = {
		event: event.event,
		event_id: event.eventId,
		session_id: session.id,
		...withFormName(sessionFields(session, contactFor(session, completed ? event.request : undefined)), formNames),
		idle_minutes: idleMinutes(session, options.now),
	};
	if (completed) {
		Object.assign(json, recoveryFields(event));
		if (options.includeRequest) json.request = event.request ? simplifyRequest(event.request) : null;
	}
	return json;
}

function rawSessionItem(event: TriggerEvent, session: BookingSession, options: ItemOptions): IDataObject {
	const json: IDataObject = { ...session, event: event.event, event_id: event.eventId };
	if (event.event === 'session.completed') {
		Object.assign(json, recoveryFields(event));
		if (options.includeRequest) json.request = (event.request as IDataObject | undefined) ?? null;
	}
	return json;
}

/** The items of `events` (already filtered and with their requests attached). Pure. */
export function shapeItems(events: TriggerEvent[], options: ItemOptions, formNames: FormNames): INodeExecutionData[] {
	const items: INodeExecutionData[] = [];
	for (const event of events) {
		if (!keepsEvent(event, options)) continue;
		if (event.session) {
			items.push({
				json: options.simplify ? simpleSessionItem(event, event.session, options, formNames) : rawSessionItem(event, event.session, options),
			});
		} else if (event.request) {
			const json: IDataObject = options.simplify
				? { event: event.event, event_id: event.eventId, ...withFormName(simplifyRequest(event.request), formNames) }
				: { ...event.request, event: event.event, event_id: event.eventId };
			if (event.event === 'request.updated') Object.assign(json, { changed_fields: event.changedFields ?? [], previous: event.previous ?? null });
			items.push({ json });
		}
	}
	return items;
}

/** Distinct form ids of the events that become items. */
export function formIdsOf(events: TriggerEvent[]): string[] {
	const ids = new Set<string>();
	for (const event of events) {
		const formId = (event.session ?? event.request)?.form_id;
		if (typeof formId === 'string' && formId !== '') ids.add(formId);
	}
	return [...ids];
}

/** Builds the output items. Simplified: at most one call for form names (formNames.ts), none when cached. */
export async function toItems(
	ctx: ApiContext,
	events: TriggerEvent[],
	options: ItemOptions,
	io: { deadline?: number } = {},
): Promise<INodeExecutionData[]> {
	const kept = events.filter((event) => keepsEvent(event, options));
	const formNames: FormNames = options.simplify && kept.length > 0 ? await formNamesFor(ctx, formIdsOf(kept), io) : new Map();
	return shapeItems(kept, options, formNames);
}
