/**
 * The horizon: sessions whose last activity (`updated_at`) crossed now − Abandoned After since the last
 * poll, read where they are in the session list (usually deep in it: below everyone active within the
 * delay). Session Abandoned judges them on the copy read now. Read whenever the session list is kept
 * (abandonments are always judged, so that `recovered` tells the truth whichever events are selected).
 * Event time: `updated_at` + the delay.
 */
import { MAX_PER_PAGE } from '../../shared/constants';
import { isCompleted } from '../../shared/output/session';
import type { Located } from '../model/pages';
import { KeySet } from '../state/keySet';
import { baselineAt, nextWindow, openFrom } from './advance';
import type { HeldHandOn } from './held';
import { HELD_LIMIT } from './held';
import { decodeWindow, encodeWindow, readWindow, startAt } from './stored';
import type { WindowKind, WindowOutcome } from './window';

/**
 * How far the horizon's floor may move past `limit` (the frontier minus the delay), over what the poll
 * read of the window. Sessions with a `request_id` (completed: no event) are passed. Open sessions wait
 * for their event time: the floor stops below the first one, unless holding them saves pages (at least
 * a page of passed sessions besides their own span, at most `room` of them, and none held from before):
 * then they are held (hashed id and `updated_at`: held.ts) and judged later on a fresh read of their
 * own pages, or, in the process that held them, on the rows read now (heldRows.ts). So a backlog is not read a second time, a delay later, for the abandonments it holds: only
 * their pages are.
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

export const horizonWindow: WindowKind = {
	name: 'horizon',
	list: 'sessions',
	order: 0,
	atTop: false,
	edge: false,
	keptWhileUnread: false,
	required: true,
	// The sessions whose event time (last activity + offset: Session Abandoned's delay) has come.
	open: (memory, poll) => openFrom(memory, { name: 'horizon', list: 'sessions', hi: poll.now - poll.offset, offset: poll.offset }),
	advance: (step) => {
		if (!step.outcome) return { memory: undefined };
		// New sessions are held only when none is held from before (one span of pages to read again).
		const further = holdFurther(step.outcome, step.limit, step.outcomeOf('held') ? 0 : HELD_LIMIT);
		const handOn: HeldHandOn = { added: further.held, coverage: step.outcome.coverage };
		return { memory: nextWindow(step.outcome, step.handled, further.bound, step.pages), handOn };
	},
	// Nothing to remember at the horizon: only sessions that cross it from now on are reported.
	baseline: (pages, now, offset) => baselineAt(pages, 'sessions', now - offset),
	baselineFloor: (now, offset) => now - offset,
	start: (from) => startAt(from.polledAt - from.offset),
	read: readWindow,
	decode: decodeWindow,
	encode: encodeWindow,
};
