/**
 * The two windows read from the top of a list, newest first, since the last poll:
 * - requests: booking requests created since then (`created_at`). New Request's events, the bookings
 *   Skip Customers Who Booked counts, and which requests Request Updated may watch (their creation is
 *   handled).
 * - completions: sessions that moved to the top of the session list (a new draft, a save, a completion:
 *   completing a booking moves the session there with a new `updated_at`). Session Completed judges
 *   them. Read only while an event needs it (it costs pages in a backlog); kept in the state with the
 *   session list's while unread, so it starts again from the last poll when Session Completed is added.
 */
import type { ListName } from '../model/pages';
import { edgeFloor } from '../model/pages';
import { baselineAtTop, nextWindow, openFrom } from './advance';
import { decodeWindow, encodeWindow, readWindow, startAt } from './stored';
import type { WindowKind } from './window';

function topOfList(name: string, list: ListName, order: number, keptWhileUnread: boolean): WindowKind {
	return {
		name,
		list,
		order,
		atTop: true,
		edge: true,
		keptWhileUnread,
		required: true,
		open: (memory, poll) => (poll.needed ? openFrom(memory, { name, list, hi: Infinity, offset: 0 }) : undefined),
		advance: (step) => ({
			memory: step.outcome ? nextWindow(step.outcome, step.handled, step.limit, step.pages) : keptWhileUnread ? step.previous : undefined,
		}),
		baseline: (pages, now) => baselineAtTop(pages, list, now),
		baselineFloor: (now, _offset, pages) => edgeFloor(pages, list, now),
		start: (from) => startAt(from.polledAt),
		read: readWindow,
		decode: decodeWindow,
		encode: encodeWindow,
	};
}

export const requestsWindow = topOfList('requests', 'requests', 2, false);
export const completionsWindow = topOfList('completions', 'sessions', 1, true);
