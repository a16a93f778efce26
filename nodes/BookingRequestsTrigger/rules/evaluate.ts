/**
 * What the pages read in a poll prove: the windows of the poll (from the memory), how far each is
 * covered, the frontier, and the candidates up to it in event order. Pure: no I/O, no clock (`now` is
 * the API server's time).
 *
 * Event time: `created_at` (request), `updated_at` (completion), `updated_at` + delay (abandonment).
 * Events come oldest first, also across polls: when a window could not be read to its top in this poll
 * (the poll budget), no window emits past the lowest point every window has reached (the frontier).
 */
import { judgesOf, windowOffsets, windowsNeeded } from '../events';
import type { ListItem, ListName, PageObservation, Run } from '../model/pages';
import { readBounds, runsOf, sortTime } from '../model/pages';
import type { TriggerSettings } from '../events';
import type { TriggerMemory } from '../state/decoded';
import { WINDOW_KINDS, windowKind } from '../windows';
import { coverageOf } from '../windows/coverage';
import type { Candidate, Window, WindowOutcome } from '../windows/window';

/** The windows to bring up to date in a poll at server time `now` (each window says when it is read). */
export function windowsOf(memory: TriggerMemory, settings: TriggerSettings, now: number): Window[] {
	const needed = windowsNeeded(settings);
	const offsets = windowOffsets(settings);
	return WINDOW_KINDS.flatMap((kind) => {
		const own = memory.windows[kind.name];
		const window = own && kind.open(own, { now, needed: needed.has(kind.name), offset: offsets[kind.name] });
		return window ? [window] : [];
	});
}

export interface Evaluation {
	now: number;
	outcomes: WindowOutcome[];
	/** Event time up to which every window is known: events after it wait (+∞ when all windows are complete). */
	frontier: number;
	/** Items to handle, in event order (only those up to the frontier). */
	candidates: Candidate[];
	pages: PageObservation[];
}

export function compareCandidates(a: Candidate, b: Candidate): number {
	return a.at - b.at || windowKind(a.window).order - windowKind(b.window).order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The newest copy of each item read in this poll (highest sort time; on equal, the later read). */
function freshestCopies(pages: PageObservation[], list: ListName): Map<string, { item: ListItem; time: number | null }> {
	const copies = new Map<string, { item: ListItem; time: number | null }>();
	for (const page of [...pages].filter((p) => p.list === list).sort((a, b) => a.seq - b.seq)) {
		for (const item of page.items) {
			const time = sortTime(list, item);
			const known = copies.get(item.id);
			if (!known || (time ?? -Infinity) >= (known.time ?? -Infinity)) copies.set(item.id, { item, time });
		}
	}
	return copies;
}

export function outcomeOf(window: Window, runs: Run[], bounds: Map<number, number>): WindowOutcome {
	if (window.hi <= window.floor) return { window, upper: window.floor, complete: true };
	const coverage = coverageOf(window, runs, bounds);
	if (!coverage) return { window, upper: window.floor, complete: false };
	return { window, coverage, upper: coverage.upper, complete: coverage.complete };
}

type Fresh = Record<ListName, Map<string, { item: ListItem; time: number | null }>>;

/** The candidates a covered window brings, up to the frontier (a tie group's bottom one ms past it). */
function candidatesOf(outcome: WindowOutcome, fresh: Fresh, frontier: number): Candidate[] {
	const { window, coverage, upper } = outcome;
	if (!coverage || judgesOf(window.name).length === 0) return [];
	const candidates: Candidate[] = [];
	const taken = new Set<string>();
	for (const entry of coverage.items) {
		if (taken.has(entry.item.id) || window.done.has(entry.time, entry.item.id)) continue;
		if (window.only && !window.only.has(entry.time, entry.item.id)) continue;
		taken.add(entry.item.id);
		// Not read in this poll: a row kept in this process (windows/window.ts `serveRows`), unchanged since it was read.
		const newest = fresh[window.list].get(entry.item.id) ?? (coverage.kept ? { item: entry.item, time: entry.time } : undefined);
		// The item moved (saved, completed) after this copy was read: it is judged where it is now.
		if (!newest || newest.time !== entry.time) continue;
		const partial = coverage.partial !== undefined && entry.time === coverage.partial;
		const at = entry.time > upper && !partial ? frontier : entry.time + window.offset;
		if (partial ? at > frontier + 1 : at > frontier) continue;
		candidates.push({ window: window.name, id: entry.item.id, time: entry.time, at, item: newest.item, partial });
	}
	return candidates;
}

/**
 * The outcomes with each window that keeps rows in this process judged on them when they serve: its
 * module says when (windows/window.ts `serveRows`), from the outcome of the window at the top of its list.
 */
function servedOutcomes(outcomes: WindowOutcome[]): WindowOutcome[] {
	return outcomes.map((outcome) => {
		const kind = windowKind(outcome.window.name);
		if (!kind.serveRows) return outcome;
		const top = outcomes.find((other) => other.window.list === outcome.window.list && windowKind(other.window.name).atTop);
		return kind.serveRows(outcome, top);
	});
}

/** What the pages read prove about each window; a window on its rows kept in this process when they serve. */
export function outcomesOf(windows: Window[], pages: PageObservation[], fallbackNow: number): WindowOutcome[] {
	const runs = { sessions: runsOf(pages, 'sessions'), requests: runsOf(pages, 'requests') };
	const bounds = readBounds(pages, fallbackNow);
	return servedOutcomes(windows.map((window) => outcomeOf(window, runs[window.list], bounds)));
}

/**
 * What the pages read in a poll prove. The frontier is the lowest event time up to which every window
 * is known: a window read from page 1 up to the time of that read, the horizon up to now, a window
 * read from its oldest part up to where the run started. Items with a timestamp ahead of the server's
 * clock (more than a second past its `Date` header) count as happening at the frontier.
 */
export function evaluate(windows: Window[], pages: PageObservation[], now: number, fallbackNow = now): Evaluation {
	const outcomes = outcomesOf(windows, pages, fallbackNow);
	let frontier = Infinity;
	// The held window ends at its newest held session: read through, it holds nobody back.
	for (const outcome of outcomes) frontier = Math.min(frontier, outcome.complete && outcome.window.only ? Infinity : outcome.upper + outcome.window.offset);
	const fresh: Fresh = { sessions: freshestCopies(pages, 'sessions'), requests: freshestCopies(pages, 'requests') };
	const candidates = outcomes.flatMap((outcome) => candidatesOf(outcome, fresh, frontier)).sort(compareCandidates);
	return { now, outcomes, frontier, candidates, pages };
}
