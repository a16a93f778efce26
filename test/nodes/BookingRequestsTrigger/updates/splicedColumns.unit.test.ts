/**
 * Request Updated's columns written from the ones stored before (events/requestUpdated/splicedColumns.ts)
 * are byte for byte what recordColumns.ts `toColumns` writes for all the rows: `toColumns` itself is the
 * oracle. First the writer alone, over random stored rows, heads and cuts (nulls in runs, status values
 * whose first appearance moves, more than 63 values, contacts and edge rows or none); then
 * UpdatesMemory over random polls (new requests at the top, changes anywhere, the oldest forgotten,
 * restarts), each write against a memory given the same records and written whole.
 */
import fc from 'fast-check';

import * as spliced from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/splicedColumns';
import { splicedColumns } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/splicedColumns';
import type { RecordRow } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/recordColumns';
import { toColumns } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/recordColumns';
import type { WatchedRecord } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/records';
import { UpdatesMemory } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/records';

const code = (length: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9_-]{${length}}$`));
/** Mostly null, so that nulls come in runs (4 or more are written as one). */
const mostlyNull = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: arb });
/** A few common values, and up to 90 others (more than 63 widen the indexes). */
const value = fc.oneof(fc.constantFrom('pending', 'complete', 'cancelled', 'new', 'won'), fc.integer({ min: 0, max: 90 }).map((n) => `v${n}`));

const rowArb = (ranks: fc.Arbitrary<number>, values: fc.Arbitrary<string>): fc.Arbitrary<RecordRow> =>
	fc
		.record({
			rank: ranks,
			id: code(6),
			updated: mostlyNull(code(3)),
			status: mostlyNull(values),
			lead: mostlyNull(values),
			completed: mostlyNull(fc.oneof(code(7), code(6).map((hash) => `#${hash}`))),
			notes: mostlyNull(code(4)),
			chain: mostlyNull(code(6)),
			contact: fc.oneof({ weight: 2, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.stringMatching(/^\^?[A-Za-z0-9_-]{0,9}$/) }),
			edge: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
		})
		.map(({ edge, ...row }) => (edge ? { ...row, edge: true } : row));

/** In the order `toColumns` is given rows (highest rank first, then by id), without two at one place. */
function inOrder(rows: RecordRow[]): RecordRow[] {
	const sorted = [...rows].sort((a, b) => b.rank - a.rank || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
	return sorted.filter((row, i) => i === 0 || row.rank !== sorted[i - 1].rank || row.id !== sorted[i - 1].id);
}

const caseArb = fc
	.record({
		few: fc.boolean(),
		top: fc.oneof({ weight: 1, arbitrary: fc.constant(Infinity) }, { weight: 4, arbitrary: fc.integer({ min: -1, max: 130 }) }),
		cut: fc.oneof({ weight: 1, arbitrary: fc.constant(-Infinity) }, { weight: 4, arbitrary: fc.integer({ min: -1, max: 130 }) }),
		blank: fc.constantFrom('none', 'base', 'head', 'both'),
		dense: fc.boolean(),
	})
	.chain(({ few, top, cut, blank, dense }) => {
		const values = few ? fc.constantFrom('a', 'b', 'c') : value;
		const ranks = dense ? fc.integer({ min: 0, max: 40 }) : fc.integer({ min: 0, max: 120 });
		const above = Number.isFinite(top) ? fc.integer({ min: 0, max: 12 }).map((n) => top + n) : fc.constant(0);
		return fc.record({
			top: fc.constant(top),
			cut: fc.constant(cut),
			blank: fc.constant(blank),
			base: fc.array(rowArb(ranks, values), { maxLength: 90 }),
			head: Number.isFinite(top) ? fc.array(rowArb(above, values), { maxLength: 14 }) : fc.constant<RecordRow[]>([]),
		});
	});

const blanked = (rows: RecordRow[], blank: boolean) => (blank ? rows.map((row) => ({ ...row, contact: '' })) : rows);

/** The writer's answer and the oracle's (`toColumns` of the head and the rows kept) for one case. */
function bothWrites(c: { top: number; cut: number; blank: string; base: RecordRow[]; head: RecordRow[] }, writer = splicedColumns) {
	const base = inOrder(blanked(c.base, c.blank === 'base' || c.blank === 'both'));
	const head = inOrder(blanked(c.head, c.blank === 'head' || c.blank === 'both'));
	const kept = base.filter((row) => row.rank < c.top && row.rank > c.cut);
	const edge = kept.filter((row) => row.edge === true).map((row) => row.id);
	const written = writer(toColumns(base), head, { top: c.top, cut: c.cut, count: kept.length, edge });
	return { written: JSON.stringify(written), whole: JSON.stringify(toColumns([...head, ...kept])), kept };
}

describe('splicedColumns: the columns written from the stored ones are those toColumns writes', () => {
	it('for random stored rows, heads and cuts, byte for byte', () => {
		fc.assert(
			fc.property(caseArb, (c) => {
				const { written, whole } = bothWrites(c);
				expect(written).toBe(whole);
			}),
			{ numRuns: 3_000, seed: 4242 },
		);
	});

	it('gives undefined when the stored form does not hold the rows counted in the range', () => {
		fc.assert(
			fc.property(caseArb, (c) => {
				const base = inOrder(c.base);
				const kept = base.filter((row) => row.rank < c.top && row.rank > c.cut);
				expect(splicedColumns(toColumns(base), inOrder(c.head), { top: c.top, cut: c.cut, count: kept.length + 1, edge: [] })).toBeUndefined();
			}),
			{ numRuns: 300, seed: 7 },
		);
	});

	it('keeps the stored text below the head: a write that changed only the top keeps the contacts after it', () => {
		const row = (rank: number, status: string, contact: string): RecordRow => ({ rank, id: `id${String(rank).padStart(4, '0')}`, updated: null, status, lead: null, completed: null, notes: null, chain: null, contact });
		const base = [row(9, 'a', 'x9'), row(8, 'b', ''), row(7, 'a', 'x7'), row(6, 'b', 'x6')];
		// Two new requests at the top (the second's status first seen there), the oldest forgotten.
		const head = [row(11, 'b', 'y11'), row(10, 'c', '')];
		const written = splicedColumns(toColumns(base), head, { top: 10, cut: 6, count: 3, edge: [] });
		expect(written).toEqual(toColumns([...head, ...base.slice(0, 3)]));
		expect(written?.values).toEqual(['b', 'c', 'a']);
		expect(written?.columns.contacts).toBe('y11,,x9,,x7');
	});
});

// UpdatesMemory: random polls, each write against the same records written whole.

const T0 = Date.UTC(2026, 10, 20);
const recordArb = (rank: number) =>
	fc
		.record({
			updated: mostlyNull(code(3)),
			status: mostlyNull(fc.constantFrom('pending', 'complete', 'cancelled')),
			lead: mostlyNull(value),
			completed: mostlyNull(fc.oneof(fc.integer({ min: 0, max: 10 ** 6 }).map((ms) => String(T0 + ms)), code(6).map((hash) => `#${hash}`))),
			notes: mostlyNull(code(4)),
			sealed: fc.oneof(fc.constant(''), code(8)),
			chain: fc.option(code(6), { nil: undefined }),
			edge: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
			slip: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -3, max: 3 }) }),
		})
		.map(
			(r): WatchedRecord => ({
				rank: Math.max(0, rank + r.slip),
				updated: r.updated,
				watched: { status: r.status, lead_status: r.lead, completed: r.completed, notes: r.notes },
				sealed: r.sealed,
				...(r.chain !== undefined ? { chain: r.chain } : {}),
				...(r.edge ? { edge: true as const } : {}),
			}),
		);

const pollArb = fc.record({
	added: fc.integer({ min: 0, max: 12 }),
	changed: fc.array(fc.nat(), { maxLength: 6 }),
	forget: fc.integer({ min: 0, max: 10 }),
	restart: fc.boolean(),
	seed: fc.array(recordArb(0), { minLength: 20, maxLength: 20 }),
});

/** A record of `template`'s fields at `rank`, moved by the template's own rank (a few places, at times: rows committed late). */
const at = (template: WatchedRecord, rank: number): WatchedRecord => ({ ...template, rank: rank + template.rank });

describe('UpdatesMemory: each write from the stored form before is the whole write', () => {
	it('over random polls (new requests, changes anywhere, the oldest forgotten, restarts)', () => {
		const splices = jest.spyOn(spliced, 'splicedColumns');
		let fitted = 0;
		fc.assert(
			fc.property(fc.array(pollArb, { minLength: 1, maxLength: 10 }), fc.integer({ min: 4, max: 40 }), (polls, watch) => {
				let kept = new UpdatesMemory();
				const model = new Map<string, WatchedRecord>();
				let next = 0;
				for (const poll of polls) {
					const before = JSON.stringify(kept.encode(T0));
					const memory = kept.clone();
					let pick = 0;
					for (let i = 0; i < poll.added; i++, next++) {
						const record = at(poll.seed[pick++ % poll.seed.length], next);
						memory.set(`req-${next}`, record);
						model.set(`req-${next}`, record);
					}
					const ids = [...model.keys()];
					for (const n of poll.changed) {
						if (ids.length === 0) break;
						const id = ids[n % ids.length];
						const previous = model.get(id) as WatchedRecord;
						const record = at(poll.seed[pick++ % poll.seed.length], previous.rank);
						memory.set(id, record, memory.get(id, previous.rank));
						model.set(id, record);
					}
					const lowest = next - watch + poll.forget;
					memory.forgetBelow(lowest);
					for (const [id, record] of model) if (record.rank < (record.edge === true ? lowest - 64 : lowest)) model.delete(id);
					const whole = new UpdatesMemory();
					for (const [id, record] of model) whole.set(id, record);
					const written = memory.encode(T0);
					expect(JSON.stringify(written)).toBe(JSON.stringify(whole.encode(T0)));
					expect(JSON.stringify(kept.encode(T0))).toBe(before);
					kept = poll.restart ? UpdatesMemory.decode(JSON.parse(JSON.stringify(written))) : memory;
				}
			}),
			{ numRuns: 400, seed: 99 },
		);
		for (const result of splices.mock.results) if (result.type === 'return' && result.value !== undefined) fitted++;
		// Most writes after the first came from the stored form (not all: a record may slip below a cut).
		expect(fitted).toBeGreaterThan(splices.mock.calls.length / 2);
		expect(splices.mock.calls.length).toBeGreaterThan(1_000);
		splices.mockRestore();
	});
});
