/**
 * The customers' memories by day (state/dayBuckets.ts): each day keeps its stored text while it is
 * unchanged. Checked against plain Maps over random runs of additions, changes, removals and writes
 * (a write between changes keeps each day's text): the same entries in the same order, and the same
 * text as writing every day whole.
 */
import fc from 'fast-check';

import { DayBuckets, type DayPacker } from '../../../nodes/BookingRequestsTrigger/state/dayBuckets';

type Model = Map<number, Map<string, number>>;

const code = (n: number) => `k${String(n).padStart(7, '0')}`;

/** code:value per entry. */
const pack: DayPacker<number> = (entries) => [...entries].map(([key, value]) => `${key}:${value};`).join('');

const wholeText = (model: Model): Record<string, string> =>
	Object.fromEntries(
		[...model.keys()]
			.sort((a, b) => a - b)
			.map((day) => [String(day), [...(model.get(day) as Map<string, number>)].map(([key, value]) => `${key}:${value};`).join('')]),
	);

const view = (buckets: DayBuckets<number>) => buckets.dayNumbers().map((day) => [day, [...(buckets.entries(day) ?? [])]]);
const modelView = (model: Model) => [...model.keys()].sort((a, b) => a - b).map((day) => [day, [...(model.get(day) as Map<string, number>)]]);

const opArb = fc.oneof(
	{ weight: 6, arbitrary: fc.record({ op: fc.constant('add' as const), day: fc.integer({ min: 0, max: 2 }), count: fc.integer({ min: 1, max: 40 }), from: fc.integer({ min: 0, max: 3_000 }) }) },
	{ weight: 2, arbitrary: fc.record({ op: fc.constant('set' as const), day: fc.integer({ min: 0, max: 2 }), key: fc.integer({ min: 0, max: 3_000 }), value: fc.integer({ min: 0, max: 99 }) }) },
	{ weight: 1, arbitrary: fc.record({ op: fc.constant('delete' as const), day: fc.integer({ min: 0, max: 2 }), key: fc.integer({ min: 0, max: 3_000 }) }) },
	{ weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const), day: fc.integer({ min: 0, max: 3 }) }) },
	{ weight: 4, arbitrary: fc.record({ op: fc.constant('encode' as const) }) },
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

function apply(op: Op, buckets: DayBuckets<number>, model: Model): void {
	const day = (n: number) => model.get(n) ?? model.set(n, new Map()).get(n)!;
	if (op.op === 'add') {
		for (let i = 0; i < op.count; i++) {
			buckets.set(op.day, code(op.from + i), i);
			day(op.day).set(code(op.from + i), i);
		}
	} else if (op.op === 'set') {
		buckets.set(op.day, code(op.key), op.value);
		day(op.day).set(code(op.key), op.value);
	} else if (op.op === 'delete') {
		buckets.delete(op.day, code(op.key));
		model.get(op.day)?.delete(code(op.key));
		if (model.get(op.day)?.size === 0) model.delete(op.day);
	} else if (op.op === 'drop') {
		buckets.dropDaysBefore(op.day);
		for (const held of [...model.keys()]) if (held < op.day) model.delete(held);
	}
}

describe('DayBuckets: a day keeps its text while unchanged', () => {
	it('reads as plain Maps and writes every day as a whole write would (random runs)', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 700 }), fc.array(opArb, { maxLength: 60 }), (loaded, ops) => {
				const buckets = new DayBuckets<number>();
				const model: Model = new Map();
				if (loaded > 0) {
					const entries = new Map(Array.from({ length: loaded }, (_, i) => [code(i), i % 100] as [string, number]));
					buckets.load(0, entries, pack(entries));
					model.set(0, new Map(entries));
				}
				for (const op of ops) {
					if (op.op === 'encode') expect(buckets.encode(pack)).toEqual(wholeText(model));
					else apply(op, buckets, model);
				}
				expect(view(buckets)).toEqual(modelView(model));
				expect(buckets.size).toBe([...model.values()].reduce((sum, entries) => sum + entries.size, 0));
				// the newest day holding a code, and its value there
				const newest = new Map<string, { day: number; value: number }>();
				for (const n of [...model.keys()].sort((a, b) => a - b)) for (const [key, value] of model.get(n) as Map<string, number>) newest.set(key, { day: n, value });
				for (const [key, found] of newest) expect(buckets.find(key)).toEqual(found);
				expect(buckets.encode(pack)).toEqual(wholeText(model));
			}),
			{ numRuns: 150, seed: 7 },
		);
	});
});
