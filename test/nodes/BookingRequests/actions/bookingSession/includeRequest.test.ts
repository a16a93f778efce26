/**
 * Booking Session → Get Many with Include Booking Request in n8n-core against the sandbox (real
 * 1 request/s): the calls it makes (pages of the request list, Get request only for what they do not
 * bring), `request` and `minutes_to_book` on each completed session, null for a deleted request.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Harness } from '../../../../../harness/inProcessN8n';
import { simplifyRequest } from '../../../../../nodes/shared/output/request';
import type { BookingRequest as ApiRequest } from '../../../../../nodes/shared/types';
import { hashKey, sortRequests, sortSessions, type Sandbox } from '../../../../../sandbox';
import { withSandbox } from '../../../../support/sandboxSuite';
import { pacing429s, withoutOwn429s } from '../../../../support/pacing429';

let sandbox: Sandbox;
let harness: Harness;

withSandbox({ seed: 5, sizes: { requests: 240, sessions: 200, forms: 3 } }, (started, ready) => {
	sandbox = started;
	harness = ready;
});

/**
 * Moves the sandbox clock an hour on and returns a moment just before it, less the sandbox's commit lag:
 * Updated After that moment selects the activity that follows, and nothing of the seed or of the tests
 * before, wherever the sessions without updated_at are listed (first, by default) and however late a
 * write is committed.
 */
function activityFromNow(): string {
	sandbox.clock.advance(3_600_000);
	const lag = sandbox.choices().commitLagMs;
	return new Date(sandbox.clock.now() - (Array.isArray(lag) ? lag[1] : lag) - 1).toISOString();
}
/** minutes_to_book from the sandbox's own stamps: whole minutes from the session's start to its request. */
const minutesBetween = (session: { created_at: string | null }, request: { created_at: string }) =>
	Math.floor((Date.parse(request.created_at) - Date.parse(session.created_at as string)) / 60_000);

// The calls the API served: its own 429s left out (a stall of this busy process can bring a paced call
// in short of the last one's second); noPacing429s judges whether the pacing caused any.
const calls = () => withoutOwn429s(sandbox.log).map((entry) => `${entry.path}${entry.query.page ? `?page=${entry.query.page}` : ''}${entry.query.form_id ? `&form_id=${entry.query.form_id}` : ''}`);
const noPacing429s = () => expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const requestOf = (id: string) => asJson(sandbox.workspace().requests.find((request) => request.id === id)!) as unknown as ApiRequest;

describe('Include Booking Request', () => {
	test('a Limit of 10 completed sessions: 1 session page and 1 request page, no Get request', async () => {
		const expected = sortSessions(sandbox.workspace().sessions).filter((s) => s.request_id !== null).slice(0, 10);
		const result = await harness.runAction({ resource: 'bookingSession', operation: 'getAll', limit: 10, filters: { status: 'completed' }, options: { includeRequest: true } });
		expect(result.error).toBeUndefined();
		const items = result.items.map((item) => item.json);
		expect(items.map((item) => item.id)).toEqual(expected.map((s) => s.id));
		expect(items.map((item) => item.request)).toEqual(expected.map((s) => simplifyRequest(requestOf(s.request_id as string))));
		expect(calls()).toEqual(['/api/v1/abandoned-sessions?page=1', '/api/v1/requests?page=1']);
		noPacing429s();
	});

	test('Return All: the request pages that span the completed sessions, once each; every completed session gets its request', async () => {
		const sessions = sortSessions(sandbox.workspace().sessions);
		const completed = sessions.filter((s) => s.request_id !== null);
		const positions = completed.map((s) => sortRequests(sandbox.workspace().requests).findIndex((r) => r.id === s.request_id));
		const spanned = Math.floor(Math.max(...positions) / 100) - Math.floor(Math.min(...positions) / 100) + 1;
		const result = await harness.runAction({ resource: 'bookingSession', operation: 'getAll', returnAll: true, simplify: false, options: { includeRequest: true } });
		expect(result.error).toBeUndefined();
		const byId = new Map(result.items.map((item) => [item.json.id as string, item.json]));
		for (const session of completed) expect(byId.get(session.id)?.request).toEqual(requestOf(session.request_id as string));
		for (const session of sessions.filter((s) => s.request_id === null)) expect(byId.get(session.id)).not.toHaveProperty('request');
		const requestCalls = calls().filter((call) => call.startsWith('/api/v1/requests'));
		expect(requestCalls).toEqual(Array.from({ length: spanned }, (_, i) => `/api/v1/requests?page=${i + 1}`));
		noPacing429s();
	});

	test('minutes_to_book: first save (the session created_at) to the request created_at; null for a placeholder session', async () => {
		const since = activityFromNow();
		const draft = sandbox.startSession({ contact: { firstname: 'Ida', email: 'ida@example.com' } });
		sandbox.clock.advance(12 * 60_000 + 59_000);
		sandbox.saveSession(draft.id);
		sandbox.clock.advance(60_000);
		const { request } = sandbox.completeSession(draft.id);
		const placeholder = sandbox.bookWithoutDraft();
		const quick = sandbox.startSession();
		sandbox.clock.advance(20_000);
		sandbox.completeSession(quick.id);
		const result = await harness.runAction({ resource: 'bookingSession', operation: 'getAll', limit: 3, filters: { updatedAfter: since }, options: { includeRequest: true } });
		const items = new Map(result.items.map((item) => [item.json.id as string, item.json]));
		// 12:59 + 1:00 between the first save and the booking, each stamped up to the commit lag early
		expect(minutesBetween(draft, request)).toBeGreaterThanOrEqual(13);
		expect(items.get(draft.id)).toMatchObject({ status: 'completed', minutes_to_book: minutesBetween(draft, request), request: { id: request.id } });
		expect(items.get(placeholder.session.id)).toMatchObject({ status: 'completed', step: 'confirm', minutes_to_book: null, request: { id: placeholder.request.id } });
		expect(items.get(quick.id)).toMatchObject({ minutes_to_book: 0 });
		// 3 wanted requests on page 1 of the request list: one read
		expect(calls()).toEqual(['/api/v1/abandoned-sessions?page=1', '/api/v1/requests?page=1']);
		noPacing429s();
	});

	test('a request deleted since (404): request and minutes_to_book null, found by its Get; the others from the page', async () => {
		const since = activityFromNow();
		const drafts = [0, 1, 2, 3].map(() => sandbox.startSession());
		sandbox.clock.advance(5 * 60_000);
		const done = drafts.map((draft) => sandbox.completeSession(draft.id));
		sandbox.deleteRequest(done[1].request.id);
		const result = await harness.runAction({ resource: 'bookingSession', operation: 'getAll', limit: 4, filters: { updatedAfter: since }, options: { includeRequest: true } });
		const items = new Map(result.items.map((item) => [item.json.id as string, item.json as IDataObject]));
		expect(items.get(drafts[1].id)).toMatchObject({ request_id: done[1].request.id, request: null, minutes_to_book: null });
		for (const index of [0, 2, 3]) {
			expect(items.get(drafts[index].id)).toMatchObject({ request: { id: done[index].request.id }, minutes_to_book: minutesBetween(drafts[index], done[index].request) });
		}
		expect(calls()).toEqual(['/api/v1/abandoned-sessions?page=1', '/api/v1/requests?page=1', `/api/v1/requests/${done[1].request.id}`]);
		noPacing429s();
	});

	test("with a Form filter, only that form's requests are read", async () => {
		const form = sandbox.workspace().forms.find((f) => !f.is_default)!;
		const since = activityFromNow();
		const drafts = [0, 1, 2].map(() => sandbox.startSession({ formId: form.id }));
		sandbox.clock.advance(60_000);
		for (const draft of drafts) sandbox.completeSession(draft.id);
		for (let i = 0; i < 120; i++) sandbox.addRequest(); // on the default form: not read
		const result = await harness.runAction({
			resource: 'bookingSession',
			operation: 'getAll',
			limit: 3,
			filters: { formId: { __rl: true, mode: 'id', value: form.id }, updatedAfter: since },
			options: { includeRequest: true },
		});
		// in the list's order: most recently active first, as the sandbox stamped them (late commits included)
		const ids = new Set(drafts.map((draft) => draft.id));
		const expected = sandbox.ordered('sessions').filter((session) => ids.has(session.id));
		expect(result.items.map((item) => (item.json.request as IDataObject).id)).toEqual(expected.map((session) => session.request_id));
		expect(calls()).toEqual([`/api/v1/abandoned-sessions?page=1&form_id=${form.id}`, `/api/v1/requests?page=1&form_id=${form.id}`]);
		noPacing429s();
	});

	test('off: no request read, no funnel fields', async () => {
		const result = await harness.runAction({ resource: 'bookingSession', operation: 'getAll', limit: 5, filters: { status: 'completed' } });
		for (const item of result.items) {
			expect(item.json).not.toHaveProperty('request');
			expect(item.json).not.toHaveProperty('minutes_to_book');
		}
		expect(calls()).toEqual(['/api/v1/abandoned-sessions?page=1']);
		noPacing429s();
	});
});
