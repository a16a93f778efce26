/**
 * The page reader and the paginator's filter on a stub list server (no sandbox): end rules, the
 * repeated-page guard, and Return All of a filtered, moving list.
 */
import { NodeApiError } from 'n8n-workflow';

import { setPacingGapForTests } from '../../../../harness/limiterSettings';
import { isLastPage, PageSequence, readPage } from '../../../../nodes/shared/transport/pageReader';
import { paginate } from '../../../../nodes/shared/transport/paginate';
import { stubListServer } from '../../../support/stubList';

interface Row {
	id: string;
	updated_at: string;
	request_id: string | null;
	[key: string]: unknown;
}

const T0 = Date.UTC(2026, 10, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const rows = (n: number, from = 0): Row[] =>
	Array.from({ length: n }, (_, i) => ({ id: `id-${String(from + i).padStart(5, '0')}`, updated_at: iso(T0 - (from + i) * 1000), request_id: null }));
const byUpdatedDesc = (list: Row[]) => [...list].sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));

beforeAll(() => setPacingGapForTests(2));
afterAll(() => setPacingGapForTests(1015));

describe('isLastPage (the one set of end rules)', () => {
	const page = (n: number, items: number, perPage: number, total?: number) => ({ page: n, items: Array.from({ length: items }, () => ({})), perPage, total });
	test('an empty page ends the list', () => expect(isLastPage(page(3, 0, 100, 500), 200)).toBe(true));
	test('total reached, counted by distinct ids', () => {
		expect(isLastPage(page(3, 100, 100, 300), 300)).toBe(true);
		// items shifted: page 3 reached the total but only 290 distinct ids arrived → one more page
		expect(isLastPage(page(3, 100, 100, 300), 290)).toBe(false);
		// a sequence that started at page 3 counts the two pages above as full
		expect(isLastPage(page(3, 100, 100, 300), 100, 200)).toBe(true);
	});
	test('without a plausible total, a short page', () => {
		expect(isLastPage(page(2, 40, 100), 140)).toBe(true);
		expect(isLastPage(page(2, 100, 100), 200)).toBe(false);
		// a total below what was received is ignored
		expect(isLastPage(page(2, 100, 100, 50), 200)).toBe(false);
	});
});

describe('readPage / PageSequence', () => {
	test('one validated page with per_page, total and the Date header', async () => {
		const list = rows(150);
		const { ctx, calls } = stubListServer(() => list, { date: () => T0 });
		const page = await readPage<Row>(ctx, '/api/v1/abandoned-sessions', { qs: { form_id: 'x' }, page: 2, perPage: 100 });
		expect(page).toMatchObject({ page: 2, perPage: 100, total: 150, serverDate: T0 });
		expect(page.items.map((row) => row.id)).toEqual(list.slice(100).map((row) => row.id));
		expect(calls).toEqual([{ path: '/api/v1/abandoned-sessions', page: 2, perPage: 100 }]);
	});

	test('a sequence from a start page downward ends at the end of the list', async () => {
		const list = rows(450);
		const { ctx, calls } = stubListServer(() => list);
		const sequence = new PageSequence<Row>(ctx, '/x', { perPage: 100, startPage: 3 });
		const pages: number[] = [];
		for (let page = await sequence.next(); page; page = await sequence.next()) pages.push(page.page);
		expect(pages).toEqual([3, 4, 5]);
		expect(calls.map((call) => call.page)).toEqual([3, 4, 5]);
		expect(sequence.endedBy).toBe('end');
	});

	test('a page cap ends the sequence', async () => {
		const { ctx } = stubListServer(() => rows(1000));
		const sequence = new PageSequence<Row>(ctx, '/x', { perPage: 100, maxPages: 2 });
		await sequence.next();
		await sequence.next();
		expect(sequence.endedBy).toBe('cap');
		expect(await sequence.next()).toBeUndefined();
	});

	test('a server that ignores "page" is a clear error, not an endless loop', async () => {
		const list = rows(300);
		const { ctx } = stubListServer(() => list, {
			answer: (_call, _items, total) => ({ items: list.slice(0, 100), pagination: { page: 1, per_page: 100, total } }),
		});
		const sequence = new PageSequence<Row>(ctx, '/x', { perPage: 100 });
		await sequence.next();
		const error = await sequence.next().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as Error).message).toMatch(/page 2 of \/x repeated only items of earlier pages; the server may ignore the "page" parameter/);
	});
});

describe('paginate: the filter is applied to the copy that is returned', () => {
	test('Status = Abandoned: a session that completes while the list is read is not returned', async () => {
		// 250 open sessions; after page 1 is read, 10 of them (on page 1) complete: they jump to the top
		// with a new updated_at and a request_id, and the catch-up pass reads their new copies.
		const list = rows(250);
		const completing = list.slice(0, 10).map((row) => row.id);
		const { ctx } = stubListServer(() => byUpdatedDesc(list), {
			onRequest: (_call, index) => {
				if (index !== 1) return;
				for (const [i, id] of completing.entries()) {
					const row = list.find((candidate) => candidate.id === id)!;
					row.request_id = `req-${i}`;
					row.updated_at = iso(T0 + 60_000 + i);
				}
			},
		});
		const result = await paginate<Row>(ctx, '/api/v1/abandoned-sessions', {
			accept: (row) => row.request_id === null,
			movesToTopBy: (row) => row.updated_at,
		});
		const ids = result.items.map((row) => row.id);
		expect(ids.filter((id) => completing.includes(id))).toEqual([]);
		expect(result.items.every((row) => row.request_id === null)).toBe(true);
		expect(ids).toHaveLength(240);
		expect(new Set(ids).size).toBe(240);
	});

	test('Status = Completed: a session that completes while the list is read is returned, as its completed copy', async () => {
		const list = rows(250);
		const completing = list.slice(0, 3).map((row) => row.id);
		const { ctx } = stubListServer(() => byUpdatedDesc(list), {
			onRequest: (_call, index) => {
				if (index !== 1) return;
				for (const [i, id] of completing.entries()) {
					const row = list.find((candidate) => candidate.id === id)!;
					row.request_id = `req-${i}`;
					row.updated_at = iso(T0 + 60_000 + i);
				}
			},
		});
		const result = await paginate<Row>(ctx, '/api/v1/abandoned-sessions', {
			accept: (row) => row.request_id !== null,
			movesToTopBy: (row) => row.updated_at,
		});
		expect(result.items.map((row) => row.id).sort()).toEqual([...completing].sort());
		expect(result.items.every((row) => row.request_id !== null)).toBe(true);
	});

	test('a limit counts the items whose newest copy is accepted', async () => {
		const list = rows(300);
		const { ctx, calls } = stubListServer(() => list);
		const result = await paginate<Row>(ctx, '/x', { limit: 150, accept: (row) => Number(row.id.slice(3)) % 2 === 0 });
		expect(result.items).toHaveLength(150);
		expect(calls).toHaveLength(3);
	});
});

describe('paginate: sessions without a sort time, listed first or last', () => {
	// The contract allows `updated_at` null on a session and does not say where such sessions sort.
	// Return All costs the pages + 1 (the check of the top) either way: a session without a sort time
	// is neither the top of a page nor the end of a catch-up pass.
	interface Dated {
		id: string;
		updated_at: string | null;
		[key: string]: unknown;
	}
	const withNulls = (n: number, nulls: number[]): Dated[] => rows(n).map((row, i) => (nulls.includes(i) ? { ...row, updated_at: null } : row));
	const sorted = <T extends { updated_at: string | null }>(list: T[], nullsFirst: boolean): T[] => {
		const dated = list.filter((row) => row.updated_at !== null).sort((a, b) => ((a.updated_at as string) < (b.updated_at as string) ? 1 : -1));
		const undated = list.filter((row) => row.updated_at === null);
		return nullsFirst ? [...undated, ...dated] : [...dated, ...undated];
	};

	for (const nullsFirst of [true, false]) {
		const where = nullsFirst ? 'first' : 'last';
		test(`600 sessions, 2 without updated_at listed ${where}: 6 pages + 1 call, each session once`, async () => {
			const list = withNulls(600, [200, 400]);
			const { ctx, calls } = stubListServer(() => sorted(list, nullsFirst));
			const result = await paginate<Dated>(ctx, '/api/v1/abandoned-sessions', { movesToTopBy: (row) => row.updated_at });
			expect(calls).toHaveLength(Math.ceil(600 / 100) + 1);
			expect(calls.map((call) => call.page)).toEqual([1, 2, 3, 4, 5, 6, 1]);
			expect(new Set(result.items.map((row) => row.id)).size).toBe(600);
		});

		test(`sessions without updated_at listed ${where}, others moving to the top while the list is read: each session once`, async () => {
			const list = withNulls(350, [3, 120]);
			const moved = ['id-00300', 'id-00301', 'id-00302'];
			const { ctx, calls } = stubListServer(() => sorted(list, nullsFirst), {
				onRequest: (_call, index) => {
					if (index !== 2) return;
					for (const [i, id] of moved.entries()) list.find((row) => row.id === id)!.updated_at = iso(T0 + 60_000 + i);
				},
			});
			const result = await paginate<Dated>(ctx, '/api/v1/abandoned-sessions', { movesToTopBy: (row) => row.updated_at });
			expect(new Set(result.items.map((row) => row.id))).toEqual(new Set(list.map((row) => row.id)));
			expect(result.items).toHaveLength(350);
			// 4 pages; a 5th, as the 3 sessions that moved from page 4 to the top had not been received when
			// page 4 reached the total (the end rule's one extra call); and one page of the top that brings
			// them and ends at the old top
			expect(calls.map((call) => call.page)).toEqual([1, 2, 3, 4, 5, 1]);
		});
	}
});

describe('paginate: a session saved while the list is read, committed late (stamped before the top read first)', () => {
	test('it is read again from the top: every session once', async () => {
		// 250 sessions 1 s apart; the top one at T0. After page 1 is read, a session from page 3 is saved,
		// stamped 2 s before T0 (its write committed late) but visible only now: it lands on page 1,
		// below the old top, above the pages already read.
		const list: Row[] = rows(250);
		const late = 'id-00240';
		const { ctx, calls } = stubListServer(() => byUpdatedDesc(list), {
			onRequest: (_call, index) => {
				if (index === 1) list.find((row) => row.id === late)!.updated_at = iso(T0 - 1500);
			},
		});
		const result = await paginate<Row>(ctx, '/api/v1/abandoned-sessions', { movesToTopBy: (row) => row.updated_at });
		expect(result.items.map((row) => row.id).sort()).toEqual(list.map((row) => row.id).sort());
		expect(result.items.find((row) => row.id === late)?.updated_at).toBe(iso(T0 - 1500));
		// 3 pages; a 4th (it moved from the unread page 3 above, not received when page 3 reached the
		// total); the top again down to 5 s below the old top, in its first page
		expect(calls.map((call) => call.page)).toEqual([1, 2, 3, 4, 1]);
	});
});
