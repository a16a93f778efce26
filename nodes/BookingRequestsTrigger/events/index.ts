/**
 * The events the trigger can start a workflow on (events/kind.ts: what each declares). Adding one:
 * CONTRIBUTING.md "Adding an event".
 */
import type { BookingRequest, BookingSession } from '../../shared/types';
import type { EventBase } from '../model/event';
import type { ListName } from '../model/pages';
import type { BaseSettings } from '../model/settings';
import { WINDOW_KINDS, windowKind } from '../windows';
import type { EventKind } from './kind';
import type { RequestCreatedEvent } from './requestCreated';
import { requestCreated } from './requestCreated';
import type { RequestUpdatedEvent, UpdatedSettings } from './requestUpdated';
import { requestUpdated } from './requestUpdated';
import type { AbandonedSettings, SessionAbandonedEvent } from './sessionAbandoned';
import { sessionAbandoned } from './sessionAbandoned';
import type { CompletedSettings, SessionCompletedEvent } from './sessionCompleted';
import { sessionCompleted } from './sessionCompleted';
import type { SkipBookedSettings } from './skipBooked';

/**
 * The registry, checked when it loads: each event's value, letter (the state's record of the selected
 * events) and memory slot (its key in the state) are its own, and a window has at most one event that
 * moves its event times (`offset`: `windowOffsets` takes one).
 */
export function checkedKinds(kinds: readonly EventKind[]): readonly EventKind[] {
	const slots = kinds.flatMap((kind) => (kind.memory ? [kind.memory.slot] : []));
	const offsetWindows: string[] = kinds.flatMap((kind) => (kind.offset ? kind.judges : []));
	for (const [what, values] of [['value', kinds.map((kind) => kind.value)], ['name', kinds.map((kind) => kind.name)], ['letter', kinds.map((kind) => kind.letter)], ['memory slot', slots], ['offset of the window', offsetWindows]] as const) {
		const twice = values.find((value, i) => values.indexOf(value) !== i);
		if (twice !== undefined) throw new Error(`Booking Requests Trigger: two events declare the ${what} "${twice}"`);
	}
	return kinds;
}

export const EVENT_KINDS = checkedKinds([sessionAbandoned, sessionCompleted, requestCreated, requestUpdated]);

/** The values of the node's Events parameter. */
export type EventValue = 'sessionAbandoned' | 'sessionCompleted' | 'requestCreated' | 'requestUpdated';

/** The settings of a poll: what every poll has, and each event's own options (the type its `read` returns). */
export type TriggerSettings = BaseSettings & { events: Readonly<Partial<Record<EventValue, boolean>>> } & AbandonedSettings & SkipBookedSettings & CompletedSettings & UpdatedSettings;

type KeysOf<T> = T extends unknown ? keyof T : never;
/** A union whose members also read the others' fields (as undefined), so that code over any event can ask for them. */
type Readable<T, K extends PropertyKey = KeysOf<T>> = T extends unknown ? T & { readonly [P in Exclude<K, keyof T>]?: undefined } : never;

/** An event of any kind (each event module declares its own). */
export type TriggerEvent = Readable<SessionAbandonedEvent | SessionCompletedEvent | RequestCreatedEvent | RequestUpdatedEvent>;

/** The kind of an event, by the item's `event`. */
export function kindOf(name: string): EventKind {
	return EVENT_KINDS.find((kind) => kind.name === name) as EventKind;
}

/** The selected kinds. */
export function selectedKinds(settings: TriggerSettings): EventKind[] {
	return EVENT_KINDS.filter((kind) => settings.events[kind.value] === true);
}

/** The events that judge a window's candidates, in EVENT_KINDS order (each gives a decision per candidate). */
export function judgesOf(window: string): EventKind[] {
	return EVENT_KINDS.filter((kind) => (kind.judges as readonly string[]).includes(window) && kind.judge !== undefined);
}

/** Each window's offset: the event time of its items after their sort time, as the event that judges it says (events/*: `offset`). */
export function windowOffsets(settings: TriggerSettings): Record<string, number> {
	return Object.fromEntries(WINDOW_KINDS.map((window) => [window.name, judgesOf(window.name).reduce((offset, kind) => offset || (kind.offset?.(settings) ?? 0), 0)]));
}

/** How many of the newest requests the selected events watch (the largest range: events/watched.ts reads it once); undefined: none. */
export function watchedRange(settings: TriggerSettings): number | undefined {
	const ranges = selectedKinds(settings).flatMap((kind) => kind.watches?.(settings) ?? []);
	return ranges.length > 0 ? Math.max(...ranges) : undefined;
}

/** The windows the selected events need read. */
export function windowsNeeded(settings: TriggerSettings): Set<string> {
	return new Set(selectedKinds(settings).flatMap((kind) => kind.windows(settings)));
}

/** What a poll reads and keeps: the lists of the windows needed (each read once for every window on it), and the selected events' own memories. */
export interface ListsRead {
	sessions: boolean;
	requests: boolean;
	/** The slots of the selected events' own memories in the state (events/*: `memory`). */
	memories?: readonly string[];
	/** Whether a selected event watches requests (events/watched.ts keeps where its rotation goes on). */
	watched?: boolean;
}

export function listsFor(settings: TriggerSettings): ListsRead {
	const lists = new Set<ListName>([...windowsNeeded(settings)].map((window) => windowKind(window).list));
	const memories = selectedKinds(settings).flatMap((kind) => (kind.memory ? [kind.memory.slot] : []));
	return { sessions: lists.has('sessions'), requests: lists.has('requests'), memories, watched: watchedRange(settings) !== undefined };
}

/** The selected events as the state records them (one letter each, in EVENT_KINDS order). */
export function eventLetters(settings: TriggerSettings): string {
	return selectedKinds(settings)
		.map((kind) => kind.letter)
		.join('');
}

/** The windows whose floor says which completed sessions the poll has yet to report (those of the events that attach a booking request to their items). */
export function attachingWindows(): string[] {
	return EVENT_KINDS.flatMap((kind) => (kind.attachTo ? [...kind.judges] : []));
}

/** The completed session whose booking request the event's item may need (events/*: `attachTo`). */
export function sessionToAttach(event: EventBase): BookingSession | undefined {
	return kindOf(event.event).attachTo?.(event);
}

/** Fetch Test Event: the samples of every selected event, from page 1 of the lists. */
export function pickSamples(sessions: BookingSession[] | undefined, requests: BookingRequest[] | undefined, now: number, settings: TriggerSettings): TriggerEvent[] {
	return selectedKinds(settings).flatMap((kind) => kind.samples({ sessions, requests, now }, settings)) as TriggerEvent[];
}
