/**
 * What the property tests keep per event (the arbitrary of its options, the oracle's rule), looked up
 * by the events the trigger registers (events/index.ts `EVENT_KINDS`). An event registered without an
 * entry is refused with its name, so that an added event cannot go unfuzzed or unjudged.
 */
import { EVENT_KINDS } from '../../nodes/BookingRequestsTrigger/events';

/** What the tests need of a registered event. */
export interface RegisteredEvent {
	/** Its value in the node's Events parameter (and its flag in the settings' `events`). */
	value: string;
	/** The item's `event`. */
	name: string;
	words: { name: string };
}

/** The trigger's events, in the registry's order. */
export const REGISTERED: readonly RegisteredEvent[] = EVENT_KINDS;

/** Each event's entry in `table` (keyed by the event's value), in the registry's order; throws, naming the first event without one. */
export function perEvent<T>(table: Readonly<Record<string, T>>, kinds: readonly RegisteredEvent[], missing: (event: string) => string): Array<[RegisteredEvent, T]> {
	return kinds.map((kind) => {
		if (!Object.hasOwn(table, kind.value)) throw new Error(missing(`"${kind.value}" (${kind.words.name}, item event "${kind.name}")`));
		return [kind, table[kind.value]];
	});
}

/** Whether the settings select the event. */
export function isSelected(events: object, kind: RegisteredEvent): boolean {
	return (events as Record<string, boolean | undefined>)[kind.value] === true;
}
