/**
 * The one reader and writer of the trigger's state: static data in, the memory the rules use out
 * (`readMemory`, once at the start of a poll), and back (`writeMemory`, once at its end). Anything that
 * does not validate is treated as absent (a new start), never as a reason to fail every poll. Each part
 * is read and encoded by what owns it (format.ts): the codec names no window and no event.
 */
import type { ListsRead, TriggerSettings } from '../events';
import { EVENT_KINDS, selectedKinds } from '../events';
import type { ListName } from '../model/pages';
import { WINDOW_KINDS, windowsOfList } from '../windows';
import type { WindowMemory, WindowStart } from '../windows/window';
import { isCount, isMs, isRecord, isShortText } from './checks';
import type { CustomerMemories, TriggerMemory } from './decoded';
import type { SessionsState, TriggerState } from './format';
import { STATE_KEYS, STATE_VERSION } from './format';
import { decodeCustomers, decodeSessionList, encodeSessionList, readSessionList, startSessionList } from './sessionList';

/** An event's memory slot is a key of the state: checked when the codec loads, not one of the state's own nor a window's. */
export function checkedSlots(kinds: typeof EVENT_KINDS): void {
	const taken = kinds.find((kind) => kind.memory && (STATE_KEYS.includes(kind.memory.slot) || WINDOW_KINDS.some((window) => window.name === kind.memory?.slot)));
	if (taken) throw new Error(`Booking Requests Trigger: the event "${taken.value}" keeps its memory under "${taken.memory?.slot}", a key of the state itself`);
}
checkedSlots(EVENT_KINDS);

/** What the poll expects the state to be about, and what it reads. */
interface StateExpectation {
	fingerprint: string;
	lists: ListsRead;
	/** The fingerprint older versions wrote (it covered the key and the events): read as this one, by that key. */
	legacy?: { fingerprint: string; key: string };
	/** The events selected now (letters) and each window's offset (events/index.ts `windowOffsets`): what an added event starts from. */
	selection?: { events: string; offsets: Readonly<Record<string, number>> };
}

/** The selected events' own memories, each checked by its event: dropped when it is not selected; a malformed copy starts afresh. */
function readEventMemories(raw: Record<string, unknown>, lists: ListsRead): Record<string, unknown> {
	const memories: Record<string, unknown> = {};
	for (const kind of EVENT_KINDS) {
		if (!kind.memory || !lists.memories?.includes(kind.memory.slot)) continue;
		const stored = kind.memory.read(raw[kind.memory.slot]);
		if (stored !== undefined) memories[kind.memory.slot] = stored;
	}
	return memories;
}

/** Where an added event's window starts: the last poll, at the window's offset. */
type Start = (window: string) => WindowStart;

const startsAt = (polledAt: number, offsets: Readonly<Record<string, number>>): Start => (window) => ({ polledAt, offset: offsets[window] ?? 0 });

/**
 * The session list as the selected events need it: added session events start from the last poll, as
 * if they had watched; a window kept while no event read it (windows/: `keptWhileUnread`) starts there
 * again when an event that judges it is added; no session event left drops the list with the
 * customers' memories.
 */
function sessionsFor(sessions: SessionsState | undefined, raw: { polledAt: number; ev?: unknown }, expect: StateExpectation): SessionsState | undefined | null {
	const { lists, selection } = expect;
	if (!lists.sessions) return undefined;
	if (!selection) return sessions ?? null;
	const from = startsAt(raw.polledAt, selection.offsets);
	if (!sessions) return startSessionList(from);
	const before = typeof raw.ev === 'string' ? raw.ev : selection.events;
	const added = EVENT_KINDS.filter((kind) => selection.events.includes(kind.letter) && !before.includes(kind.letter));
	const restarted: Record<string, unknown> = {};
	for (const kind of windowsOfList('sessions')) {
		if (kind.keptWhileUnread && kind.start && added.some((event) => event.judges.includes(kind.name as never))) restarted[kind.name] = kind.start(from(kind.name));
	}
	return { ...sessions, ...restarted };
}

/** The stored windows kept at the top of the state (the request list's), each checked by its module; null when one is malformed. */
function readTopWindows(raw: Record<string, unknown>, lists: StateExpectation['lists'], from: Start): Record<string, unknown> | null {
	const windows: Record<string, unknown> = {};
	for (const kind of windowsOfList('requests')) {
		const stored = raw[kind.name] === undefined ? undefined : kind.read(raw[kind.name]);
		if (raw[kind.name] !== undefined && !stored) return null;
		// A list the selected events no longer read is dropped; one they read now starts at the last poll.
		const window = lists[kind.list as ListName] ? (stored ?? kind.start?.(from(kind.name))) : undefined;
		if (window) windows[kind.name] = window;
	}
	return windows;
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
	const storedSessions = raw.sessions === undefined ? undefined : readSessionList(raw.sessions);
	if (raw.sessions !== undefined && !storedSessions) return undefined;
	const top = readTopWindows(raw, lists, startsAt(raw.polledAt, selection?.offsets ?? {}));
	const sessions = sessionsFor(storedSessions, { polledAt: raw.polledAt, ev: raw.ev }, expect);
	if (top === null || sessions === null) return undefined;
	const memories = readEventMemories(raw, lists);
	// Where versions before this one kept the rotation: in Request Updated's records.
	const cursor = lists.watched ? [raw.cursor, isRecord(raw.updates) ? raw.updates.cursor : undefined].find((value) => value !== undefined && isCount(value)) : undefined;
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
		...(cursor !== undefined ? { cursor: cursor as number } : {}),
		...top,
		...memories,
	};
}

/** The memory of a state `readState` accepted. */
export function decodeMemory(state: TriggerState, settings: TriggerSettings): TriggerMemory {
	const stored = state as unknown as Record<string, unknown>;
	const windows: Record<string, WindowMemory> = {};
	for (const kind of windowsOfList('requests')) if (stored[kind.name] !== undefined) windows[kind.name] = kind.decode(stored[kind.name] as never);
	const sessionList = state.sessions && decodeSessionList(state.sessions);
	return {
		label: { fingerprint: state.fp, key: state.key, ref: state.ref, events: state.ev, baseUrl: state.bu },
		since: state.since,
		polledAt: state.polledAt,
		skewMs: state.skewMs,
		windows: { ...windows, ...sessionList?.windows },
		...(sessionList ? { sessions: sessionList.sessions } : {}),
		...(state.cursor !== undefined ? { rotation: state.cursor } : {}),
		events: Object.fromEntries(selectedKinds(settings).flatMap((kind) => (kind.memory ? [[kind.memory.slot, kind.memory.decode(state[kind.memory.slot])]] : []))),
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

/** The static data of a memory, once, at the end of a poll. */
export function writeMemory(memory: TriggerMemory): TriggerState {
	const { label } = memory;
	const stored: Record<string, unknown> = {};
	for (const kind of windowsOfList('requests')) {
		const window = memory.windows[kind.name];
		if (window) stored[kind.name] = kind.encode(window);
	}
	for (const kind of EVENT_KINDS) {
		const own = kind.memory && memory.events[kind.memory.slot];
		if (kind.memory && own !== undefined) stored[kind.memory.slot] = kind.memory.encode(own, memory.polledAt);
	}
	return {
		v: STATE_VERSION,
		fp: label.fingerprint,
		...(label.key !== undefined ? { key: label.key } : {}),
		...(label.ref !== undefined ? { ref: label.ref } : {}),
		...(label.events !== undefined ? { ev: label.events } : {}),
		...(label.baseUrl !== undefined ? { bu: label.baseUrl } : {}),
		...(label.generation !== undefined ? { g: label.generation } : {}),
		since: memory.since,
		polledAt: memory.polledAt,
		skewMs: memory.skewMs,
		...(memory.sessions ? { sessions: encodeSessionList(memory.windows, memory.sessions) } : {}),
		...(memory.rotation !== undefined ? { cursor: memory.rotation } : {}),
		...stored,
	};
}
