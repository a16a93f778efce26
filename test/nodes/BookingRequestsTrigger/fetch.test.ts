/**
 * fetch.ts with canned answers (a stub of n8n's request helper; the shared transport and limiter are
 * the real ones, so each call is paced ~1 s). The sandbox-backed tests cover the real server.
 */
import type { IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { PollClock, readList } from '../../../nodes/BookingRequestsTrigger/fetch';
import type { BookingSession } from '../../../nodes/shared/types';
import { T0, iso, makeSession } from '../../support/triggerWorld';

jest.setTimeout(30_000);

let instance = 0;

function stubContext(answer: (page: number) => { body: unknown; date?: number }): { ctx: IPollFunctions; pages: number[] } {
	instance++;
	const pages: number[] = [];
	const ctx = {
		getCredentials: async () => ({ apiKey: `brk_${'ab'.repeat(16)}`, baseUrl: `https://fetch-test-${instance}.example.com` }),
		getNode: () => ({ id: 'trigger', name: 'Booking Requests Trigger', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} }),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: { qs: { page: number } }) => {
				pages.push(options.qs.page);
				const { body, date } = answer(options.qs.page);
				return {
					statusCode: 200,
					headers: date === undefined ? {} : { date: new Date(date).toUTCString() },
					body: JSON.stringify(body),
				};
			},
		},
	} as unknown as IPollFunctions;
	return { ctx, pages };
}

const sessionsAt = (times: number[]) => times.map((at) => makeSession({ updated_at: iso(at), created_at: iso(at) }));
const options = (floor: number) => ({
	path: '/api/v1/abandoned-sessions',
	qs: {},
	sortTime: (s: BookingSession) => (s.updated_at ? Date.parse(s.updated_at) : null),
	topTime: (s: BookingSession) => (s.updated_at ? Date.parse(s.updated_at) : null),
	floor: () => floor,
});

describe('readList', () => {
	test('reads pages until an item below the floor; reports the lowest time read; the Date header fixes "now"', async () => {
		const all = sessionsAt(Array.from({ length: 250 }, (_, i) => T0 - i * 1000));
		const { ctx, pages } = stubContext((page) => ({
			body: { items: all.slice((page - 1) * 100, page * 100), pagination: { page, per_page: 100, total: 250 } },
			date: T0 + 5000,
		}));
		const clock = new PollClock(undefined);
		const read = await readList(ctx, clock, options(T0 - 150 * 1000));
		expect(pages).toEqual([1, 2]);
		expect(read).toMatchObject({ exhausted: false, lowest: T0 - 199 * 1000, calls: 2 });
		expect(read.items).toHaveLength(200);
		expect(clock.now).toBe(T0 + 5000);
	});

	test('the end of the list: a short page, or pagination as strings', async () => {
		const all = sessionsAt([T0, T0 - 1000]);
		const { ctx, pages } = stubContext(() => ({ body: { items: all, pagination: { page: '1', per_page: '100', total: '2' } } }));
		const clock = new PollClock(-7000, () => T0);
		const read = await readList(ctx, clock, options(-Infinity));
		expect(pages).toEqual([1]);
		expect(read.exhausted).toBe(true);
		expect(clock.now).toBe(T0 - 7000); // no Date header: n8n's clock + the last measured skew
	});

	test('null timestamps never stop the reading', async () => {
		const nulls = Array.from({ length: 100 }, () => makeSession({ updated_at: null, created_at: null }));
		const dated = sessionsAt([T0 - 60_000]);
		const { ctx, pages } = stubContext((page) => ({
			body: { items: page === 1 ? nulls : dated, pagination: { page, per_page: 100, total: 101 } },
		}));
		const read = await readList(ctx, new PollClock(0), options(T0));
		expect(pages).toEqual([1, 2]);
		expect(read.lowest).toBe(T0 - 60_000);
	});

	test('a server that ignores "page" (the same page again) fails clearly instead of paging forever', async () => {
		const page1 = sessionsAt(Array.from({ length: 100 }, (_, i) => T0 - i));
		const { ctx } = stubContext(() => ({ body: { items: page1, pagination: { page: 1, per_page: 100, total: 1000 } } }));
		const error = await readList(ctx, new PollClock(0), options(-Infinity)).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as Error).message).toMatch(/page 2 of \/api\/v1\/abandoned-sessions repeated page 1/);
	});
});
