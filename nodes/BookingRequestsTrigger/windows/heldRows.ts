/**
 * The held drafts' rows (held.ts): the session rows the horizon read when it held them, kept in this
 * process's memory between polls (never in the state: only in the memory poll/memory.ts keeps while the
 * stored state is the one this process wrote).
 * A poll that starts with them judges the held window on them instead of reading its pages again, when
 * that is the same as a fresh read. Pure: a new value every poll, nothing given is changed.
 *
 * Why the rows stand for a fresh read. The contract changes a session in two ways: a save changes
 * `data`, `step` and `updated_at` and "the session moves to the top of the list"; a completion sets
 * `request_id` (the trigger assumes `updated_at` moves then too: CONTRIBUTING's known limitations).
 * So a held session that still has the `updated_at` it was held with is the row kept, and a changed
 * one sits above every row at a newer `updated_at`, stamped after the read that held it; as rows are
 * visible within EDGE_WINDOW_MS of their stamp, it lies above the floor the top window of the session
 * list (completions) was left at by the poll that held it (that floor stays EDGE_WINDOW_MS below the
 * poll's read of page 1, made before any deeper page).
 * - The rows serve only in a poll whose top window is read from page 1 down to its floor (`serveRows`;
 *   otherwise the held pages are read, as in a process that restarted). That read sees every row above
 *   the floor, so a held session changed before this poll's read of page 1 is read there at its new
 *   `updated_at`, and the judges skip its kept row (rules/evaluate.ts: an item whose freshest copy in
 *   the poll has another sort time is judged where it is now). A change after that read is one a fresh
 *   read of the held pages, made later in the poll, could have missed too: the rows are the held
 *   sessions as of this poll's read of page 1, the moment the poll judges everything else at.
 * - Rows read in the polls between the one that held them and the one that uses them: a changed
 *   session read by one of them but above the top window's floor is read again by the poll that uses
 *   the rows. Its floor passes a row only when the frontier does (rules/next.ts), and the frontier past
 *   the change (newer than every held draft's event time: a draft is held only once its abandonment is
 *   due) has every held draft judged in that poll, unless the poll stopped handling before them, which
 *   stops the floors there too. Every session row read in any poll still marks a held row with its id
 *   and another `updated_at` moved (`afterPoll`), so this does not rest on the frontier alone.
 * A poll that writes no memory (nothing read) leaves the kept memory and the stored state as they were.
 * Whatever breaks the chain (a restart, a lost save, another main, an edited workflow: a memory decoded
 * from the state) has no rows, and the held pages are read again. Rows for every held session or none:
 * a held session without a row (a code collision, a session the poll could not place) means the pages
 * are read.
 */
import type { Located, PageObservation } from '../model/pages';
import { sortTime } from '../model/pages';
import type { KeySet } from '../state/keySet';
import type { Coverage, RowRead, RowsRead, Window, WindowOutcome } from './window';

/** A row without the page it was read on (the page's other rows are not kept). */
function strip(located: Located, pages: Map<PageObservation, PageObservation>): Located {
	let page = pages.get(located.page);
	if (!page) pages.set(located.page, (page = { ...located.page, items: [] }));
	return { item: located.item, time: located.time, page, index: located.index };
}

/** The `updated_at` of each session read in this poll, by id (every copy: a session read twice at two times moved). */
function timesRead(pages: PageObservation[]): Map<string, number[]> {
	const times = new Map<string, number[]>();
	for (const page of pages) {
		if (page.list !== 'sessions') continue;
		for (const item of page.items) {
			const time = sortTime('sessions', item);
			if (time === null) continue;
			const known = times.get(item.id);
			if (known) known.push(time);
			else times.set(item.id, [time]);
		}
	}
	return times;
}

interface RowsInput {
	/** The rows before this poll (undefined: none kept). */
	previous: RowsRead | undefined;
	/** The held sessions after this poll. */
	codes: KeySet;
	/** Rows the horizon read this poll (its coverage's items), for the sessions it held now. */
	read: readonly Located[];
	/** Every page read in this poll. */
	pages: PageObservation[];
}

/**
 * The rows after this poll: one per held session, each marked moved when a page of this poll read its
 * session at another `updated_at`; undefined unless every held session has one.
 */
export function afterPoll(input: RowsInput): RowsRead | undefined {
	const { codes } = input;
	const size = codes.size;
	if (size === 0) return undefined;
	const times = timesRead(input.pages);
	const rows = new Map<string, RowRead>();
	const keep = (located: Located, moved: boolean) => {
		if (!codes.has(located.time, located.item.id)) return;
		const seenAt = times.get(located.item.id) ?? [];
		rows.set(located.item.id, { located, moved: moved || seenAt.some((time) => time !== located.time) });
	};
	for (const row of input.previous?.values() ?? []) keep(row.located, row.moved);
	const stripped = new Map<PageObservation, PageObservation>();
	for (const located of input.read) if (!rows.has(located.item.id)) keep(strip(located, stripped), false);
	return rows.size === size ? rows : undefined;
}

/** The held window's outcome from its kept rows: every held session placed, the moved ones left out. */
function keptOutcome(window: Window & { rows: RowsRead }): WindowOutcome {
	const items = [...window.rows.values()].filter((row) => !row.moved && row.located.time > window.floor && row.located.time <= window.hi).map((row) => row.located);
	const coverage: Coverage = { run: { list: window.list, pages: [] }, upper: window.hi, complete: true, items, kept: true };
	return { window, coverage, upper: window.hi, complete: true };
}

/**
 * The held window's outcome judged on its kept rows when they serve: it was not read through, and the
 * top window of its list (`top`) was read from page 1 down to its floor in this poll.
 */
export function serveRows(outcome: WindowOutcome, top: WindowOutcome | undefined): WindowOutcome {
	const { window } = outcome;
	if (!window.rows || outcome.complete) return outcome;
	return top?.complete ? keptOutcome(window as Window & { rows: RowsRead }) : outcome;
}
