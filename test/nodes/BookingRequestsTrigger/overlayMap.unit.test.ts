/**
 * state/overlayMap.ts, Request Updated's records map: a copy shares the map until one of them changes,
 * then copies only its changes (or folds them into a new base). Checked against plain Maps copied whole
 * at every copy, over random runs of copies, sets and deletes: the same entries (a walk's order is not
 * promised: compared sorted), the same size, and every map copied from stays as it was, frozen.
 */
import fc from 'fast-check';

import { OverlayMap } from '../../../nodes/BookingRequestsTrigger/state/overlayMap';

const key = (n: number) => `k${n}`;

const opArb = fc.oneof(
	{ weight: 5, arbitrary: fc.record({ op: fc.constant('set' as const), key: fc.integer({ min: 0, max: 400 }), value: fc.integer({ min: 0, max: 9 }) }) },
	{ weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 400 }) }) },
	{ weight: 1, arbitrary: fc.record({ op: fc.constant('copy' as const) }) },
);

/** The entries as a walk gives them, sorted by key. */
function entriesOf(map: OverlayMap<number>): Array<[string, number]> {
	const out: Array<[string, number]> = [];
	map.forEach((value, k) => out.push([k, value]));
	return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

const modelEntries = (model: Map<string, number>) => [...model].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('OverlayMap: copies share the map, each copies only what it changes', () => {
	it('reads as Maps copied whole would, and leaves every map copied from as it was (random runs)', () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 300 }), fc.array(opArb, { maxLength: 200 }), (loaded, ops) => {
				let map = new OverlayMap<number>();
				let model = new Map<string, number>();
				for (let i = 0; i < loaded; i++) {
					map.set(key(i), i % 10);
					model.set(key(i), i % 10);
				}
				const sources: Array<{ map: OverlayMap<number>; entries: Array<[string, number]> }> = [];
				for (const op of ops) {
					if (op.op === 'set') {
						map.set(key(op.key), op.value);
						model.set(key(op.key), op.value);
					} else if (op.op === 'delete') {
						map.delete(key(op.key));
						model.delete(key(op.key));
					} else {
						// A poll: the map it started from is kept, frozen; the copy goes on.
						Object.freeze(map);
						sources.push({ map, entries: modelEntries(model) });
						map = map.copy();
						model = new Map(model);
					}
					expect(map.size).toBe(model.size);
				}
				expect(entriesOf(map)).toEqual(modelEntries(model));
				for (let n = 0; n <= 400; n++) {
					expect(map.get(key(n))).toBe(model.get(key(n)));
					expect(map.has(key(n))).toBe(model.has(key(n)));
				}
				for (const source of sources) {
					expect(entriesOf(source.map)).toEqual(source.entries);
					expect(source.map.size).toBe(source.entries.length);
				}
			}),
			{ numRuns: 200, seed: 11 },
		);
	});
});
