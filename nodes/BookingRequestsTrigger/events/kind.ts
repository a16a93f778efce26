/**
 * An event the trigger can start a workflow on, declared in one place (events/<event>.ts): its value in
 * the node's Events parameter, its words, its options and how they are read, the windows it needs read
 * and judges, its rule and `event_id`, the memory it keeps and its slot in the state, its item and its
 * Fetch Test Event samples. events/index.ts lists them; the node's description, its parameters, the
 * planner, the rules and the codec take them from there and name no event. What events share (the
 * frontier, the poll budget, the customers' memory) is in rules/ and poll/, once.
 */
import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';

import type { BookingSession } from '../../shared/types';
import type { EventBase } from '../model/event';
import type { SettingsOf } from '../model/settings';
import type { FormNames, ItemOptions } from '../output/itemFields';
import type { FirstPages } from '../output/samples';
import type { WindowName } from '../windows';
import type { Candidate, WindowMemory } from '../windows/window';
import type { Decision, JudgeContext } from './context';
import type { WatchedRequests } from './watched';

/** What an event's `read` gets: the node's parameters as this poll reads them. */
export interface ParameterInput {
	node: INode;
	/** A top-level parameter's value (`fallback` when it is not set). */
	value(name: string, fallback: unknown): unknown;
	/** The Options collection. */
	options: IDataObject;
	/** The selected events (settings.events). */
	events: Readonly<Partial<Record<string, boolean>>>;
	/** The Form filter (a form id), when set. */
	formId: string | undefined;
}

/** What an event's options add to the settings (its own options, `O`) and to how items are shaped. */
export interface SettingsPart<O> {
	settings?: O;
	output?: Partial<Omit<ItemOptions, 'now' | 'simplify'>>;
}

/** An event's own memory (Request Updated's records): its slot in the state, how it is stored and changed. */
export interface EventMemory<M, S, C> {
	/** Its key in the state (and in the decoded memory's `events`). */
	slot: string;
	/** The stored form, checked; undefined when malformed (its memory then starts afresh). */
	read(raw: unknown): S | undefined;
	/** The memory from its stored form; an empty one when there is none. */
	decode(state: S | undefined): M;
	encode(memory: M, polledAt: number): S;
	/** Applies what a poll changes (its `watch` or `remember` decided it); returns the entries it forgot (logged). */
	apply(memory: M, change: C): number;
	/** Its entries, roughly what it weighs in the process (poll/memory.ts bounds the memories it keeps). */
	size(memory: M): number;
}

/** What an event's `watch` gets, after the windows moved on. */
export interface WatchInput<M, O = unknown> {
	/** The event's memory before this poll (decoded; an empty one at its first poll). */
	memory: M;
	/** The windows after this poll (a request is watched once the request window has passed it). */
	windows: Readonly<Record<string, WindowMemory | undefined>>;
	/** The watched requests of its range (when it `watches`). */
	watched: WatchedRequests | undefined;
	now: number;
	settings: SettingsOf<O>;
}

export interface WatchResult<E extends EventBase, C> {
	events: E[];
	/** What the poll changes in its memory. */
	change: C;
}

/**
 * An event: `E` its event type, `O` its own options (what its `read` returns; its functions see them with
 * what every poll has), `M` its own memory, `S` that memory's stored form, `C` what a poll changes in it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface EventKind<E extends EventBase = EventBase, O = any, M = any, S = any, C = any> {
	/** The node's Events value (and its flag in `settings.events`). */
	value: string;
	/** The item's `event`. */
	name: E['event'];
	/** Its letter in the state's record of the selected events. */
	letter: string;
	/**
	 * Its words: `name` and `description` as the Events parameter lists it; `when` completes the node's
	 * description "Starts a workflow when …", `startsFor` its notice "Starts the workflow once for …",
	 * `subtitle` is its part of the canvas subtitle (`{parameter}`: that parameter's value) and `fields`
	 * lists its item's fields in Simplify's description.
	 */
	words: { name: string; description: string; when: string; startsFor: string; subtitle: string; fields: string };
	/** Its top-level parameters (shown while it is selected; one shared by several events is listed by each). */
	parameters?: readonly INodeProperties[];
	/** Its entries in the Options collection (likewise). */
	options?: readonly INodeProperties[];
	/** How its parameters are read, checked (every poll, selected or not). */
	read?(input: ParameterInput): SettingsPart<O>;
	/** The windows this event needs read when it is selected. */
	windows(settings: SettingsOf<O>): WindowName[];
	/** The event time of the items of the windows it judges, after their sort time (Session Abandoned's delay); 0 when absent. */
	offset?(settings: SettingsOf<O>): number;
	/**
	 * The windows whose candidates this event judges: also when it is not selected, for the memory it
	 * keeps (a session seen abandoned makes a later completion `recovered`). Several events may judge
	 * one window (a decision each per candidate).
	 */
	judges: readonly WindowName[];
	/** Its decision on a candidate; `own`: its own memory before the poll (undefined: it keeps none). */
	judge?(candidate: Candidate, context: JudgeContext<O>, own: M | undefined): Decision<E>;
	/**
	 * What the poll's handled decisions of this event change in its own memory (an event that judges a
	 * window and keeps a memory of its own: its decisions carry what they add in `own`). Also called at the
	 * first poll, with none (the poll it starts at). `judgedUpTo`: the event time the poll judged up to
	 * (prune by it, not by now).
	 */
	remember?(memory: M, decisions: Array<Decision<E>>, poll: { now: number; judgedUpTo: number }): C;
	/** Why it leaves a candidate out (counted per poll in the logs: `Decision.skipped`). */
	skips?: readonly string[];
	/** Its own memory, kept while it is selected. */
	memory?: EventMemory<M, S, C>;
	/** How many of the newest requests it watches (events/watched.ts reads them, for every event that watches, once). */
	watches?(settings: SettingsOf<O>): number | undefined;
	/** A rule over the pages read instead of a window (Request Updated), after the windows moved on. */
	watch?(input: WatchInput<M, O>): WatchResult<E, C>;
	/** The completed session whose booking request its item may need (poll/attach.ts reads it when the item options ask). */
	attachTo?(event: E): BookingSession | undefined;
	/** The event's item (Simplify on or off). */
	item(event: E, options: ItemOptions, formNames: FormNames): IDataObject;
	/** Fetch Test Event: up to SAMPLES_PER_EVENT recent examples from page 1 of the lists. */
	samples(first: FirstPages, settings: SettingsOf<O>): E[];
}
