/** Funnel fields: minutes_to_book from the session's first save to its booking, and placeholder sessions. */
import { isPlaceholderSession, minutesToBook } from '../../../../nodes/shared/output/funnel';
import type { BookingRequest, BookingSession } from '../../../../nodes/shared/types';

const session = (fields: Partial<BookingSession>): BookingSession =>
	({ id: 's', form_id: 'f', step: 'schedule', data: { zip: '78701' }, attribution: null, source: null, request_id: 'r', created_at: '2026-11-02T10:00:00.000Z', updated_at: '2026-11-02T10:30:00.000Z', ...fields }) as BookingSession;
const request = (createdAt: unknown): BookingRequest => ({ id: 'r', created_at: createdAt }) as unknown as BookingRequest;

describe('minutesToBook', () => {
	test('whole minutes from the session created_at (first save) to the request created_at', () => {
		expect(minutesToBook(session({}), request('2026-11-02T10:30:59.999Z'))).toBe(30);
		expect(minutesToBook(session({}), request('2026-11-02T10:00:00.000Z'))).toBe(0);
		expect(minutesToBook(session({}), request('2026-11-05T10:00:00.000Z'))).toBe(3 * 24 * 60);
	});

	test('null when a time is unknown, the request is gone (404) or older than the session', () => {
		expect(minutesToBook(session({ created_at: null }), request('2026-11-02T10:30:00.000Z'))).toBeNull();
		expect(minutesToBook(session({}), request(null))).toBeNull();
		expect(minutesToBook(session({}), request('not a time'))).toBeNull();
		expect(minutesToBook(session({}), null)).toBeNull();
		expect(minutesToBook(session({}), request('2026-11-02T09:59:59.999Z'))).toBeNull();
	});

	test('null for a placeholder session (a booking without a saved draft: no first save)', () => {
		const placeholder = session({ step: 'confirm', data: {}, created_at: '2026-11-02T10:30:00.000Z' });
		expect(isPlaceholderSession(placeholder)).toBe(true);
		expect(minutesToBook(placeholder, request('2026-11-02T10:30:00.000Z'))).toBeNull();
		// a completed draft at step confirm is not one
		expect(isPlaceholderSession(session({ step: 'confirm' }))).toBe(false);
		expect(minutesToBook(session({ step: 'confirm' }), request('2026-11-02T10:45:00.000Z'))).toBe(45);
		expect(isPlaceholderSession(session({ data: {} }))).toBe(false);
	});
});
