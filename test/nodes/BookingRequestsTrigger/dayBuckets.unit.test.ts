/**
 * The customers' memories by day (state/dayBuckets.ts): a copy shares each day until it changes it, and
 * a large day that only gains entries keeps sharing what it had (state/appendedMap.ts). Checked against
 * plain Maps copied whole at every copy, over random runs of copies, additions, changes and removals:
 * the same entries in the same order, the same text written (appended or whole), and the memory copied
 * from never changes.
 */
import fc from 'fast-check';

import { AppendedMap } from '../../../nodes/BookingRequestsTrigger/state/appendedMap';
import { DayBuckets, type DayPacker } from '../../../nodes/BookingRequestsTrigger/state/dayBuckets';

type Model = Map<number, Map<string, number>>;

const code = (n: number) => `k${String(n).padStart(7, '0')}`;

/** code:value per entry; given the text of the first entries, only the rest (`added`) is written (as packBooked does). */
const pack: DayPacker<number> = (entries, _day, before) => {
	const out: string[] = before ? [before.packed] : [];
	for (const [key, value] of before ? before.added : entries) out.push(`${key}:${value};`);
	return out.join('');
};

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
	{ weight: 4, arbitrary: fc.record({ op: fc.constant('copy' as const), encode: fc.boolean() }) },
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

describe('DayBuckets: copies share days, a day only added to shares what it had', () => {
	it('reads and writes as Maps copied whole would, and leaves the memory copied from as it was (random runs)', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 700 }), fc.array(opArb, { maxLength: 60 }), (loaded, ops) => {
				const checks: Array<() => void> = [];
				let buckets = new DayBuckets<number>();
				let model: Model = new Map();
				if (loaded > 0) {
					const entries = new Map(Array.from({ length: loaded }, (_, i) => [code(i), i % 100] as [string, number]));
					buckets.load(0, entries, pack(entries, 0));
					model.set(0, new Map(entries));
				}
				for (const op of ops) {
					if (op.op !== 'copy') {
						apply(op, buckets, model);
						continue;
					}
					// A poll: the memory it started from is kept (encoded as it was); the copy goes on.
					if (op.encode) expect(buckets.encode(pack)).toEqual(wholeText(model));
					const before = { view: JSON.stringify(view(buckets)), text: JSON.stringify(buckets.encode(pack)) };
					const source = buckets;
					buckets = buckets.clone();
					model = new Map([...model].map(([n, entries]) => [n, new Map(entries)]));
					expect(view(buckets)).toEqual(modelView(model));
					// checked after the copy's next changes, below
					const check = () => {
						expect(JSON.stringify(view(source))).toBe(before.view);
						expect(JSON.stringify(source.encode(pack))).toBe(before.text);
					};
					checks.push(check);
				}
				for (const check of checks.splice(0)) check();
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

	it('a large day gaining entries in a copy shares its entries with the memory copied from', () => {
		const buckets = new DayBuckets<number>();
		const entries = new Map(Array.from({ length: 1_000 }, (_, i) => [code(i), i] as [string, number]));
		buckets.load(5, entries, pack(entries, 5));
		const copy = buckets.clone();
		copy.set(5, code(5_000), 1);
		const day = copy.entries(5);
		expect(day).toBeInstanceOf(AppendedMap);
		expect((day as AppendedMap<number>).base).toBe(entries);
		expect(entries.size).toBe(1_000);
		expect([...(day as AppendedMap<number>).keys()].slice(-2)).toEqual([code(999), code(5_000)]);
		// a change to an entry it had: the day is copied whole
		copy.set(5, code(3), 7);
		expect(copy.entries(5)).toBeInstanceOf(Map);
		expect(entries.get(code(3))).toBe(3);
		expect(copy.entries(5)?.get(code(3))).toBe(7);
	});
});
