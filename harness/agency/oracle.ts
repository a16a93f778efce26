/**
 * Judges what one client's trigger delivered against the sandbox's own history of what happened in
 * the workspace (the answers of protocol.ts `Happened`, with the sandbox clock's times) and the times
 * the polls started — never against the trigger's state. The rules are the trigger page's
 * (docs/booking-requests-trigger.md), for the activity the bench plays (traffic.ts), with the room the
 * docs leave (rows visible up to 5 s late, Request Updated's older pages read in turn):
 * - Session Abandoned: a draft started during the run MUST fire once when, at the start of some poll,
 *   it had been idle for the delay plus that room, was never completed and its customer (same e-mail
 *   or phone) made no booking at or after the draft's start; it MUST NOT fire when it was completed,
 *   or its customer booked, before the delay was up; otherwise (too close to call) it MAY fire once.
 * - Session Completed: every completion and booking without a draft, once.
 * - New Request: every request made during the run, once.
 * - Request Updated: every lead status change, once — a MUST when the request is still among the
 *   newest Watch the Newest at the end and `cycle` polls started after the change (every watched page
 *   read), else MAY.
 * Anything else delivered, or anything delivered twice, is a violation.
 */
import type { Contact, Happened } from './protocol';

/** README: rows are visible within 5 s of their timestamp; the `Date` header has 1 s resolution. */
export const EDGE_MS = 6_000;

export interface OracleSettings {
	abandonedAfterMs: number;
	watchNewest: number;
	/** Polls that read every watched page (docs: "every watched request checked"). */
	cycle: number;
}

export interface DeliveredItem {
	event: string;
	/** `session_id` of session events, `id` of request events. */
	subject: string;
	eventId: string;
}

export interface Verdict {
	/** Events that had to be delivered once. */
	must: number;
	/** Events that could be delivered or not. */
	may: number;
	delivered: number;
	violations: string[];
}

const keyOf = (event: string, subject: string) => `${event} ${subject}`;

function customerKeys(contact: Contact): string[] {
	return [`e:${contact.email.trim().toLowerCase()}`, `p:${contact.phone.replace(/\D/g, '')}`];
}

/** The subject of an item, as the trigger page names it: the session's id or the request's. */
export function deliveredOf(item: Record<string, unknown>): DeliveredItem {
	const event = String(item.event);
	const subject = event.startsWith('session.') ? item.session_id : item.id;
	return { event, subject: String(subject), eventId: String(item.event_id) };
}

type Expectation = 'must' | 'may' | 'mustNot';

/** Expectations for the drafts: one Session Abandoned each, or none. */
function draftExpectations(history: Happened[], pollStarts: number[], settings: OracleSettings): Map<string, Expectation> {
	const completedAt = new Map<string, number>();
	const bookings: Array<{ at: number; keys: string[] }> = [];
	for (const entry of history) {
		if (entry.op === 'complete') completedAt.set(entry.sessionId, entry.at);
		if (entry.op === 'bookWithoutDraft' || entry.op === 'request') bookings.push({ at: entry.at, keys: customerKeys(entry.contact) });
	}
	const draftContacts = new Map(history.flatMap((entry) => (entry.op === 'draft' ? [[entry.sessionId, entry.contact] as const] : [])));
	for (const entry of history) {
		// a completed draft is the customer's booking too
		if (entry.op === 'complete' && draftContacts.has(entry.sessionId)) bookings.push({ at: entry.at, keys: customerKeys(draftContacts.get(entry.sessionId) as Contact) });
	}
	const out = new Map<string, Expectation>();
	for (const entry of history) {
		if (entry.op !== 'draft') continue;
		const keys = new Set(customerKeys(entry.contact));
		const booked = bookings.filter((booking) => booking.at >= entry.at && booking.keys.some((key) => keys.has(key))).map((booking) => booking.at);
		const ended = Math.min(completedAt.get(entry.sessionId) ?? Infinity, ...booked);
		const due = entry.at + settings.abandonedAfterMs;
		if (ended < due - EDGE_MS) out.set(entry.sessionId, 'mustNot');
		else if (ended === Infinity && pollStarts.some((start) => start >= due + EDGE_MS)) out.set(entry.sessionId, 'must');
		else out.set(entry.sessionId, 'may');
	}
	return out;
}

/** Where each changed request stands at the end: its rank then (0: newest), from the requests made after the change. */
function changeExpectations(history: Happened[], pollStarts: number[], settings: OracleSettings): Map<string, Expectation> {
	const made = history.flatMap((entry) => ('requestId' in entry && entry.op !== 'changeRequest' ? [entry.at] : []));
	const out = new Map<string, Expectation>();
	for (const entry of history) {
		if (entry.op !== 'changeRequest') continue;
		const rankAtEnd = entry.rank + made.filter((at) => at > entry.at).length;
		const readAfter = pollStarts.filter((start) => start >= entry.at + EDGE_MS).length;
		out.set(entry.requestId, rankAtEnd < settings.watchNewest && readAfter >= settings.cycle ? 'must' : 'may');
	}
	return out;
}

/** Every event the history calls for, keyed `event subject`. */
export function expectations(history: Happened[], pollStarts: number[], settings: OracleSettings): Map<string, Expectation> {
	const lastStart = Math.max(...pollStarts);
	const out = new Map<string, Expectation>();
	const settled = (at: number): Expectation => (at <= lastStart - EDGE_MS ? 'must' : 'may');
	for (const [session, expectation] of draftExpectations(history, pollStarts, settings)) out.set(keyOf('session.abandoned', session), expectation);
	for (const [request, expectation] of changeExpectations(history, pollStarts, settings)) out.set(keyOf('request.updated', request), expectation);
	for (const entry of history) {
		if (entry.op === 'complete' || entry.op === 'bookWithoutDraft') out.set(keyOf('session.completed', entry.sessionId), settled(entry.at));
		if (entry.op === 'complete' || entry.op === 'bookWithoutDraft' || entry.op === 'request') out.set(keyOf('request.created', entry.requestId), settled(entry.at));
	}
	return out;
}

/** One client's run: `pollStarts` are the sandbox clock's times when each poll after publishing began. */
export function judgeClient(history: Happened[], pollStarts: number[], delivered: DeliveredItem[], settings: OracleSettings): Verdict {
	const expected = expectations(history, pollStarts, settings);
	const violations: string[] = [];
	const seen = new Set<string>();
	const eventIds = new Set<string>();
	for (const item of delivered) {
		const key = keyOf(item.event, item.subject);
		if (seen.has(key) || eventIds.has(item.eventId)) violations.push(`twice: ${key} (${item.eventId})`);
		seen.add(key);
		eventIds.add(item.eventId);
		const expectation = expected.get(key);
		if (expectation === undefined) violations.push(`unexpected: ${key}`);
		else if (expectation === 'mustNot') violations.push(`must not fire: ${key}`);
	}
	for (const [key, expectation] of expected) if (expectation === 'must' && !seen.has(key)) violations.push(`missing: ${key}`);
	const count = (kind: Expectation) => [...expected.values()].filter((expectation) => expectation === kind).length;
	return { must: count('must'), may: count('may'), delivered: delivered.length, violations };
}
