/**
 * The events the trigger can start a workflow on (events/kind.ts: what each declares). Adding one:
 * CONTRIBUTING.md "Adding an event".
 */
import type { BookingRequest, BookingSession } from '../../shared/types';
import type { EventName, TriggerEvent } from '../model/event';
import type { ListName } from '../model/pages';
import type { EventValue, TriggerSettings } from '../model/settings';
import { windowKind } from '../windows';
import type { EventKind } from './kind';
import { requestCreated } from './requestCreated';
import { requestUpdated } from './requestUpdated';
import { sessionAbandoned } from './sessionAbandoned';
import { sessionCompleted } from './sessionCompleted';

export const EVENT_KINDS: readonly EventKind[] = [sessionAbandoned, sessionCompleted, requestCreated, requestUpdated];

/** The kind of an event, by the item's `event`. */
export function kindOf(name: EventName): EventKind {
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

/** The windows the selected events need read. */
export function windowsNeeded(settings: TriggerSettings): Set<string> {
	return new Set(selectedKinds(settings).flatMap((kind) => kind.windows(settings)));
}

/**
 * The lists a poll reads: those of the windows needed (each list is read once for every window on it),
 * and whether an event reads pages of its own (Request Updated's rotation).
 */
export function listsFor(settings: TriggerSettings): { sessions: boolean; requests: boolean; updates: boolean } {
	const lists = new Set<ListName>([...windowsNeeded(settings)].map((window) => windowKind(window).list));
	return { sessions: lists.has('sessions'), requests: lists.has('requests'), updates: selectedKinds(settings).some((kind) => kind.watch !== undefined) };
}

/** The selected events as the state records them (one letter each, in EVENT_KINDS order). */
export function eventLetters(settings: TriggerSettings): string {
	return selectedKinds(settings)
		.map((kind) => kind.letter)
		.join('');
}

/** The letter of an event value (the state's record of the selected events). */
export function letterOf(value: EventValue): string {
	return (EVENT_KINDS.find((kind) => kind.value === value) as EventKind).letter;
}

/** Fetch Test Event: the samples of every selected event, from page 1 of the lists. */
export function pickSamples(sessions: BookingSession[] | undefined, requests: BookingRequest[] | undefined, now: number, settings: TriggerSettings): TriggerEvent[] {
	return selectedKinds(settings).flatMap((kind) => kind.samples({ sessions, requests, now }, settings));
}
