/**
 * Which candidates are events: each judged by the events that judge its window (events/; one decision
 * per event and candidate), in event order, with the customers' memory applied as it goes (once per
 * session, who booked, who was reminded).
 */
import type { Decision } from '../events/context';
import { judgeContext } from '../events/context';
import type { TriggerSettings } from '../events';
import { judgesOf } from '../events';
import type { EventKind } from '../events/kind';
import type { EventBase } from '../model/event';
import type { CustomerMemories } from '../state/decoded';
import type { Evaluation } from './evaluate';

/** Each candidate's decisions, one per event that judges its window; `memories`: the events' own memories before the poll; `shared`: phones found shared in its bookings. */
export function decide(memory: { customers: CustomerMemories; memories: Readonly<Record<string, unknown>>; shared: ReadonlySet<string> }, evaluation: Evaluation, settings: TriggerSettings): Decision[] {
	const context = judgeContext({ ...memory, pages: evaluation.pages, now: evaluation.now, settings });
	const own = (kind: EventKind) => (kind.memory ? memory.memories[kind.memory.slot] : undefined);
	return evaluation.candidates.flatMap((candidate) => judgesOf(candidate.window).map((kind) => ({ ...(kind.judge as NonNullable<typeof kind.judge>)(candidate, context, own(kind)), by: kind.value })));
}

/** The windows' events and the watched requests' events, one list by event time (each already in that order). */
export function mergeByTime<E extends EventBase>(events: E[], updates: E[]): E[] {
	if (updates.length === 0) return events;
	const merged: E[] = [];
	let j = 0;
	for (const event of events) {
		while (j < updates.length && updates[j].at < event.at) merged.push(updates[j++]);
		merged.push(event);
	}
	return merged.concat(updates.slice(j));
}
