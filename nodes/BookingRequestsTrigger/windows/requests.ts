/**
 * The request window: booking requests created since the last poll, from the top of the request list
 * (newest first by `created_at`). New Request's events, the bookings Skip Customers Who Booked counts,
 * and which requests Request Updated may watch (their creation is handled). Event time: `created_at`.
 */
import { edgeFloor } from '../model/pages';
import { baselineAtTop, nextWindow, openFrom } from './advance';
import { decodeWindow, encodeWindow, readWindow, startAt } from './stored';
import type { WindowKind } from './window';

export const requestsWindow: WindowKind = {
	name: 'requests',
	list: 'requests',
	order: 2,
	atTop: true,
	edge: true,
	keptWhileUnread: false,
	required: true,
	open: (memory, poll) => (poll.needed ? openFrom(memory, { name: 'requests', list: 'requests', hi: Infinity, offset: 0 }) : undefined),
	advance: (step) => ({ memory: step.outcome && nextWindow(step.outcome, step.handled, step.limit, step.pages) }),
	baseline: (pages, now) => baselineAtTop(pages, 'requests', now),
	baselineFloor: (now, _offset, pages) => edgeFloor(pages, 'requests', now),
	start: (from) => startAt(from.polledAt),
	read: readWindow,
	decode: decodeWindow,
	encode: encodeWindow,
};
