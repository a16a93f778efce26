/**
 * The windows the trigger reads (windows/window.ts: what each declares). The rules, the planner and the
 * codec go through this list; the order is the order they are read and moved on in (the held drafts
 * after the horizon that hands them on).
 */
import type { ListName } from '../model/pages';
import { completionsWindow, requestsWindow } from './topOfList';
import type { HeldState } from './held';
import { heldWindow } from './held';
import { horizonWindow } from './horizon';
import type { WindowKind, WindowMemory, WindowState } from './window';

export const WINDOW_KINDS: readonly WindowKind[] = [requestsWindow, completionsWindow, horizonWindow, heldWindow];

/** A window's name (events name the windows they read and judge). */
export type WindowName = 'requests' | 'completions' | 'horizon' | 'held';

/** The memory of every window, by name (absent: the window keeps nothing). */
export type WindowMemories = Readonly<Record<string, WindowMemory | undefined>>;

/**
 * The stored windows: the request list's at the top of the state, the session list's inside its
 * `sessions` (state/format.ts), each under its name.
 */
export interface RequestWindowsState {
	requests?: WindowState;
}
export interface SessionWindowsState {
	completions: WindowState;
	horizon: WindowState;
	held?: HeldState;
}

export function windowKind(name: string): WindowKind {
	return WINDOW_KINDS.find((kind) => kind.name === name) as WindowKind;
}

/** The windows of one list. */
export function windowsOfList(list: ListName): WindowKind[] {
	return WINDOW_KINDS.filter((kind) => kind.list === list);
}
