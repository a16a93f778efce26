/**
 * The held drafts: open sessions the horizon's floor passed before their event time, while a backlog
 * is drained (horizon.ts says when), stored as hashed id and `updated_at` only and judged later on a
 * fresh read of just their pages, like any session at the horizon (a held draft saved or completed
 * meanwhile is judged where it is now) — or, in the process that held them and while its memory goes
 * on, on the rows it read then (heldRows.ts: when that is the same as a fresh read; never stored). A
 * window over just these sessions; absent when none is held. Event time: `updated_at` + the delay.
 */
import type { PageObservation } from '../model/pages';
import { isCount, isMsKey, isRecord, readPacked } from '../state/checks';
import type { PackedKeys } from '../state/keySet';
import { KeySet } from '../state/keySet';
import { belowOf, nextWindow, openFrom } from './advance';
import { afterPoll, serveRows } from './heldRows';
import { isStop } from './coverage';
import { decodeWindow, encodeWindow, readWindow } from './stored';
import type { Candidate, Coverage, RowsRead, WindowKind, WindowMemory, WindowOutcome, WindowState } from './window';

/** At most this many open sessions are held: 2,000 codes are about 50 kB of static data. */
export const HELD_LIMIT = 2_000;

export interface HeldMemory extends WindowMemory {
	readonly codes: KeySet;
	/** Sessions at or below the newest held one, counted from the end (where its pages start). */
	readonly topBelow?: number;
	/** Their rows as read, in this process's memory only (heldRows.ts); undefined in a memory decoded from the state. */
	readonly rows?: RowsRead;
}

export interface HeldState extends WindowState {
	codes: PackedKeys;
	topBelow?: number;
}

/** What the horizon hands on when its floor passes open drafts in this poll. */
export interface HeldHandOn {
	/** The drafts held now. */
	added: KeySet;
	/** The horizon's coverage in this poll (it places the held sessions in the list). */
	coverage: Coverage | undefined;
}

interface HeldInput {
	previous: HeldMemory | undefined;
	/** The held window's outcome in this poll (undefined when none was held). */
	outcome: WindowOutcome | undefined;
	handled: Candidate[];
	limit: number;
	from: HeldHandOn | undefined;
	pages: PageObservation[];
}

/**
 * The held sessions after this poll: those of the previous memory not yet judged (above the held
 * window's new floor and not handled) and the ones the horizon's floor passed now.
 */
function nextHeld(input: HeldInput): HeldMemory | undefined {
	const { outcome, from } = input;
	const added = from?.added ?? new KeySet();
	let codes = new KeySet();
	let window: WindowMemory | undefined;
	if (outcome?.window.only) {
		window = nextWindow(outcome, input.handled, input.limit, input.pages);
		codes = outcome.window.only.aboveWithout(window.floor, window.done);
	}
	codes.merge(added);
	const span = codes.span();
	if (!span) return undefined;
	if (!window || window.floor >= span.min) {
		// The oldest held session came from this poll's read of the horizon: the floor lies just below it.
		const start = { floor: span.min - 1, done: new KeySet() };
		const below = belowOf(from?.coverage, (entry) => isStop(start, entry.time, entry.item), undefined);
		window = { ...start, ...(below !== undefined ? { below } : {}) };
	}
	const topBelow = added.size > 0 ? belowOf(from?.coverage, (entry) => entry.time <= span.max, undefined) : input.previous?.topBelow;
	const rows = afterPoll({ previous: input.previous?.rows, codes, read: added.size > 0 ? (from?.coverage?.items ?? []) : [], pages: input.pages });
	return { ...window, codes, ...(topBelow !== undefined ? { topBelow } : {}), ...(rows ? { rows } : {}) };
}

/** The stored held drafts, checked; undefined when malformed. */
function readHeld(raw: unknown): HeldState | undefined {
	const window = readWindow(raw);
	const codes = isRecord(raw) ? readPacked(raw.codes, isMsKey) : undefined;
	const topBelow = isRecord(raw) ? raw.topBelow : undefined;
	if (!window || !codes || !isCount(topBelow)) return undefined;
	return { ...window, codes, ...(topBelow !== undefined ? { topBelow: topBelow as number } : {}) };
}

export const heldWindow: WindowKind<HeldMemory, HeldState> = {
	name: 'held',
	list: 'sessions',
	order: 0,
	atTop: false,
	edge: true,
	keptWhileUnread: false,
	required: false,
	open: (memory, poll) => {
		const span = memory.codes.span();
		if (!span) return undefined;
		const window = openFrom(memory, { name: 'held', list: 'sessions', hi: span.max, offset: poll.offset });
		return { ...window, only: memory.codes, ...(memory.topBelow !== undefined ? { hiBelow: memory.topBelow } : {}), ...(memory.rows ? { rows: memory.rows } : {}) };
	},
	advance: (step) => ({
		memory: nextHeld({ previous: step.previous, outcome: step.outcome, handled: step.handled, limit: step.limit, from: step.handedOn.get('horizon') as HeldHandOn | undefined, pages: step.pages }),
	}),
	read: readHeld,
	decode: (state) => {
		const { codes, topBelow, ...window } = state;
		return { ...decodeWindow(window), codes: KeySet.decode(codes), ...(topBelow !== undefined ? { topBelow } : {}) };
	},
	encode: (memory) => ({ ...encodeWindow(memory), codes: memory.codes.encode(), ...(memory.topBelow !== undefined ? { topBelow: memory.topBelow } : {}) }),
	serveRows,
};
