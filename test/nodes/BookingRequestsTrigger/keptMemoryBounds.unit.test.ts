/**
 * The bounds of the memory kept in the process between polls (poll/memory.ts): at most
 * KEPT_LIMITS.triggers memories, KEPT_LIMITS.entries entries together (a window's row weighing
 * ROW_ENTRIES), none idle longer than KEPT_LIMITS.idleMs; the least recently polled go first, and a
 * memory dropped is decoded again from its state (never lost, only slower).
 */
import type { ReadInput } from '../../../nodes/BookingRequestsTrigger/poll/memory';
import { forgetKeptMemories, KEPT_LIMITS, keptMemories, putBack, ROW_ENTRIES, takeMemory, writeState } from '../../../nodes/BookingRequestsTrigger/poll/memory';
import { readMemory } from '../../../nodes/BookingRequestsTrigger/state/codec';
import type { TriggerMemory } from '../../../nodes/BookingRequestsTrigger/state/decoded';
import type { TriggerState } from '../../../nodes/BookingRequestsTrigger/state/format';
import { KeySet } from '../../../nodes/BookingRequestsTrigger/state/keySet';
import type { HeldMemory } from '../../../nodes/BookingRequestsTrigger/windows/held';
import type { RowRead } from '../../../nodes/BookingRequestsTrigger/windows/window';
import { makeSettings, MIN, newCustomer, readInputOf, Runner, World } from '../../support/triggerWorld';

const DEFAULTS = { ...KEPT_LIMITS };

/** A trigger's memory after a few polls with traffic (decoded from its state, as a new process reads it). */
async function aMemory(): Promise<{ memory: TriggerMemory; read: ReadInput }> {
	const settings = makeSettings({ skipIfBooked: true });
	const world = new World();
	const runner = new Runner(world, settings);
	await runner.poll();
	for (let i = 0; i < 5; i++) {
		world.advance(MIN);
		world.start({}, newCustomer());
	}
	world.advance(60 * MIN);
	await runner.poll();
	const read = readInputOf(settings);
	const memory = readMemory(runner.state, read).memory as TriggerMemory;
	expect(memory).toBeDefined();
	return { memory, read };
}

/** Publishes the memory under `key` (as a poll's end does); its state, to start the next poll from. */
const keep = (key: string, memory: TriggerMemory, read: ReadInput): TriggerState => writeState(key, memory, read);

/** Whether a poll of `key` on `state` starts from the memory kept (it then puts it back, unchanged, as a quiet poll does). */
function isKept(key: string, state: TriggerState, read: ReadInput): boolean {
	const taken = takeMemory(key, state, read);
	if (taken.kept) putBack(key, taken.memory as TriggerMemory, state, read);
	return taken.kept === true;
}

/** The memory with `count` held rows (as a poll holding drafts leaves it in the process). */
function withHeldRows(memory: TriggerMemory, count: number): TriggerMemory {
	const codes = new KeySet();
	const rows = new Map<string, RowRead>();
	for (let i = 0; i < count; i++) {
		const id = `held-${i}`;
		codes.add(1_000 + i, id);
		rows.set(id, { located: { item: { id, updated_at: new Date(1_000 + i).toISOString() }, time: 1_000 + i, page: { list: 'sessions', page: 1, perPage: 100, items: [], seq: 0 }, index: i }, moved: false });
	}
	const held: HeldMemory = { floor: 0, done: new KeySet(), codes, rows };
	return { ...memory, windows: { ...memory.windows, held } };
}

describe('the memory kept between polls: bounds', () => {
	beforeEach(() => forgetKeptMemories());
	afterEach(() => {
		Object.assign(KEPT_LIMITS, DEFAULTS);
		forgetKeptMemories();
	});

	it('keeps at most KEPT_LIMITS.triggers memories: the least recently polled is decoded again', async () => {
		const { memory, read } = await aMemory();
		KEPT_LIMITS.triggers = 3;
		const states = ['a', 'b', 'c'].map((key) => keep(key, memory, read));
		expect(keptMemories().triggers).toBe(3);
		expect(isKept('a', states[0], read)).toBe(true); // a is now the most recently polled
		const d = keep('d', memory, read);
		expect(keptMemories().triggers).toBe(3);
		expect(isKept('b', states[1], read)).toBe(false); // the least recently polled went
		expect(isKept('d', d, read)).toBe(true);
		expect(isKept('c', states[2], read)).toBe(true);
	});

	it('keeps at most KEPT_LIMITS.entries entries together, a held row weighing ROW_ENTRIES', async () => {
		const { memory, read } = await aMemory();
		keep('plain', memory, read);
		const plain = keptMemories().entries;
		forgetKeptMemories();
		const rowsState = keep('rows', withHeldRows(memory, 50), read);
		const withRows = keptMemories().entries;
		// 50 rows (in this process only) weigh 600 entries: a row as read is about 750 bytes of heap, an entry about 60
		expect(ROW_ENTRIES).toBe(12);
		expect(withRows - plain).toBe(600);
		expect(isKept('rows', rowsState, read)).toBe(true);

		KEPT_LIMITS.entries = withRows + plain;
		const other = keep('plain', memory, read);
		expect(keptMemories()).toEqual({ triggers: 2, entries: withRows + plain });
		keep('third', memory, read); // over the bound: the least recently polled ('rows') goes
		expect(keptMemories()).toEqual({ triggers: 2, entries: 2 * plain });
		expect(isKept('rows', rowsState, read)).toBe(false);
		expect(isKept('plain', other, read)).toBe(true);
	});

	it('drops a memory not polled for KEPT_LIMITS.idleMs (n8n does not tell a node it was unpublished)', async () => {
		const { memory, read } = await aMemory();
		const now = jest.spyOn(Date, 'now');
		try {
			now.mockReturnValue(1_000_000);
			const idle = keep('idle', memory, read);
			now.mockReturnValue(1_000_000 + KEPT_LIMITS.idleMs);
			const busy = keep('busy', memory, read);
			expect(keptMemories().triggers).toBe(2); // idle exactly the limit: kept
			now.mockReturnValue(1_000_000 + KEPT_LIMITS.idleMs + 1);
			keep('other', memory, read);
			expect(isKept('idle', idle, read)).toBe(false);
			expect(isKept('busy', busy, read)).toBe(true);
		} finally {
			now.mockRestore();
		}
	});

	it('a memory dropped is decoded again from its state: the same memory', async () => {
		const { memory, read } = await aMemory();
		KEPT_LIMITS.triggers = 1;
		const state = keep('first', memory, read);
		keep('second', memory, read);
		const again = takeMemory('first', state, read);
		expect(again.kept).toBeUndefined();
		expect(again.memory).toBeDefined();
		const written = keep('first', again.memory as TriggerMemory, read);
		// the same state but for the write's token
		expect(written.g).not.toBe(state.g);
		expect(JSON.parse(JSON.stringify({ ...written, g: null }))).toEqual(JSON.parse(JSON.stringify({ ...state, g: null })));
	});
});
