/**
 * What a run of pages proves about a window (windows.ts), and the planner's small pure helpers.
 */
import { KeySet } from '../../../nodes/BookingRequestsTrigger/state/keySet';
import { pollNow } from '../../../nodes/BookingRequestsTrigger/model/pages';
import { shareBudget } from '../../../nodes/BookingRequestsTrigger/planner/shares';
import type { ListItem, PageObservation } from '../../../nodes/BookingRequestsTrigger/model/pages';
import type { Window } from '../../../nodes/BookingRequestsTrigger/windows/window';
import { readBounds, runsOf } from '../../../nodes/BookingRequestsTrigger/model/pages';
import { coverageByRun, coverageOf } from '../../../nodes/BookingRequestsTrigger/windows/coverage';
import { T0, iso } from '../../support/triggerWorld';

let seq = 0;
const item = (id: string, ms: number | null): ListItem => ({ id, created_at: ms === null ? null : iso(ms) });
/** A page of requests with timestamps T0 + each offset (seconds), 5 per page. */
function page(number: number, offsets: Array<number | null>, total = 100, serverDate?: number): PageObservation {
	return {
		list: 'requests',
		page: number,
		perPage: 5,
		total,
		items: offsets.map((offset, i) => item(`p${number}-${i}`, offset === null ? null : T0 + offset * 1000)),
		serverDate,
		seq: seq++,
	};
}
const window = (floor: number, hi = Infinity, extra: Partial<Window> = {}): Window => ({
	name: 'requests',
	list: 'requests',
	floor: T0 + floor * 1000,
	hi: hi === Infinity ? Infinity : T0 + hi * 1000,
	offset: 0,
	done: new KeySet(),
	...extra,
});

describe('runs', () => {
	it('consecutive reads downward form one run; going back up or re-reading starts another', () => {
		const pages = [page(1, [9]), page(2, [8]), page(3, [7]), page(3, [7]), page(2, [8]), page(3, [7])];
		expect(runsOf(pages, 'requests').map((run) => run.pages.map((p) => p.page))).toEqual([[1, 2, 3], [3], [2, 3]]);
		expect(runsOf(pages, 'sessions')).toEqual([]);
	});
});

describe('coverage of a window by a run', () => {
	it('a run from page 1 that reaches an item at or below the floor covers the window up to the time of its read', () => {
		const run = { list: 'requests' as const, pages: [page(1, [50, 40, 30, 20, 10]), page(2, [5, 4, 3, 2, 1])] };
		const coverage = coverageByRun(window(12), run, T0 + 60_000)!;
		expect(coverage.complete).toBe(true);
		expect(coverage.upper).toBe(T0 + 60_000);
		expect(coverage.items.map((entry) => entry.item.id)).toEqual(['p1-0', 'p1-1', 'p1-2', 'p1-3']);
		expect(coverage.stop!.item.id).toBe('p1-4');
	});

	it('a run that never reaches the floor proves nothing', () => {
		const run = { list: 'requests' as const, pages: [page(1, [50, 40, 30, 20, 10])] };
		expect(coverageByRun(window(5), run)).toBeUndefined();
	});

	it('the end of the list is a stop (a short page, or the total reached)', () => {
		expect(coverageByRun(window(0), { list: 'requests', pages: [page(1, [50, 40], 2)] })!.complete).toBe(true);
		expect(coverageByRun(window(0), { list: 'requests', pages: [page(1, [50, 40, 30, 20, 10], 5)] })!.stop).toBeUndefined();
	});

	it('a run starting deeper covers only what lies below its first page\'s top item: (floor, top − 1 ms]', () => {
		const run = { list: 'requests' as const, pages: [page(4, [30, 30, 25, 20, 15]), page(5, [12, 11, 10, 9, 8])] };
		const coverage = coverageByRun(window(10), run)!;
		expect(coverage.complete).toBe(false);
		expect(coverage.upper).toBe(T0 + 30_000 - 1);
		// The items at 30 s may have company on page 3: not covered.
		expect(coverage.items.map((entry) => entry.item.id)).toEqual(['p4-2', 'p4-3', 'p4-4', 'p5-0', 'p5-1']);
	});

	it('the horizon: only up to its top (hi), even from page 1', () => {
		const run = { list: 'requests' as const, pages: [page(1, [50, 40, 30, 20, 10])] };
		const coverage = coverageByRun(window(15, 35), run, T0 + 60_000)!;
		expect(coverage.upper).toBe(T0 + 35_000);
		expect(coverage.items.map((entry) => entry.item.id)).toEqual(['p1-2', 'p1-3']);
	});

	it('a run inside a tie group just above the floor drains the group from its bottom (partial)', () => {
		const run = { list: 'requests' as const, pages: [page(7, [11, 11, 11, 11, 11]), page(8, [11, 11, 10, 9, 8])] };
		const coverage = coverageByRun(window(11 - 0.001), run)!;
		expect(coverage.upper).toBe(T0 + 11_000 - 1);
		expect(coverage.partial).toBe(T0 + 11_000);
		expect(coverage.items).toHaveLength(7);
		// Next time, the part handled stops the run: only what lies above it is read again.
		const done = new KeySet();
		for (const entry of coverage.items) done.add(entry.time, entry.item.id);
		const next = window(11 - 0.001, Infinity, { tie: T0 + 11_000, done });
		const above = { list: 'requests' as const, pages: [page(6, [11, 11, 11, 11, 11]), { ...page(7, [11, 11, 11, 11, 11]), items: run.pages[0].items }] };
		const again = coverageByRun(next, above)!;
		expect(again.stop!.item.id).toBe('p7-0');
		expect(again.items.map((entry) => entry.item.id)).toEqual(['p6-0', 'p6-1', 'p6-2', 'p6-3', 'p6-4']);
	});

	it('null timestamps never stop a run and are never in a window', () => {
		const run = { list: 'requests' as const, pages: [page(1, [null, 50, null, 5, null])] };
		const coverage = coverageByRun(window(10), run, T0 + 60_000)!;
		expect(coverage.items.map((entry) => entry.item.id)).toEqual(['p1-1']);
		expect(coverage.stop!.item.id).toBe('p1-3');
	});

	it('of several runs, the one that covers furthest counts', () => {
		const pages = [page(3, [30, 25, 20, 15, 10]), page(1, [60, 55, 50, 45, 40]), page(2, [35, 34, 33, 32, 31]), page(3, [30, 25, 20, 15, 10])];
		const coverage = coverageOf(window(12), runsOf(pages, 'requests'), readBounds(pages, T0 + 70_000))!;
		expect(coverage.run.pages.map((p) => p.page)).toEqual([1, 2, 3]);
		expect(coverage.complete).toBe(true);
	});
});

describe('server time of reads', () => {
	it('the bound of a read: the Date headers so far, raised to the newest timestamp within the second after them', () => {
		const pages = [page(1, [0.4, 0.1], 2, T0), page(1, [5], 1, T0)];
		const bounds = readBounds(pages, 0);
		expect(bounds.get(pages[0].seq)).toBe(T0 + 400);
		// A timestamp 5 s past its Date header is ahead of the server's clock: not trusted.
		expect(bounds.get(pages[1].seq)).toBe(T0 + 400);
		expect(pollNow(pages, 0)).toBe(T0 + 400);
		expect(pollNow([], 123)).toBe(123);
	});
});

describe('shareBudget', () => {
	it('small needs are met, the rest is shared equally', () => {
		expect(shareBudget([2, 50, 50], 30)).toEqual([2, 14, 14]);
		expect(shareBudget([2, 3], 30)).toEqual([2, 3]);
		expect(shareBudget([10, 10, 10], 2)).toEqual([0, 1, 1]);
	});
});
