/**
 * The one reader and writer of the trigger's state: static data in, the memory the rules use out
 * (`readMemory`, once at the start of a poll), and back (`writeMemory`, once at its end). Anything that
 * does not validate is treated as absent (a new start), never as a reason to fail every poll.
 */
import { letterOf } from '../events';
import { BookedMemory, RemindedMemory } from './customers';
import { KeySet } from './keySet';
import { isUpdatesState, UpdatesMemory } from '../events/requestUpdated/records';
import { SeenMemory } from './seen';
import type { CustomerMemories, SessionMemory, TriggerMemory } from './decoded';
import type { TriggerSettings } from '../model/settings';
import type { HeldMemory, WindowMemory } from '../model/windows';
import type { HeldState, SessionsState, TriggerState, WindowState } from './format';
import { isMs, isRecord, isShortText, readSessions, readWindow, STATE_VERSION } from './format';

/** What the poll expects the state to be about, and what it reads. */
export interface StateExpectation {
	fingerprint: string;
	lists: { sessions: boolean; requests: boolean; updates?: boolean };
	/** The fingerprint older versions wrote (it covered the key and the events): read as this one, by that key. */
	legacy?: { fingerprint: string; key: string };
	/** The events selected now (letters) and Abandoned After: what an added event starts from. */
	selection?: { events: string; abandonedAfterMs: number };
}

/** Request Updated's records: dropped when it is not selected; a malformed copy starts them afresh. */
function readUpdates(raw: unknown, lists: StateExpectation['lists']): TriggerState['updates'] {
	if (lists.updates !== true || !isUpdatesState(raw)) return undefined;
	return { from: raw.from, ...(raw.cursor !== undefined ? { cursor: raw.cursor } : {}), values: [...raw.values], records: raw.records };
}

/**
 * The session windows as the selected events need them: added session events start from the last
 * poll, as if they had watched; Session Completed added gets its window there too (it was not kept up
 * to date while it was off); no session event left drops them with the customer memories.
 */
function sessionsFor(sessions: SessionsState | undefined, raw: { polledAt: number; ev?: unknown }, expect: StateExpectation): SessionsState | undefined | null {
	const { lists, selection } = expect;
	if (!lists.sessions) return undefined;
	const before = typeof raw.ev === 'string' ? raw.ev : selection?.events;
	const added = (letter: string) => selection !== undefined && selection.events.includes(letter) && !(before ?? '').includes(letter);
	if (!sessions) {
		if (!selection) return null;
		return { completions: { floor: raw.polledAt, done: {} }, horizon: { floor: raw.polledAt - selection.abandonedAfterMs, done: {} }, checkpoints: [], seen: {} };
	}
	return added(letterOf('sessionCompleted')) ? { ...sessions, completions: { floor: raw.polledAt, done: {} } } : sessions;
}

/**
 * The stored state if it is valid and about the same thing (`fingerprint`); otherwise undefined, which
 * makes the next poll take a new baseline. The result is a fresh copy (not n8n's observable proxies).
 * A v2 state (before the customer memories) is read as v3 with them empty. A list the selected events
 * no longer read is dropped, one they read now starts at the last poll: changing the events or Skip
 * Customers Who Booked never takes a new baseline.
 */
export function readState(raw: unknown, expect: StateExpectation): TriggerState | undefined {
	if (!isRecord(raw) || (raw.v !== STATE_VERSION && raw.v !== 2)) return undefined;
	const { legacy, selection, lists } = expect;
	const fromLegacy = legacy !== undefined && raw.fp === legacy.fingerprint;
	if (raw.fp !== expect.fingerprint && !fromLegacy) return undefined;
	if (!isMs(raw.since) || !isMs(raw.polledAt) || !isMs(raw.skewMs)) return undefined;
	const storedSessions = raw.sessions === undefined ? undefined : readSessions(raw.sessions);
	const storedRequests = raw.requests === undefined ? undefined : readWindow(raw.requests);
	if ((raw.sessions !== undefined && !storedSessions) || (raw.requests !== undefined && !storedRequests)) return undefined;
	const sessions = sessionsFor(storedSessions, { polledAt: raw.polledAt, ev: raw.ev }, expect);
	if (sessions === null) return undefined;
	const requests = lists.requests ? (storedRequests ?? { floor: raw.polledAt, done: {} }) : undefined;
	const updates = readUpdates(raw.updates, lists);
	const key = fromLegacy ? legacy.key : isShortText(raw.key) ? raw.key : undefined;
	const ref = isShortText(raw.ref) ? raw.ref : undefined;
	const bu = isShortText(raw.bu) ? raw.bu : undefined;
	return {
		v: STATE_VERSION,
		fp: expect.fingerprint,
		...(key !== undefined ? { key } : {}),
		...(ref !== undefined ? { ref } : {}),
		...(selection ? { ev: selection.events } : {}),
		...(bu !== undefined ? { bu } : {}),
		since: raw.since,
		polledAt: raw.polledAt,
		skewMs: raw.skewMs,
		...(sessions ? { sessions } : {}),
		...(requests ? { requests } : {}),
		...(updates ? { updates } : {}),
	};
}

function decodeWindow(state: WindowState): WindowMemory {
	const { done, ...rest } = state;
	return { ...rest, done: KeySet.decode(done) };
}

function decodeHeld(state: HeldState): HeldMemory {
	const { codes, ...window } = state;
	return { ...decodeWindow(window), codes: KeySet.decode(codes) };
}

/**
 * The customers' memories, kept whatever the options (each expires by its own retention): turning an
 * option off and on again loses nothing it had remembered.
 */
function decodeCustomers(sessions: Pick<SessionsState, 'seen' | 'booked' | 'reminded' | 'shared'>): CustomerMemories {
	return {
		seen: SeenMemory.decode(sessions.seen),
		booked: BookedMemory.decode(sessions.booked),
		reminded: RemindedMemory.decode(sessions.reminded),
		shared: SeenMemory.decode(sessions.shared),
	};
}

function decodeSessions(state: SessionsState): SessionMemory {
	return {
		completions: decodeWindow(state.completions),
		horizon: decodeWindow(state.horizon),
		...(state.held ? { held: decodeHeld(state.held) } : {}),
		checkpoints: state.checkpoints.map(([time, length]): [number, number] => [time, length]),
		customers: decodeCustomers(state),
	};
}

/** The memory of a state `readState` accepted. */
export function decodeMemory(state: TriggerState, settings: TriggerSettings): TriggerMemory {
	return {
		label: { fingerprint: state.fp, key: state.key, ref: state.ref, events: state.ev, baseUrl: state.bu },
		since: state.since,
		polledAt: state.polledAt,
		skewMs: state.skewMs,
		...(state.sessions ? { sessions: decodeSessions(state.sessions) } : {}),
		...(state.requests ? { requests: decodeWindow(state.requests) } : {}),
		...(settings.events.requestUpdated ? { updates: UpdatesMemory.decode(state.updates) } : {}),
	};
}

/** What `readMemory` found: the memory to go on with, or the customers' memories a new start keeps. */
export interface StoredMemory {
	memory?: TriggerMemory;
	/**
	 * A state refused only because it is about another Form, with the same Base URL and key: who booked,
	 * who was reminded and which sessions were seen abandoned are about customers, whatever form they used.
	 */
	carried?: CustomerMemories;
}

/** Reads the static data once, at the start of a poll. `about`: the Base URL (hashed) and key id of this poll. */
export function readMemory(raw: unknown, input: { expect: StateExpectation; settings: TriggerSettings; about?: { baseUrl: string; key: string } }): StoredMemory {
	const { expect, settings, about } = input;
	const state = readState(raw, expect);
	if (state) return { memory: decodeMemory(state, settings) };
	if (!about || !expect.lists.sessions || !isRecord(raw) || raw.bu !== about.baseUrl || raw.key !== about.key || raw.sessions === undefined) return {};
	const other = readState({ ...raw, fp: expect.fingerprint }, { ...expect, legacy: undefined })?.sessions;
	return other ? { carried: decodeCustomers(other) } : {};
}

function encodeWindow(memory: WindowMemory): WindowState {
	const { done, ...rest } = memory;
	return { ...rest, done: done.encode() };
}

function encodeSessions(memory: SessionMemory): SessionsState {
	const { seen, booked, reminded, shared } = memory.customers;
	const packed = { booked: booked.encode(), reminded: reminded.encode(), shared: shared.encode() };
	const held = memory.held && { ...encodeWindow(memory.held), codes: memory.held.codes.encode() };
	return {
		completions: encodeWindow(memory.completions),
		horizon: encodeWindow(memory.horizon),
		...(held ? { held } : {}),
		checkpoints: memory.checkpoints,
		seen: seen.encode(),
		...(Object.keys(packed.booked).length > 0 ? { booked: packed.booked } : {}),
		...(Object.keys(packed.reminded).length > 0 ? { reminded: packed.reminded } : {}),
		...(Object.keys(packed.shared).length > 0 ? { shared: packed.shared } : {}),
	};
}

/** The static data of a memory, once, at the end of a poll. */
export function writeMemory(memory: TriggerMemory): TriggerState {
	const { label } = memory;
	return {
		v: STATE_VERSION,
		fp: label.fingerprint,
		...(label.key !== undefined ? { key: label.key } : {}),
		...(label.ref !== undefined ? { ref: label.ref } : {}),
		...(label.events !== undefined ? { ev: label.events } : {}),
		...(label.baseUrl !== undefined ? { bu: label.baseUrl } : {}),
		since: memory.since,
		polledAt: memory.polledAt,
		skewMs: memory.skewMs,
		...(memory.sessions ? { sessions: encodeSessions(memory.sessions) } : {}),
		...(memory.requests ? { requests: encodeWindow(memory.requests) } : {}),
		...(memory.updates ? { updates: memory.updates.encode(memory.updates.from ?? memory.polledAt) } : {}),
	};
}
