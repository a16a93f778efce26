/**
 * The differential test of the memory a published trigger keeps between its polls
 * (nodes/BookingRequestsTrigger/poll/memory.ts): the same program (triggerProgram.ts) run through
 * the trigger that keeps its memory and through the trigger that decodes the stored state at every
 * poll must give the same polls — the same items in the same order, the same `event_id`s, the same cuts
 * and the same next state (but for the write's token, `g`). Besides the programs' own steps (lost saves,
 * rolled-back states, activity between page reads), the steps here: n8n restarts (the process forgets
 * what it kept), a parameter changes (the node's settings from then on; among them Fields to Watch alone,
 * which the memory kept survives), and Fetch Test Event runs
 * between polls (samples from page 1 of the lists, nothing stored).
 */
import fc from 'fast-check';

import { eventLetters, pickSamples } from '../../nodes/BookingRequestsTrigger/events';
import { WATCH_GROUPS } from '../../nodes/BookingRequestsTrigger/events/requestUpdated/fields';
import type { TriggerSettings } from '../../nodes/BookingRequestsTrigger/events';
import { pollChanges } from '../../nodes/BookingRequestsTrigger/poll/engine';
import { forgetKeptMemories } from '../../nodes/BookingRequestsTrigger/poll/memory';
import { readFirstPages } from '../../nodes/BookingRequestsTrigger/poll/testEvent';
import { readMemory } from '../../nodes/BookingRequestsTrigger/state/codec';
import type { TriggerState } from '../../nodes/BookingRequestsTrigger/state/format';
import { programArb, settingsArb, type SettingsBias, type Shape } from './triggerArbitraries';
import type { FuzzSettings, Program, Step, TriggerUnderTest } from './triggerProgram';
import { ProgramRunner } from './triggerProgram';
import { pollKept, readInputOf, resetIds, stateAfter } from './triggerWorld';

/** The steps a differential program adds to a program's. */
export type DiffStep =
	| Step
	/** n8n restarts: the process keeps no memory (the stored state is as it was). */
	| { k: 'restart' }
	/** Fetch Test Event in the editor: samples from page 1 of each list; nothing read or written of the state. */
	| { k: 'fetch' }
	/** A parameter changes (the workflow is saved): the node's settings from now on. */
	| { k: 'settings'; trigger: TriggerSettings };

export interface DiffProgram extends Omit<Program, 'steps'> {
	steps: DiffStep[];
}

/** A trigger that records each state it writes, and how many of its polls started from a kept memory. */
export interface RecordingTrigger extends TriggerUnderTest {
	states: unknown[];
	keptPolls: number;
}

/** The trigger that decodes the stored state at every poll. */
export function decodingTrigger(): RecordingTrigger {
	const trigger: RecordingTrigger = {
		states: [],
		keptPolls: 0,
		async poll(source, saved, settings, options) {
			const read = readInputOf(settings);
			const stored = readMemory(saved, read);
			const result = await pollChanges(source, stored.memory, settings, options);
			const state = stateAfter(stored.memory, result, { carried: stored.carried, events: eventLetters(settings) });
			trigger.states.push(state ?? null);
			return { events: result.events, cut: result.cut, state };
		},
	};
	return trigger;
}

/** The trigger that keeps its memory between polls, as the published node does. */
export function keepingTrigger(key: string): RecordingTrigger {
	const trigger: RecordingTrigger = {
		states: [],
		keptPolls: 0,
		async poll(source, saved, settings, options) {
			const result = await pollKept(key, source, saved as TriggerState | undefined, settings, options);
			if (result.kept) trigger.keptPolls++;
			const { state } = result;
			trigger.states.push(state ?? null);
			return { events: result.events, cut: result.cut, state };
		},
	};
	return trigger;
}

/** Runs a differential program's steps: restarts, Fetch Test Event and parameter changes besides the program's own. */
class DiffRunner extends ProgramRunner {
	constructor(
		program: DiffProgram,
		trigger: RecordingTrigger,
		private readonly restart: () => void,
	) {
		super(program as unknown as Program, trigger);
	}

	protected override async step(step: Step): Promise<void> {
		const extra = step as DiffStep;
		if (extra.k === 'restart') this.restart();
		else if (extra.k === 'settings') this.settings = { ...this.settings, trigger: extra.trigger };
		else if (extra.k === 'fetch') {
			const first = await readFirstPages(this.source({ calls: 0 }, Infinity, []), this.settings.trigger);
			pickSamples(first.sessions, first.requests, first.now, this.settings.trigger);
		} else await super.step(step);
	}
}

export interface DiffRun {
	/** Per poll: its items (as JSON), whether it was cut, and the state it wrote (without `g`). */
	polls: string[];
	keptPolls: number;
}

const withoutToken = (state: unknown): unknown => {
	if (state === null || typeof state !== 'object') return state;
	const { g: _token, ...rest } = state as Record<string, unknown>;
	return rest;
};

async function runWith(program: DiffProgram, trigger: RecordingTrigger, restart: () => void): Promise<DiffRun> {
	resetIds();
	const run = await new DiffRunner(program, trigger, restart).run();
	const polls = run.polls.map((poll, i) => JSON.stringify({ events: poll.events, cut: poll.cut, state: withoutToken(trigger.states[i]) }));
	return { polls, keptPolls: trigger.keptPolls };
}

let runs = 0;

/** The program through both triggers: what each poll gave, in order. */
export async function runBoth(program: DiffProgram): Promise<{ decoding: DiffRun; keeping: DiffRun }> {
	const decoding = await runWith(program, decodingTrigger(), () => undefined);
	const keeping = await runWith(program, keepingTrigger(`wf-diff-${++runs}:trigger`), forgetKeptMemories);
	return { decoding, keeping };
}

/** A parameter change: new settings for the program's form (the world's Form filter stays), as the node reads them. */
function settingsChangeArb(program: Program): fc.Arbitrary<DiffStep> {
	const { form } = program.settings;
	return settingsArb().map((drawn: FuzzSettings): DiffStep => {
		const { requestsForm: _form, ...trigger } = drawn.trigger;
		return { k: 'settings', trigger: { ...trigger, ...(trigger.skipIfBooked && form ? { requestsForm: form } : {}) } };
	});
}

/**
 * A change of Request Updated's Fields to Watch alone (Contact in or out): it changes neither the
 * fingerprint nor how the state is read, so the memory kept goes on, and must keep the contact as the
 * new fields say.
 */
function fieldsChangeArb(program: Program): fc.Arbitrary<DiffStep> {
	const { trigger } = program.settings;
	if (!trigger.updates) return settingsChangeArb(program);
	const updates = trigger.updates;
	return fc.subarray([...WATCH_GROUPS], { minLength: 1 }).map((fields): DiffStep => ({ k: 'settings', trigger: { ...trigger, updates: { ...updates, fields } } }));
}

/** Programs of programArb with restarts, Fetch Test Event and parameter changes put between their steps. */
export function diffProgramArb(bias: SettingsBias = {}, shape: Shape = { maxSteps: 40 }): fc.Arbitrary<DiffProgram> {
	return programArb(bias, shape).chain((program) => {
		const extra = fc.oneof(
			{ weight: 3, arbitrary: fc.constant<DiffStep>({ k: 'restart' }) },
			{ weight: 3, arbitrary: fc.constant<DiffStep>({ k: 'fetch' }) },
			{ weight: 2, arbitrary: settingsChangeArb(program) },
			{ weight: 2, arbitrary: fieldsChangeArb(program) },
		);
		return fc.array(fc.record({ at: fc.nat(), step: extra }), { maxLength: 6 }).map((inserts): DiffProgram => {
			const steps: DiffStep[] = [...program.steps];
			for (const { at, step } of inserts) steps.splice(at % (steps.length + 1), 0, step);
			return { ...program, steps };
		});
	});
}
