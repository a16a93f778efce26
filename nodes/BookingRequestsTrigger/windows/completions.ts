/**
 * The completions window: sessions that moved to the top of the session list since the last poll (a
 * new draft, a save, a completion: completing a booking moves the session there with a new
 * `updated_at`). Session Completed judges them. Read only while an event needs it (it costs pages in a
 * backlog); kept in the state with the session list's, so it starts again from the last poll when
 * Session Completed is added. Event time: `updated_at`.
 */
import { edgeFloor } from '../model/pages';
import { baselineAtTop, nextWindow, openFrom } from './advance';
import { decodeWindow, encodeWindow, readWindow, startAt } from './stored';
import type { WindowKind } from './window';

export const completionsWindow: WindowKind = {
	name: 'completions',
	list: 'sessions',
	order: 1,
	atTop: true,
	edge: true,
	keptWhileUnread: true,
	required: true,
	open: (memory, poll) => (poll.needed ? openFrom(memory, { name: 'completions', list: 'sessions', hi: Infinity, offset: 0 }) : undefined),
	advance: (step) => ({ memory: step.outcome ? nextWindow(step.outcome, step.handled, step.limit, step.pages) : step.previous }),
	baseline: (pages, now) => baselineAtTop(pages, 'sessions', now),
	baselineFloor: (now, _offset, pages) => edgeFloor(pages, 'sessions', now),
	start: (from) => startAt(from.polledAt),
	read: readWindow,
	decode: decodeWindow,
	encode: encodeWindow,
};
