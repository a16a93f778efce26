/**
 * The pure core (rules/core.ts): one poll as a function of (memory, pages, now, settings) to (events,
 * what they change in the memory) that changes none of its inputs and loads no I/O code. Its inputs are
 * deep-frozen (Maps and Sets too: their mutators throw), through the node's real poll loop and through
 * `pollCore` on the pages that loop read; both give the same events and, applied to the memory (a copy
 * decoded from the same state), the same next state.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { PageRead } from '../../../nodes/shared/pages';
import type { PageObservation, ListItem } from '../../../nodes/BookingRequestsTrigger/model/pages';
import type { TriggerSettings } from '../../../nodes/BookingRequestsTrigger/events';
import { pollChanges } from '../../../nodes/BookingRequestsTrigger/poll/engine';
import type { PageSource } from '../../../nodes/BookingRequestsTrigger/poll/source';
import { pollCore } from '../../../nodes/BookingRequestsTrigger/rules/core';
import { applyChanges } from '../../../nodes/BookingRequestsTrigger/poll/memory';
import { decodeMemory, readMemory } from '../../../nodes/BookingRequestsTrigger/state/codec';
import type { TriggerState } from '../../../nodes/BookingRequestsTrigger/state/format';
import { listsFor } from '../../../nodes/BookingRequestsTrigger/events';
import type { BookingSession } from '../../../nodes/shared/types';
import { MIN, World, makeSettings, newCustomer, stateAfter } from '../../support/triggerWorld';

/** Freezes `value` and everything it reaches; a Map's or Set's mutators throw. */
function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
	if (typeof value !== 'object' || value === null || seen.has(value)) return value;
	seen.add(value);
	const refuse = () => {
		throw new TypeError('the core changed one of its inputs');
	};
	if (value instanceof Map) {
		for (const [key, entry] of value) {
			deepFreeze(key, seen);
			deepFreeze(entry, seen);
		}
		Object.defineProperties(value, { set: { value: refuse }, delete: { value: refuse }, clear: { value: refuse } });
	} else if (value instanceof Set) {
		for (const entry of value) deepFreeze(entry, seen);
		Object.defineProperties(value, { add: { value: refuse }, delete: { value: refuse }, clear: { value: refuse } });
	}
	for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
	return Object.freeze(value);
}

/** The state without Request Updated's records (a contact is sealed with a random nonce each time it is sealed). */
function withoutRecords(state: TriggerState): unknown {
	const { updates: _records, ...rest } = state;
	return rest;
}

/**
 * One poll of a trigger whose decoded memory and settings are deep-frozen: through the node's poll loop,
 * then through `pollCore` on the pages it read (also frozen). Returns the next state.
 */
async function frozenPoll(world: World, state: TriggerState | undefined, settings: TriggerSettings, options: { budget?: number; needsRequest?: (session: BookingSession) => boolean } = {}) {
	const frozenSettings = deepFreeze(structuredClone(settings));
	const memory = state && deepFreeze(decodeMemory(state, frozenSettings));
	const count = { pages: { sessions: 0, requests: 0 }, calls: 0 };
	const limit = options.budget ?? Infinity;
	const model = world.source({}, count, limit);
	const pages: PageObservation[] = [];
	const source: PageSource = {
		readPage: async (list, page): Promise<PageRead<ListItem> | undefined> => {
			const read = await model.readPage(list, page);
			if (read) pages.push({ ...structuredClone(read), list, seq: pages.length });
			return read;
		},
		fetchRequest: model.fetchRequest,
	};
	const budget = { left: () => Math.max(0, limit - count.calls), answered: () => undefined };
	const result = await pollChanges(source, memory, frozenSettings, { budget, needsRequest: options.needsRequest, localNow: () => world.now });
	const owned = () => state && decodeMemory(state, settings);
	const next = stateAfter(owned(), result);
	if (result.changes && !options.needsRequest) {
		const core = pollCore({ memory, pages: deepFreeze(pages), now: result.now, settings: frozenSettings, skewMs: 0 });
		expect(core.events).toEqual(result.events);
		expect(withoutRecords(stateAfter(owned(), core)!)).toEqual(withoutRecords(next!));
	}
	return { result, state: next && (JSON.parse(JSON.stringify(next)) as TriggerState) };
}

test('a day of every event, options and memories: the frozen memory, settings and pages are never changed', async () => {
	const settings = makeSettings({
		events: { sessionAbandoned: true, sessionCompleted: true, requestCreated: true, requestUpdated: true },
		updates: { watchNewest: 500, fields: ['status', 'lead_status', 'internal_notes', 'completed_at', 'contact'], statusTo: [], leadStatusTo: [] },
		skipIfBooked: true,
		customerCooldownMs: 2 * 24 * 60 * MIN,
	});
	const world = new World();
	for (let i = 0; i < 5; i++) world.addRequest();
	let { state } = await frozenPoll(world, undefined, settings);
	const events: string[] = [];
	for (let round = 0; round < 6; round++) {
		const ann = newCustomer();
		world.start({}, ann);
		const bo = world.start();
		world.complete(world.start());
		world.bookWithoutDraft(ann);
		world.changeRequest(world.requests[round], { status: `step-${round}` });
		world.advance(round % 2 === 0 ? 31 * MIN : 5 * MIN);
		world.save(bo);
		const polled = await frozenPoll(world, state, settings, { budget: round === 3 ? 3 : undefined });
		events.push(...polled.result.events.map((event) => event.event));
		state = polled.state ?? state;
	}
	world.advance(40 * MIN);
	const last = await frozenPoll(world, state, settings);
	events.push(...last.result.events.map((event) => event.event));
	// every kind of event went through the frozen inputs
	expect(new Set(events)).toEqual(new Set(['session.abandoned', 'session.completed', 'request.created', 'request.updated']));
});

test('a backlog whose drafts the horizon holds, and the booking requests the items need: the frozen inputs are never changed', async () => {
	const settings = makeSettings({ abandonedAfterMs: MIN, skipIfBooked: true });
	const world = new World();
	let { state } = await frozenPoll(world, undefined, settings);
	world.advance(5_000);
	for (let i = 0; i < 250; i++) {
		world.advance(3);
		world.start();
	}
	for (let i = 0; i < 2_000; i++) {
		world.advance(3);
		if (i % 100 === 0) world.bookWithoutDraft();
		else world.complete(world.start());
	}
	world.advance(2 * MIN);
	let held = false;
	for (let poll = 0; poll < 8; poll++) {
		const polled = await frozenPoll(world, state, settings, { budget: 30 });
		state = polled.state ?? state;
		held ||= state?.sessions?.held !== undefined;
		world.advance(MIN);
	}
	expect(held).toBe(true);
	// the booking requests of bookings without a draft, read for their items
	world.bookWithoutDraft();
	world.advance(MIN);
	const attached = await frozenPoll(world, state, settings, { needsRequest: (session) => session.step === 'confirm' });
	expect(attached.result.events.filter((event) => event.event === 'session.completed' && event.request)).not.toHaveLength(0);
});

test('a new baseline keeps the customers of a state about another Form, with the bookings it read added', async () => {
	const settings = makeSettings({ skipIfBooked: true });
	const world = new World();
	const { state } = await frozenPoll(world, undefined, settings);
	world.addRequest();
	const about = { baseUrl: 'bu', key: 'key' };
	const other = { ...state!, fp: 'another form', bu: about.baseUrl, key: about.key };
	const stored = readMemory(other, { expect: { fingerprint: settings.fingerprint, lists: listsFor(settings) }, settings, about });
	const carried = stored.carried!;
	const before = carried.booked.size;
	const page = deepFreeze([{ list: 'requests' as const, page: 1, perPage: 100, total: world.requests.length, items: structuredClone(world.sortedRequests()) as unknown as ListItem[], serverDate: world.now, seq: 0 }]);
	const baseline = pollCore({ memory: undefined, pages: page, now: world.now, settings: deepFreeze(structuredClone(settings)) });
	expect(baseline.baseline).toBe(true);
	const { memory } = applyChanges(undefined, baseline.changes, carried);
	expect(memory.sessions?.customers.booked).toBe(carried.booked);
	expect(carried.booked.size).toBeGreaterThan(before);
});

test('the core loads no I/O code: nothing of the transport, the poll, HTTP or the file system', () => {
	const root = path.resolve(__dirname, '../../../nodes');
	const reached = new Set<string>();
	const visit = (file: string) => {
		if (reached.has(file)) return;
		reached.add(file);
		const source = readFileSync(file, 'utf8');
		// run-time imports only (`import type` is erased)
		for (const [, spec] of source.matchAll(/^import (?!type )[^'"]*?from '([^']+)'/gm)) {
			if (!spec.startsWith('.')) {
				reached.add(spec);
				continue;
			}
			const target = path.resolve(path.dirname(file), spec);
			const candidates = [`${target}.ts`, path.join(target, 'index.ts')];
			visit(candidates.find((candidate) => { try { readFileSync(candidate); return true; } catch { return false; } }) as string);
		}
	};
	visit(path.join(root, 'BookingRequestsTrigger/rules/core.ts'));
	const names = [...reached].map((file) => (path.isAbsolute(file) ? path.relative(root, file) : file));
	expect(names).toContain('BookingRequestsTrigger/events/index.ts');
	const io = names.filter((name) => /^shared\/transport\/|^BookingRequestsTrigger\/poll\/|^node:(http|https|net|tls|dns|fs)|^(axios|bottleneck|ioredis)/.test(name));
	expect(io).toEqual([]);
});
