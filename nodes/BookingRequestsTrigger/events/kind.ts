/**
 * An event the trigger can start a workflow on, declared in one place (events/<event>.ts): its value in
 * the node's Events parameter, the windows of the lists it needs read, its rule, its `event_id`, its
 * item and its Fetch Test Event samples. events/index.ts lists them; what events share (the frontier,
 * the poll budget, the customers' memory, the request window) is in rules/ and poll/, once.
 */
import type { IDataObject } from 'n8n-workflow';

import type { UpdatesMemory } from './requestUpdated/records';
import type { EventName, TriggerEvent } from '../model/event';
import type { PageObservation } from '../model/pages';
import type { EventValue, TriggerSettings } from '../model/settings';
import type { WindowName } from '../windows';
import type { Candidate, WindowMemory } from '../windows/window';
import type { FormNames, ItemOptions } from '../output/itemFields';
import type { FirstPages } from '../output/samples';
import type { Decision, JudgeContext } from './context';

/** Request Updated's rule: over every request page the poll read, after the windows moved on. */
export interface WatchedInput {
	memory: UpdatesMemory;
	pages: PageObservation[];
	/** The request window after this poll (a request is watched once its creation is handled). */
	requests: WindowMemory | undefined;
	now: number;
	settings: TriggerSettings;
}

export interface EventKind {
	/** The node's Events value. */
	value: EventValue;
	/** The item's `event`. */
	name: EventName;
	/** Its letter in the state's record of the selected events. */
	letter: string;
	/**
	 * As the Events parameter lists it; `startsFor` completes the node's notice "starts the workflow once
	 * for …" and `subtitle` is its part of the canvas subtitle (`{parameter}`: that parameter's value);
	 * description.ts builds both for the selected events.
	 */
	option: { name: string; description: string; startsFor: string; subtitle: string };
	/** The windows this event needs read when it is selected. */
	windows(settings: TriggerSettings): WindowName[];
	/**
	 * The windows whose candidates this event judges: also when it is not selected, for the memory it
	 * keeps (a session seen abandoned makes a later completion `recovered`). Several events may judge
	 * one window (a decision each per candidate).
	 */
	judges: WindowName[];
	judge?(candidate: Candidate, context: JudgeContext): Decision;
	/** A rule over the pages read instead of a window (Request Updated). */
	watch?(input: WatchedInput): { events: TriggerEvent[]; forgotten: number };
	/** The event's item (Simplify on or off). */
	item(event: TriggerEvent, options: ItemOptions, formNames: FormNames): IDataObject;
	/** Fetch Test Event: up to SAMPLES_PER_EVENT recent examples from page 1 of the lists. */
	samples(first: FirstPages, settings: TriggerSettings): TriggerEvent[];
}
