/**
 * The agency bench's oracle (harness/agency/oracle.ts): what a client's history calls for, judged on
 * small hand-made histories — each rule of the trigger page it encodes, and that it finds what is
 * missing, extra, twice or forbidden.
 */
import { deliveredOf, EDGE_MS, expectations, judgeClient, type DeliveredItem, type OracleSettings } from '../../harness/agency/oracle';
import type { Happened } from '../../harness/agency/protocol';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 27, 12);
const settings: OracleSettings = { abandonedAfterMs: 30 * MIN, watchNewest: 500, cycle: 1 };
const ann = { email: 'ann@example.com', phone: '+15125550101' };
const bob = { email: 'bob@example.com', phone: '+15125550102' };

const abandoned = (session: string): DeliveredItem => ({ event: 'session.abandoned', subject: session, eventId: `session.abandoned:${session}:1` });
const created = (request: string): DeliveredItem => ({ event: 'request.created', subject: request, eventId: `request.created:${request}` });
const completed = (session: string): DeliveredItem => ({ event: 'session.completed', subject: session, eventId: `session.completed:${session}` });

describe('Session Abandoned', () => {
	const draft: Happened = { op: 'draft', sessionId: 's1', at: T0, contact: ann };

	test('a draft left for the delay must fire once when a poll starts after it (and the 5 s room)', () => {
		const polls = [T0 + 31 * MIN];
		expect(expectations([draft], polls, settings).get('session.abandoned s1')).toBe('must');
		expect(judgeClient([draft], polls, [abandoned('s1')], settings).violations).toEqual([]);
		expect(judgeClient([draft], polls, [], settings).violations).toEqual(['missing: session.abandoned s1']);
		expect(judgeClient([draft], polls, [abandoned('s1'), abandoned('s1')], settings).violations).toEqual([expect.stringMatching(/^twice: session.abandoned s1/)]);
	});

	test('too close to the delay to call: either is right', () => {
		const polls = [T0 + 30 * MIN + EDGE_MS - 1];
		expect(expectations([draft], polls, settings).get('session.abandoned s1')).toBe('may');
		expect(judgeClient([draft], polls, [], settings).violations).toEqual([]);
		expect(judgeClient([draft], polls, [abandoned('s1')], settings).violations).toEqual([]);
	});

	test('completed before the delay: must not fire; the completion and its request must', () => {
		const history: Happened[] = [draft, { op: 'complete', sessionId: 's1', requestId: 'r1', at: T0 + 10 * MIN }];
		const verdict = judgeClient(history, [T0 + 11 * MIN, T0 + 40 * MIN], [completed('s1'), created('r1'), abandoned('s1')], settings);
		expect(verdict.violations).toEqual(['must not fire: session.abandoned s1']);
		expect(verdict.must).toBe(2);
	});

	test('Skip Customers Who Booked: a booking by the same phone after the draft started, before the delay', () => {
		const history: Happened[] = [draft, { op: 'bookWithoutDraft', sessionId: 's2', requestId: 'r2', at: T0 + 11 * MIN, contact: { email: 'other@example.com', phone: ann.phone } }];
		expect(expectations(history, [T0 + 40 * MIN], settings).get('session.abandoned s1')).toBe('mustNot');
	});

	test('a booking from before the draft does not count, nor another customer’s', () => {
		const history: Happened[] = [
			{ op: 'request', requestId: 'r0', at: T0 - MIN, contact: ann },
			draft,
			{ op: 'request', requestId: 'r3', at: T0 + 5 * MIN, contact: bob },
		];
		expect(expectations(history, [T0 + 40 * MIN], settings).get('session.abandoned s1')).toBe('must');
	});

	test('a booking after the delay leaves the reminder to the poll: may', () => {
		const history: Happened[] = [draft, { op: 'request', requestId: 'r4', at: T0 + 45 * MIN, contact: { email: ann.email.toUpperCase(), phone: '+1 999 555 0000' } }];
		expect(expectations(history, [T0 + 50 * MIN], settings).get('session.abandoned s1')).toBe('may');
	});
});

describe('Session Completed, New Request, Request Updated', () => {
	test('each booking is one completion and one new request; what happened at the last poll may wait', () => {
		const history: Happened[] = [
			{ op: 'bookWithoutDraft', sessionId: 's5', requestId: 'r5', at: T0, contact: bob },
			{ op: 'request', requestId: 'r6', at: T0 + 20 * MIN, contact: ann },
		];
		const expected = expectations(history, [T0 + MIN, T0 + 20 * MIN], settings);
		expect(Object.fromEntries(expected)).toEqual({ 'session.completed s5': 'must', 'request.created r5': 'must', 'request.created r6': 'may' });
	});

	test('a change must be reported when the request stays watched and every watched page was read since', () => {
		const change: Happened = { op: 'changeRequest', requestId: 'r7', at: T0, rank: 300 };
		const large = { ...settings, watchNewest: 5_000, cycle: 5 };
		const polls = [1, 12, 23, 34, 45].map((minutes) => T0 + minutes * MIN);
		expect(expectations([change], polls, large).get('request.updated r7')).toBe('must');
		expect(expectations([change], polls.slice(0, 4), large).get('request.updated r7')).toBe('may');
		// 250 requests made after it push it out of the newest 500
		const pushed: Happened[] = [change, ...Array.from({ length: 250 }, (_, i): Happened => ({ op: 'request', requestId: `n${i}`, at: T0 + MIN + i, contact: bob }))];
		expect(expectations(pushed, polls, settings).get('request.updated r7')).toBe('may');
	});

	test('an item about nothing that happened is unexpected', () => {
		const verdict = judgeClient([], [T0], [created('seeded-request')], settings);
		expect(verdict.violations).toEqual(['unexpected: request.created seeded-request']);
	});

	test('items are matched by their event and subject: session_id for sessions, id for requests', () => {
		expect(deliveredOf({ event: 'session.completed', session_id: 's1', id: 'x', event_id: 'e1' })).toEqual({ event: 'session.completed', subject: 's1', eventId: 'e1' });
		expect(deliveredOf({ event: 'request.updated', id: 'r1', event_id: 'e2' })).toEqual({ event: 'request.updated', subject: 'r1', eventId: 'e2' });
	});
});
