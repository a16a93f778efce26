// What the sandbox keeps between runs (SandboxOptions.stateFile): its data, where its random draws got
// to, and its clock. A sandbox that goes on from it never makes an id twice (a published trigger that
// remembers a session would take a new one with the same id for the old one) and its clock never goes
// back behind what a client read from it.

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from './types';

/** The store's part: its workspaces and revoked keys, the generator of new rows, the control routes' "newest". */
export interface StoreState {
	seed: number;
	demo: Workspace;
	other: Workspace;
	revoked: string[];
	/** Rng.state of the generator that makes new rows (ids, people, addresses). */
	rng: number;
	/** The write counter and when each row was last written (Store.writtenAt). */
	version: number;
	written: Array<[string, number]>;
}

export interface SandboxState {
	/** The shape of this file; a sandbox refuses one it cannot read rather than start from half of it. */
	format: typeof FORMAT;
	/** The sandbox clock when it was saved (epoch ms). */
	now: number;
	store: StoreState;
}

const FORMAT = 1;

/** The state saved in `file`, or undefined when there is none yet; throws when the file is not one. */
export function readSandboxState(file: string): SandboxState | undefined {
	let text: string;
	try {
		text = fs.readFileSync(file, 'utf8');
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
		throw err;
	}
	let state: Partial<SandboxState> | undefined;
	try {
		state = JSON.parse(text) as Partial<SandboxState>;
	} catch {
		state = undefined;
	}
	if (state?.format !== FORMAT || typeof state.now !== 'number' || typeof state.store?.rng !== 'number') {
		throw new Error(`${file} is not a sandbox state this version can read (format ${FORMAT}): remove it to start the sandbox afresh`);
	}
	return state as SandboxState;
}

/** Writes the state whole or not at all (a process killed while writing leaves the last one). */
export function writeSandboxState(file: string, now: number, store: StoreState): void {
	const state: SandboxState = { format: FORMAT, now, store };
	fs.mkdirSync(path.dirname(file), { recursive: true });
	const partial = `${file}.${process.pid}.tmp`;
	fs.writeFileSync(partial, JSON.stringify(state));
	fs.renameSync(partial, file);
}

/**
 * The clock of a sandbox that goes on from a state: real time, or the saved clock when that is ahead
 * (moved on by a control route), so that nothing it stamps is older than what clients read before.
 * An offset shrinks by the time the sandbox was stopped, back to real time.
 */
export function resumedOffsetMs(state: SandboxState, realNow = Date.now()): number {
	return Math.max(0, state.now - realNow);
}
