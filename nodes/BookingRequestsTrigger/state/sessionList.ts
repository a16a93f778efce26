/**
 * The session list's part of the state (`sessions`): its windows, each under its name and encoded by
 * its module (windows/), the checkpoints, and the customers' memories. Read, decoded and encoded here
 * only; codec.ts puts it in the state.
 */
import type { WindowMemory, WindowStart } from '../windows/window';
import { windowsOfList } from '../windows';
import { BookedMemory, isPackedBooked } from '../events/skipBooked';
import { isPackedReminded, RemindedMemory } from './customers';
import type { Checkpoint, CustomerChanges, CustomerMemories, SessionListMemory } from './decoded';
import type { SessionsState } from './format';
import { isMs, isMsKey, isRecord, readPacked } from './checks';
import { SeenMemory } from './seen';

function readCheckpoints(raw: unknown): Checkpoint[] | undefined {
	if (!Array.isArray(raw)) return undefined;
	const checkpoints: Checkpoint[] = [];
	for (const entry of raw as unknown[]) {
		if (!Array.isArray(entry) || entry.length !== 2 || !isMs(entry[0]) || !Number.isInteger(entry[1]) || entry[1] < 0) return undefined;
		checkpoints.push([entry[0], entry[1] as number]);
	}
	return checkpoints;
}

/** The windows of the session list, each checked by its module; undefined when one is malformed or a required one is missing. */
function readWindows(raw: Record<string, unknown>): Record<string, unknown> | undefined {
	const windows: Record<string, unknown> = {};
	for (const kind of windowsOfList('sessions')) {
		if (raw[kind.name] === undefined) {
			if (kind.required) return undefined;
			continue;
		}
		const window = kind.read(raw[kind.name]);
		if (!window) return undefined;
		windows[kind.name] = window;
	}
	return windows;
}

/** The stored session list, checked; undefined when any part of it is malformed. */
export function readSessionList(raw: unknown): SessionsState | undefined {
	if (!isRecord(raw)) return undefined;
	const windows = readWindows(raw);
	const seen = readPacked(raw.seen, isMsKey);
	const checkpoints = readCheckpoints(raw.checkpoints);
	if (!windows || !seen || !checkpoints) return undefined;
	const booked = raw.booked === undefined ? {} : readPacked(raw.booked, isMsKey, isPackedBooked);
	const reminded = raw.reminded === undefined ? {} : readPacked(raw.reminded, isMsKey, isPackedReminded);
	const shared = raw.shared === undefined ? {} : readPacked(raw.shared, isMsKey);
	if (!booked || !reminded || !shared) return undefined;
	return {
		...(windows as unknown as SessionsState),
		checkpoints,
		seen,
		...(Object.keys(booked).length > 0 ? { booked } : {}),
		...(Object.keys(reminded).length > 0 ? { reminded } : {}),
		...(Object.keys(shared).length > 0 ? { shared } : {}),
	};
}

/** The session list of a state that had none (a session event added): its windows start from the last poll. */
export function startSessionList(from: (window: string) => WindowStart): SessionsState {
	const windows: Record<string, unknown> = {};
	for (const kind of windowsOfList('sessions')) if (kind.required && kind.start) windows[kind.name] = kind.start(from(kind.name));
	return { ...(windows as unknown as SessionsState), checkpoints: [], seen: {} };
}

/**
 * The customers' memories, kept whatever the options (each expires by its own retention): turning an
 * option off and on again loses nothing it had remembered.
 */
export function decodeCustomers(sessions: Pick<SessionsState, 'seen' | 'booked' | 'reminded' | 'shared'>): CustomerMemories {
	return {
		seen: SeenMemory.decode(sessions.seen),
		booked: BookedMemory.decode(sessions.booked),
		reminded: RemindedMemory.decode(sessions.reminded),
		shared: SeenMemory.decode(sessions.shared),
	};
}

/**
 * Applies what a poll changes in the customers' memories, in place: the shared phones it found, its
 * handled decisions' additions, then each memory pruned by the event time it judged up to (a catch-up,
 * the trigger off for weeks, judges events older than now, and what it remembers of them must last until
 * the events after them are judged). Returns what the bounds made them forget.
 */
export function applyCustomers(customers: CustomerMemories, changes: CustomerChanges): { seen: number; booked: number; reminded: number } {
	const { seen, booked, reminded, shared } = customers;
	for (const code of changes.shared) shared.addCode(code, changes.now);
	shared.prune(changes.now);
	for (const added of changes.added) {
		if (added.seen) seen.add(added.seen.id, added.seen.at);
		if (added.booked) booked.add(added.booked.codes, added.booked.at);
		if (added.reminded) reminded.add(added.reminded);
	}
	seen.prune(changes.judgedUpTo);
	booked.prune(changes.judgedUpTo);
	reminded.prune(changes.judgedUpTo);
	return { seen: seen.droppedForBound, booked: booked.droppedForBound, reminded: reminded.droppedForBound };
}

export function decodeSessionList(state: SessionsState): { windows: Record<string, WindowMemory>; sessions: SessionListMemory } {
	const stored = state as unknown as Record<string, unknown>;
	const windows: Record<string, WindowMemory> = {};
	for (const kind of windowsOfList('sessions')) if (stored[kind.name] !== undefined) windows[kind.name] = kind.decode(stored[kind.name] as never);
	return {
		windows,
		sessions: { checkpoints: state.checkpoints.map(([time, length]): Checkpoint => [time, length]), customers: decodeCustomers(state) },
	};
}

export function encodeSessionList(windows: Readonly<Record<string, WindowMemory | undefined>>, sessions: SessionListMemory): SessionsState {
	const stored: Record<string, unknown> = {};
	for (const kind of windowsOfList('sessions')) {
		const memory = windows[kind.name];
		if (memory) stored[kind.name] = kind.encode(memory);
	}
	const { seen, booked, reminded, shared } = sessions.customers;
	const packed = { booked: booked.encode(), reminded: reminded.encode(), shared: shared.encode() };
	return {
		...(stored as unknown as SessionsState),
		checkpoints: sessions.checkpoints,
		seen: seen.encode(),
		...(Object.keys(packed.booked).length > 0 ? { booked: packed.booked } : {}),
		...(Object.keys(packed.reminded).length > 0 ? { reminded: packed.reminded } : {}),
		...(Object.keys(packed.shared).length > 0 ? { shared: packed.shared } : {}),
	};
}
