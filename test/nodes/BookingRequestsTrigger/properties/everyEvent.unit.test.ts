/**
 * Every event the trigger registers (events/index.ts `EVENT_KINDS`) is fuzzed and judged: the property
 * tests' settings select each one on and off, and the oracle has a rule for each. An event registered
 * without an arbitrary of its options (test/support/triggerArbitraries.ts `EVENT_OPTIONS`) or without a
 * rule (test/support/triggerOracle.ts `RULES`) is refused with its name: here a registry with one more
 * event, passed to the builders as the registry.
 */
import fc from 'fast-check';

import { EVENT_KINDS } from '../../../../nodes/BookingRequestsTrigger/events';
import type { RegisteredEvent } from '../../../support/perEvent';
import { settingsArb } from '../../../support/triggerArbitraries';
import { judge } from '../../../support/triggerOracle';
import type { Program } from '../../../support/triggerProgram';
import { runProgram } from '../../../support/triggerProgram';

/** An event the tests know nothing of. */
const UNKNOWN: RegisteredEvent = { value: 'sessionRescheduled', name: 'session.rescheduled', words: { name: 'Session Rescheduled' } };

const program: Program = {
	settings: fc.sample(settingsArb({ events: Object.fromEntries(EVENT_KINDS.map((kind) => [kind.value, true])) }), { numRuns: 1, seed: 1 })[0],
	before: [],
	steps: [{ k: 'start', c: 0, form: 0, contact: 'both' }, { k: 'poll', budget: null }, { k: 'tick', ms: 40 * 60_000 }, { k: 'poll', budget: null }],
};

test('the settings generated select every registered event, and leave each out', () => {
	const drawn = fc.sample(settingsArb(), { numRuns: 300, seed: 1 });
	for (const kind of EVENT_KINDS) {
		const on = drawn.filter((settings) => (settings.trigger.events as Record<string, boolean | undefined>)[kind.value] === true).length;
		expect({ event: kind.value, on: on > 0, off: on < drawn.length }).toEqual({ event: kind.value, on: true, off: true });
	}
});

test('the settings generated hold the events of the registry given, and only those', () => {
	const kinds = EVENT_KINDS.filter((kind) => kind.value === 'sessionAbandoned' || kind.value === 'requestUpdated');
	for (const settings of fc.sample(settingsArb({}, kinds), { numRuns: 50, seed: 1 })) expect(Object.keys(settings.trigger.events).sort()).toEqual(['requestUpdated', 'sessionAbandoned']);
});

test('the oracle judges a run with every registered event selected', async () => {
	const run = await runProgram(program);
	expect(run.polls.flatMap((poll) => poll.events.map((event) => event.event))).toContain('session.abandoned');
	expect(judge(program, run)).toEqual([]);
});

test('an event without an arbitrary of its options is refused, by name', () => {
	expect(() => settingsArb({}, [...EVENT_KINDS, UNKNOWN])).toThrow(
		'No arbitrary of the options of the event "sessionRescheduled" (Session Rescheduled, item event "session.rescheduled"): add one to EVENT_OPTIONS in test/support/triggerArbitraries.ts',
	);
});

test('two options drawn under one name are refused (each event draws its own)', () => {
	const [abandoned] = EVENT_KINDS.filter((kind) => kind.value === 'sessionAbandoned');
	expect(() => settingsArb({}, [abandoned, abandoned])).toThrow('The event "sessionAbandoned" draws an option named "abandonedMinutes" as another draw does');
});

test('the oracle refuses to judge while the registry holds an event it has no rule for, selected or not', async () => {
	const run = await runProgram(program);
	expect(() => judge(program, run, [...EVENT_KINDS, UNKNOWN])).toThrow(
		'The oracle has no rule for the event "sessionRescheduled" (Session Rescheduled, item event "session.rescheduled"): add one to RULES in test/support/triggerOracle.ts',
	);
});
