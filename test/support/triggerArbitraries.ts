/**
 * fast-check arbitraries for the trigger's property tests: settings (every option of the node that the
 * poll loop sees) and programs of steps (triggerProgram.ts). Small worlds and small page sizes, so a few
 * dozen items span many pages and a poll's budget cuts it short; few customers, so that they meet; a
 * half of the writes committed late (within what the trigger assumes).
 */
import fc from 'fast-check';

import type { TriggerSettings } from '../../nodes/BookingRequestsTrigger/events';
import type { WatchGroup } from '../../nodes/BookingRequestsTrigger/events/requestUpdated/fields';
import type { Activity, ContactKind, FuzzSettings, Program, RequestChangeSpec, Step } from './triggerProgram';
import { DAY, FORMS } from './triggerProgram';
import { MIN } from './triggerWorld';
import { EDGE_WINDOW_MS } from '../../nodes/BookingRequestsTrigger/model/pages';
import type { RegisteredEvent } from './perEvent';
import { isSelected, perEvent, REGISTERED } from './perEvent';

const WATCH_GROUPS: WatchGroup[] = ['status', 'lead_status', 'internal_notes', 'completed_at', 'contact'];

export interface SettingsBias {
	/** Force these events on (others generated). */
	events?: Partial<TriggerSettings['events']>;
}

/** What the options drawn of an event add to the generated settings: the trigger's, and Include Booking Request. */
export interface OptionsPart {
	trigger: Partial<TriggerSettings>;
	includeRequest?: boolean;
}

/** Whether the event is selected, and the node's Form filter. */
export interface OptionsContext {
	selected: boolean;
	form: string | undefined;
}

/**
 * An event's options: each drawn by its name (unique among all the draws of the settings), and what the
 * values drawn add to the settings. Drawn whether or not the event is selected (the node keeps an option
 * while its event is off); an option that applies only while the event is selected is set only then.
 */
export interface EventOptions {
	draws: Readonly<Record<string, fc.Arbitrary<unknown>>>;
	settings(drawn: Readonly<Record<string, unknown>>, context: OptionsContext): OptionsPart;
}

/** An event's options, typed by their draws. */
function eventOptions<D extends Record<string, unknown>>(draws: { [K in keyof D]: fc.Arbitrary<D[K]> }, settings: (drawn: D, context: OptionsContext) => OptionsPart): EventOptions {
	return { draws, settings: settings as EventOptions['settings'] };
}

/** Per event (by its value in the registry, events/index.ts): its options. */
export const EVENT_OPTIONS: Readonly<Record<string, EventOptions>> = {
	sessionAbandoned: eventOptions(
		{
			abandonedMinutes: fc.constantFrom(1, 5, 30),
			fireAgainIfReabandoned: fc.boolean(),
			skipIfBooked: fc.boolean(),
			cooldownDays: fc.constantFrom(0, 0, 1, 3),
			onlyWithEmail: fc.boolean(),
		},
		(drawn, { selected, form }) => {
			const skipIfBooked = selected && drawn.skipIfBooked;
			return {
				trigger: {
					abandonedAfterMs: drawn.abandonedMinutes * MIN,
					fireAgainIfReabandoned: drawn.fireAgainIfReabandoned,
					skipIfBooked,
					...(skipIfBooked && form ? { requestsForm: form } : {}),
					customerCooldownMs: drawn.cooldownDays * DAY,
					onlyWithEmail: drawn.onlyWithEmail && selected,
				},
			};
		},
	),
	sessionCompleted: eventOptions({ onlyRecovered: fc.boolean(), includeRequest: fc.boolean() }, (drawn, { selected }) => ({
		trigger: { onlyRecovered: drawn.onlyRecovered && selected },
		includeRequest: drawn.includeRequest && selected,
	})),
	// New Request has no options of its own.
	requestCreated: eventOptions({}, () => ({ trigger: {} })),
	requestUpdated: eventOptions(
		{
			updates: fc.record({
				watchNewest: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 13, max: 80 }), fc.constant(500)),
				fields: fc.subarray(WATCH_GROUPS, { minLength: 1 }),
				statusTo: fc.constantFrom<string[][]>([], [], [], ['confirmed']),
				leadStatusTo: fc.constantFrom<string[][]>([], [], [], ['won', 'lost']),
			}),
		},
		(drawn, { selected }) => ({ trigger: selected ? { updates: drawn.updates } : {} }),
	),
};

/** What is drawn of the world: the node's Form filter, the model's page size, the call budget of the polls after the program. */
interface WorldDrawn {
	form: string | undefined;
	perPage: number;
	drainBudget: number | null;
}

/** The world's draws. */
const WORLD_DRAWS: { [K in keyof WorldDrawn]: fc.Arbitrary<WorldDrawn[K]> } = {
	form: fc.constantFrom<Array<string | undefined>>(undefined, undefined, FORMS[0]),
	perPage: fc.constantFrom(2, 3, 5, 10, 100),
	drainBudget: fc.constantFrom<Array<number | null>>(null, 12, 20),
};

/**
 * The order of the draws (any other after them): as they were drawn before each event's options were
 * its own, so that the fixed seeds of `npm test` still generate the same programs.
 */
const DRAW_ORDER = ['abandonedMinutes', 'fireAgainIfReabandoned', 'onlyRecovered', 'skipIfBooked', 'cooldownDays', 'onlyWithEmail', 'form', 'updates', 'perPage', 'includeRequest', 'drainBudget'];

/** The world's and every event's draws, by name, in DRAW_ORDER. */
function drawsOf(options: Array<[RegisteredEvent, EventOptions]>): Record<string, fc.Arbitrary<unknown>> {
	const draws: Record<string, fc.Arbitrary<unknown>> = { ...WORLD_DRAWS };
	for (const [kind, { draws: own }] of options) {
		for (const [name, arb] of Object.entries(own)) {
			if (Object.hasOwn(draws, name)) throw new Error(`The event "${kind.value}" draws an option named "${name}" as another draw does: name it apart in EVENT_OPTIONS`);
			draws[name] = arb;
		}
	}
	const names = [...DRAW_ORDER.filter((name) => Object.hasOwn(draws, name)), ...Object.keys(draws).filter((name) => !DRAW_ORDER.includes(name))];
	return Object.fromEntries(names.map((name) => [name, draws[name]]));
}

/**
 * Settings with every registered event on or off (at least one on; `bias` forces some on) and each
 * event's options from EVENT_OPTIONS; throws, naming the event, when a registered event has none there.
 */
export function settingsArb(bias: SettingsBias = {}, kinds: readonly RegisteredEvent[] = REGISTERED): fc.Arbitrary<FuzzSettings> {
	const options = perEvent(EVENT_OPTIONS, kinds, (event) => `No arbitrary of the options of the event ${event}: add one to EVENT_OPTIONS in test/support/triggerArbitraries.ts, so that the property tests generate it`);
	const events = fc
		.record(Object.fromEntries(kinds.map((kind) => [kind.value, fc.boolean()])))
		.map((picked) => ({ ...picked, ...bias.events }) as TriggerSettings['events'])
		.filter((picked) => kinds.some((kind) => isSelected(picked, kind)));
	return fc.record({ events, ...drawsOf(options) }).map((drawn): FuzzSettings => {
		const world = drawn as unknown as WorldDrawn;
		const parts = options.map(([kind, own]) => own.settings(drawn, { selected: isSelected(drawn.events, kind), form: world.form }));
		const trigger = Object.assign({ events: drawn.events }, ...parts.map((part) => part.trigger), { fingerprint: 'fp-fuzz' }) as TriggerSettings;
		const includeRequest = parts.some((part) => part.includeRequest === true);
		return { trigger, perPage: world.perPage, includeRequest, form: world.form, drainBudget: world.drainBudget };
	});
}

const customer = fc.integer({ min: 0, max: 5 });
const form = fc.constantFrom<Array<0 | 1>>(0, 0, 0, 1);

const changeSpec: fc.Arbitrary<RequestChangeSpec> = fc
	.record(
		{
			status: fc.constantFrom('complete', 'confirmed', 'cancelled'),
			lead_status: fc.constantFrom('new', 'won', 'lost', 'Won '),
			notes: fc.constantFrom<Array<string | null>>('call back', 'paid', null),
			completed: fc.boolean(),
			first_name: fc.constantFrom('Ada', 'Grace', 'Alan'),
			emailSpelling: fc.constant(true),
		},
		{ requiredKeys: [] },
	)
	.filter((spec) => Object.keys(spec).length > 0);

/** What a program leans to. */
export interface Shape {
	maxSteps: number;
	/** Many polls, small budgets, activity between page reads, dropped saves and rollbacks. */
	busy?: boolean;
	/** Many items in one millisecond (tie groups larger than a page). */
	ties?: boolean;
}

/**
 * How late a write is committed after its stamp: mostly not at all, else up to just under
 * EDGE_WINDOW_MS (README: rows are visible within 5 seconds of their timestamp). Shrinks to absent.
 */
const late = fc.option(fc.oneof(fc.integer({ min: 1, max: 2_000 }), fc.integer({ min: 2_001, max: EDGE_WINDOW_MS - 1 })), { nil: undefined, freq: 2 });
/** `late` (and the keys given) as optional keys of a write's record: absent when not drawn, so a kept program stays short. */
function write<T extends Record<string, unknown>>(fields: { [K in keyof T]: fc.Arbitrary<T[K]> }, lates: string[] = ['late']): fc.Arbitrary<T> {
	const all = { ...fields, ...Object.fromEntries(lates.map((key) => [key, late])) } as { [K in keyof T]: fc.Arbitrary<T[K]> };
	return fc.record(all, { requiredKeys: Object.keys(fields) as Array<keyof T> }).map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T);
}

export function activityArb(shape: Shape = { maxSteps: 40 }): fc.Arbitrary<Activity> {
	const many = shape.ties ? fc.integer({ min: 1, max: 7 }) : fc.constantFrom(1, 1, 1, 2, 3);
	return fc.oneof(
		{ weight: 5, arbitrary: write({ k: fc.constant('start' as const), c: customer, form, contact: fc.constantFrom<ContactKind[]>('both', 'both', 'email', 'phone', 'none'), n: many, spelling: fc.boolean() }) },
		{ weight: 4, arbitrary: write({ k: fc.constant('save' as const), s: fc.nat(20), addEmail: fc.boolean() }) },
		{ weight: 3, arbitrary: write({ k: fc.constant('complete' as const), s: fc.nat(20), from: fc.constantFrom<Array<'old' | 'new'>>('old', 'new') }, ['late', 'lateRequest']) },
		{ weight: 2, arbitrary: write({ k: fc.constant('book' as const), c: customer, form }, ['late', 'lateRequest']) },
		{ weight: 2, arbitrary: write({ k: fc.constant('request' as const), c: customer, form, n: shape.ties ? fc.integer({ min: 1, max: 9 }) : fc.constantFrom(1, 1, 2, 4), sameMs: shape.ties ? fc.constant(true) : fc.boolean() }) },
		{ weight: 4, arbitrary: fc.record({ k: fc.constant('change' as const), r: fc.nat(30), change: changeSpec, updatedAt: fc.constantFrom<Array<'now' | 'null' | 'keep'>>('now', 'now', 'null', 'keep') }) },
		{ weight: 4, arbitrary: fc.record({ k: fc.constant('tick' as const), ms: fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 10_000, max: 12 * MIN })) }) },
	);
}

function pollArb(shape: Shape): fc.Arbitrary<Step> {
	const budget = shape.busy
		? fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 4, arbitrary: fc.integer({ min: 1, max: 10 }) })
		: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: fc.integer({ min: 1, max: 16 }) });
	return fc.record(
		{
			k: fc.constant('poll' as const),
			budget,
			save: shape.busy ? fc.constantFrom<Array<'keep' | 'drop'>>('keep', 'keep', 'drop') : fc.constantFrom<Array<'keep' | 'drop'>>('keep', 'keep', 'keep', 'keep', 'drop'),
			churn: fc.array(fc.record({ at: fc.nat(6), act: activityArb(shape) }), { maxLength: shape.busy ? 5 : 3 }),
		},
		{ requiredKeys: ['k', 'budget'] },
	);
}

export function stepArb(shape: Shape = { maxSteps: 40 }): fc.Arbitrary<Step> {
	return fc.oneof(
		{ weight: 12, arbitrary: activityArb(shape) },
		{ weight: shape.busy ? 12 : 6, arbitrary: pollArb(shape) },
		{ weight: shape.busy ? 3 : 1, arbitrary: fc.record({ k: fc.constant('rollback' as const), back: fc.integer({ min: 1, max: 3 }) }) },
		{ weight: 1, arbitrary: fc.record({ k: fc.constant('jump' as const), ms: fc.constantFrom(2 * 3_600_000, DAY, 2 * DAY, 8 * DAY, 31 * DAY, 45 * DAY) }) },
		{ weight: 1, arbitrary: fc.record({ k: fc.constant('skew' as const), ms: fc.constantFrom(0, 3 * 3_600_000, -3 * 3_600_000, 90_000) }) },
	);
}

export function programArb(bias: SettingsBias = {}, shape: Shape = { maxSteps: 40 }): fc.Arbitrary<Program> {
	return fc.record({
		settings: settingsArb(bias),
		before: fc.array(activityArb(shape), { maxLength: 10 }),
		// 'medium': fast-check's default ('small') keeps arrays to about 10 steps, too few to fill pages and cut polls.
		steps: fc.array(stepArb(shape), { minLength: 1, maxLength: shape.maxSteps, size: 'medium' }),
	});
}
