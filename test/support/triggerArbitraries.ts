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

const WATCH_GROUPS: WatchGroup[] = ['status', 'lead_status', 'internal_notes', 'completed_at', 'contact'];

export interface SettingsBias {
	/** Force these events on (others generated). */
	events?: Partial<TriggerSettings['events']>;
}

export function settingsArb(bias: SettingsBias = {}): fc.Arbitrary<FuzzSettings> {
	const events = fc
		.record({ sessionAbandoned: fc.boolean(), sessionCompleted: fc.boolean(), requestCreated: fc.boolean(), requestUpdated: fc.boolean() })
		.map((picked) => ({ ...picked, ...bias.events }))
		.filter((picked) => picked.sessionAbandoned || picked.sessionCompleted || picked.requestCreated || picked.requestUpdated);
	const updates = fc.record({
		watchNewest: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 13, max: 80 }), fc.constant(500)),
		fields: fc.subarray(WATCH_GROUPS, { minLength: 1 }),
		statusTo: fc.constantFrom<string[][]>([], [], [], ['confirmed']),
		leadStatusTo: fc.constantFrom<string[][]>([], [], [], ['won', 'lost']),
	});
	return fc
		.record({
			events,
			abandonedMinutes: fc.constantFrom(1, 5, 30),
			fireAgainIfReabandoned: fc.boolean(),
			onlyRecovered: fc.boolean(),
			skipIfBooked: fc.boolean(),
			cooldownDays: fc.constantFrom(0, 0, 1, 3),
			onlyWithEmail: fc.boolean(),
			form: fc.constantFrom<Array<string | undefined>>(undefined, undefined, FORMS[0]),
			updates,
			perPage: fc.constantFrom(2, 3, 5, 10, 100),
			includeRequest: fc.boolean(),
			drainBudget: fc.constantFrom<Array<number | null>>(null, 12, 20),
		})
		.map((raw): FuzzSettings => {
			const abandoned = raw.events.sessionAbandoned;
			const skipIfBooked = abandoned && raw.skipIfBooked;
			const trigger: TriggerSettings = {
				events: raw.events,
				abandonedAfterMs: raw.abandonedMinutes * MIN,
				fireAgainIfReabandoned: raw.fireAgainIfReabandoned,
				onlyRecovered: raw.onlyRecovered && raw.events.sessionCompleted,
				skipIfBooked,
				...(skipIfBooked && raw.form ? { requestsForm: raw.form } : {}),
				customerCooldownMs: raw.cooldownDays * DAY,
				onlyWithEmail: raw.onlyWithEmail && abandoned,
				...(raw.events.requestUpdated ? { updates: raw.updates } : {}),
				fingerprint: 'fp-fuzz',
			};
			return { trigger, perPage: raw.perPage, includeRequest: raw.includeRequest && raw.events.sessionCompleted, form: raw.form, drainBudget: raw.drainBudget };
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
