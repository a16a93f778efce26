/**
 * What a window is: a range of one list's order that the trigger brings up to date each poll, its
 * memory between polls, and what each window declares (windows/<name>.ts; windows/index.ts lists them).
 * Pure types.
 */
import type { ListItem, ListName, Located, PageObservation, Run } from '../model/pages';
import type { KeySet, PackedKeys } from '../state/keySet';

/** What the trigger keeps of a window between polls (its module encodes it: stored.ts). */
export interface WindowMemory {
	/** Every item at or below this sort time has been handled. */
	readonly floor: number;
	/** Ids handled above the floor (late rows at the top, part of a tie group being drained). */
	readonly done: KeySet;
	/** While a tie group larger than one poll is drained from its bottom: its timestamp. */
	readonly tie?: number;
	/** Items at or below the floor, counted from the end of the list (a hint for where it lies). */
	readonly below?: number;
	/** When `below` is not known: at most this many items lie at or below the floor. */
	readonly deeper?: number;
}

/** A window as the state stores it (stored.ts reads and writes it). */
export interface WindowState {
	floor: number;
	done: PackedKeys;
	tie?: number;
	below?: number;
	deeper?: number;
}

/** What a run proves about a window (coverage.ts). */
export interface Coverage {
	run: Run;
	/** Every window item with a sort time in (floor, upper] was read by the run (upper ≤ hi). */
	upper: number;
	/** The run covers the whole window (upper reached hi, or the run started at page 1). */
	complete: boolean;
	/**
	 * Items read by the run above its stop: floor < time ≤ upper, or == partial; for a run from page 1 also
	 * those above upper whose timestamps are ahead of the server's clock.
	 */
	items: Located[];
	/** A tie group larger than the run, drained from the bottom: its timestamp (upper is then the floor). */
	partial?: number;
	/** Where the run stopped: the stop item, or undefined for the end of the list. */
	stop?: Located;
	/** Built from rows kept in this process (WindowKind `serveRows`), not from a run of this poll: it places nothing in the list. */
	kept?: true;
}

/** An item's row as a poll read it, kept in this process for a window (WindowKind `serveRows`), and whether the item was read since at another sort time (moved). */
export interface RowRead {
	readonly located: Located;
	readonly moved: boolean;
}

/** A window's rows by item id: one for every item the window holds, or none kept. */
export type RowsRead = ReadonlyMap<string, RowRead>;

/**
 * A window of one list to bring up to date in this poll: its memory (handled up to `floor`, the
 * exclusive lower bound) and what this poll adds to it.
 */
export interface Window extends WindowMemory {
	name: string;
	list: ListName;
	/** Upper bound (inclusive): +∞ for windows at the top of the list, now − delay for the horizon. */
	hi: number;
	/** Event time of an item = its sort time + offset (0, or the abandonment delay). */
	offset: number;
	/** Items at or below `hi`, counted from the end (a hint for where a run over the window starts). */
	hiBelow?: number;
	/** Only these items (by timestamp and id) are the window's events (a window over items it holds). */
	only?: KeySet;
	/** The rows of `only` kept in this process since they were read (WindowKind `serveRows`), when there is one for each. */
	rows?: RowsRead;
}

/** An item a window found in this poll: a possible event, judged by the events that judge the window (events/). */
export interface Candidate {
	window: string;
	id: string;
	/** Sort time of the item in its list. */
	time: number;
	/** Event time. */
	at: number;
	/** The freshest copy read in this poll. */
	item: ListItem;
	/** Part of a tie group drained from its bottom (allowed one millisecond past the frontier). */
	partial: boolean;
}

/** What the pages read in a poll prove about one window. */
export interface WindowOutcome {
	window: Window;
	coverage?: Coverage;
	/** Items with a sort time up to here are all known (>= the floor). */
	upper: number;
	complete: boolean;
}

/** Where a window starts when its list is read again or an event that reads it is added: the last poll, and its offset. */
export interface WindowStart {
	polledAt: number;
	offset: number;
}

/** What a window's `open` sees. */
export interface WindowPoll {
	/** The poll's time on the API server's clock. */
	now: number;
	/** Whether a selected event needs the window read (events/ `windows`). */
	needed: boolean;
	/** Event time of its items = sort time + this (the event that judges it says: events/ `offset`). */
	offset: number;
}

/** What a window's `advance` sees: its part of the poll, and the poll's other windows. */
export interface WindowStep<M extends WindowMemory = WindowMemory> {
	/** Its memory before this poll (undefined: none). */
	previous: M | undefined;
	/** What the poll's reads prove about it (undefined: not read in this poll). */
	outcome: WindowOutcome | undefined;
	/** Its candidates the poll handled. */
	handled: Candidate[];
	/** How far its floor may move: the frontier less its offset and, at the top of a list, the late rows' margin. */
	limit: number;
	pages: PageObservation[];
	/** The outcome of another window in this poll. */
	outcomeOf(name: string): WindowOutcome | undefined;
	/** What the windows advanced before it in this poll handed on, by their name (the drafts the horizon holds). */
	handedOn: ReadonlyMap<string, unknown>;
}

/** A window's memory after this poll, and what it hands on to the windows advanced after it. */
export interface Advanced<M extends WindowMemory = WindowMemory> {
	memory: M | undefined;
	handOn?: unknown;
}

/**
 * A window of the trigger, declared in one place (windows/<name>.ts): its name, the list it reads,
 * when it is read, how it moves on, where the first poll places it and how it is stored. The rules,
 * the planner and the codec go through windows/index.ts and name no window.
 */
export interface WindowKind<M extends WindowMemory = WindowMemory, S extends WindowState = WindowState> {
	name: string;
	list: ListName;
	/** The order of its events among equal event times (lower first). */
	order: number;
	/** Read from page 1 downward (its upper bound is +∞). */
	atTop: boolean;
	/** Its floor stays EDGE_WINDOW_MS below its list's read of page 1 (rows committed late). */
	edge: boolean;
	/**
	 * Its memory is in the state whenever its list's is, also while no selected event reads it (then its
	 * floor stands still): it starts again from the last poll when an event that reads it is added.
	 */
	keptWhileUnread: boolean;
	/** Whether a state that keeps its list must hold it (false: only while it has something to keep). */
	required: boolean;
	/** The window of this poll from its memory; undefined when it is not read in this poll. */
	open(memory: M, poll: WindowPoll): Window | undefined;
	/** Its memory after this poll (undefined: it keeps nothing). */
	advance(step: WindowStep<M>): Advanced<M>;
	/** Its memory after the first poll (undefined: it starts with nothing); `offset` as in WindowPoll. */
	baseline?(pages: PageObservation[], now: number, offset: number): M;
	/**
	 * Its floor at the first poll, when the planner must read down to it: a window at the top of a list
	 * reads page 1 on down to it (the rows of the edge), another finds it by a search.
	 */
	baselineFloor?(now: number, offset: number, pages: PageObservation[]): number;
	/** Its stored form when its list is read again, or an event that reads it is added: from the last poll. */
	start?(from: WindowStart): S;
	/** Its stored form, checked (undefined: malformed). */
	read(raw: unknown): S | undefined;
	decode(state: S): M;
	encode(memory: M): S;
	/**
	 * A window judged on rows kept in this process (`rows`: never in the state, a memory decoded from it
	 * has none): its outcome in this poll, judged on them when they stand for a fresh read of its pages;
	 * `top` is the outcome of the window at the top of its list (undefined: none in this poll).
	 */
	serveRows?(outcome: WindowOutcome, top: WindowOutcome | undefined): WindowOutcome;
}
