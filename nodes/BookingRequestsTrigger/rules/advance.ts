/**
 * How each window moves on after a poll: its new floor, the ids handled above it, where the floor lies
 * in the list (`below`), and the open drafts the horizon holds for later. Pure.
 */
import { MAX_PER_PAGE } from '../../shared/constants';
import { isCompleted } from '../../shared/output/session';
import { isLastPage } from '../../shared/pages';
import { KeySet } from '../state/keySet';
import type { Located, PageObservation, ListName } from '../model/pages';
import { sortTime } from '../model/pages';
import type { Candidate, Coverage, HeldMemory, Window, WindowMemory } from '../model/windows';
import type { WindowOutcome } from './evaluate';

/** At most this many open sessions are held: 2,000 codes are about 50 kB of static data. */
export const HELD_LIMIT = 2_000;

/** Items at or below `time` counted from the end, from the latest page read that places the boundary. */
export function locatedBelow(pages: PageObservation[], list: ListName, time: number): number | undefined {
	for (const page of [...pages].filter((p) => p.list === list).sort((a, b) => b.seq - a.seq)) {
		if (page.total === undefined) continue;
		const index = page.items.findIndex((item) => {
			const at = sortTime(list, item);
			return at !== null && at <= time;
		});
		if (index < 0) {
			// Everything on the last page (or an empty list) is above: nothing lies below the boundary.
			if (isLastPage(page, page.items.length, (page.page - 1) * page.perPage)) return 0;
			continue;
		}
		// Only a page that starts above the boundary (or page 1) places it exactly.
		if (index === 0 && page.page > 1) continue;
		return Math.max(0, page.total - ((page.page - 1) * page.perPage + index));
	}
	return undefined;
}

/** Items at or below a boundary counted from the end of the list, from the run that covered the window. */
function belowOf(coverage: Coverage | undefined, isBelow: (entry: Located) => boolean, fallback: number | undefined): number | undefined {
	if (!coverage) return fallback;
	for (const page of coverage.run.pages) {
		for (const [i, item] of page.items.entries()) {
			const time = sortTime(coverage.run.list, item);
			if (time === null) continue;
			const entry = { item, time, page, index: (page.page - 1) * page.perPage + i };
			if (isBelow(entry)) return page.total === undefined ? fallback : Math.max(0, page.total - entry.index);
		}
	}
	// The run ended at the end of the list: nothing lies below.
	return coverage.stop === undefined ? 0 : fallback;
}

/**
 * No run reached the floor of this window. The hint stays unless a page read lies wholly above the
 * floor yet deeper than the hint said; then where a search of this poll placed the floor, if it did;
 * else a bound: the floor lies below the deepest page read wholly above it.
 */
function hintWithoutCoverage(pages: PageObservation[], window: Window): { below?: number; deeper?: number } {
	let below = window.below;
	let deeper = window.deeper;
	for (const page of pages) {
		if (page.list !== window.list || page.total === undefined || page.items.length < page.perPage) continue;
		const times = page.items.map((item) => sortTime(page.list, item));
		if (times.some((time) => time === null || time <= window.floor)) continue;
		const bound = Math.max(0, page.total - page.page * page.perPage);
		if (below !== undefined && bound < below) below = undefined;
		if (deeper === undefined || bound < deeper) deeper = bound;
	}
	below ??= locatedBelow(pages, window.list, window.floor);
	return below !== undefined ? { below } : deeper !== undefined ? { deeper } : {};
}

/** A window's memory after this poll: handled up to `limit` at most, with the handled candidates. */
export function nextWindow(outcome: WindowOutcome, handled: Candidate[], limit: number, pages: PageObservation[]): WindowMemory {
	const { window, coverage } = outcome;
	if (!coverage) {
		return { floor: window.floor, done: window.done, ...(window.tie !== undefined ? { tie: window.tie } : {}), ...hintWithoutCoverage(pages, window) };
	}
	const floor = Math.max(window.floor, Math.min(outcome.upper, limit));
	const done = window.done.above(floor);
	let partial: number | undefined;
	for (const candidate of handled) {
		if (candidate.time <= floor) continue;
		done.add(candidate.time, candidate.id);
		if (candidate.partial) partial = candidate.time;
	}
	// Draining a tie group from its bottom (even when this run found nothing new in it): the handled
	// part of the group stops the next run, so the next poll reads only what lies above it.
	const draining = partial ?? (coverage.partial !== undefined && coverage.partial > floor ? coverage.partial : undefined);
	const tie = draining ?? (window.tie !== undefined && window.tie > floor ? window.tie : undefined);
	// Where the floor is now, from the run that reached it (also when it did not move: the hint may have been off).
	const below = belowOf(coverage, (entry) => entry.time <= floor || (tie !== undefined && entry.time === tie && done.has(entry.time, entry.item.id)), window.below);
	return { floor, done, ...(tie !== undefined ? { tie } : {}), ...(below !== undefined ? { below } : {}) };
}

/**
 * How far the horizon's floor may move past `limit` (the frontier minus the delay), over what the poll
 * read of the window. Sessions with a `request_id` (completed: no event) are passed. Open sessions wait
 * for their event time: the floor stops below the first one, unless holding them saves pages (at least
 * a page of passed sessions besides their own span, at most `room` of them, and none held from before):
 * then they are held (hashed id and `updated_at`) and judged later on a fresh read of their own pages.
 * So a backlog is not read a second time, a delay later, for the abandonments it holds: only their
 * pages are.
 */
export function holdFurther(outcome: WindowOutcome, limit: number, room: number): { bound: number; held: KeySet } {
	const held = new KeySet();
	const { coverage, window } = outcome;
	if (!coverage || coverage.partial !== undefined || outcome.upper <= limit) return { bound: limit, held };
	const above = coverage.items.filter((entry) => entry.time > limit && entry.time <= outcome.upper).sort((a, b) => a.time - b.time);
	const waits = (entry: Located) => !isCompleted(entry.item) && !window.done.has(entry.time, entry.item.id);
	const first = above.findIndex(waits);
	if (first < 0) return { bound: outcome.upper, held };
	let last = first;
	for (let i = first; i < above.length; i++) if (waits(above[i])) last = i;
	const open = above.filter(waits);
	// Held only when it saves pages: the floor passes at least a page of sessions outside the held span
	// (the span itself is read again either way).
	if (open.length > room || above.length - (last - first + 1) < MAX_PER_PAGE) return { bound: Math.max(limit, above[first].time - 1), held };
	// Every session up to `upper` is passed or held, so the floor moves there.
	for (const entry of open) held.add(entry.time, entry.item.id);
	return { bound: outcome.upper, held };
}

export interface HeldInput {
	previous: HeldMemory | undefined;
	/** The held window's outcome in this poll (undefined when none was held). */
	outcome: WindowOutcome | undefined;
	handled: Candidate[];
	limit: number;
	/** Sessions the horizon's floor passed in this poll, held now (holdFurther). */
	added: KeySet;
	/** The horizon's coverage in this poll (it places the held sessions in the list). */
	horizon: Coverage | undefined;
	pages: PageObservation[];
}

/**
 * The held sessions after this poll: those of the previous memory not yet judged (above the held
 * window's new floor and not handled) and the ones the horizon's floor passed now.
 */
export function nextHeld(input: HeldInput): HeldMemory | undefined {
	const { outcome, added, horizon } = input;
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
		const floor = span.min - 1;
		const below = belowOf(horizon, (entry) => entry.time <= floor, undefined);
		window = { floor, done: new KeySet(), ...(below !== undefined ? { below } : {}) };
	}
	const topBelow = added.size > 0 ? belowOf(horizon, (entry) => entry.time <= span.max, undefined) : input.previous?.topBelow;
	return { ...window, codes, ...(topBelow !== undefined ? { topBelow } : {}) };
}
