/**
 * The baseline: the first poll (or a new start) emits nothing and remembers where things stand, so
 * that only what happens from now on is reported.
 */
import type { BookingRequest } from '../../shared/types';
import { bookedAtStart } from '../events/skipBooked';
import { listsFor, selectedKinds, windowOffsets } from '../events';
import type { PageObservation } from '../model/pages';
import { requestsRead } from '../model/pages';
import type { TriggerSettings } from '../events';
import { RemindedMemory, sharedPhoneCodes } from '../state/customers';
import type { CustomerMemories, TriggerMemory } from '../state/decoded';
import { SeenMemory } from '../state/seen';
import { WINDOW_KINDS } from '../windows';
import type { WindowMemory } from '../windows/window';
import { nextCheckpoints } from './next';

/** The customers' memory of a baseline: the bookings it read count for drafts already open (skipBooked.ts). */
function baselineCustomers(pages: PageObservation[], settings: TriggerSettings, now: number): CustomerMemories {
	const shared = sharedPhoneCodes(requestsRead<BookingRequest>(pages));
	const booked = bookedAtStart(pages, settings, now, (codes) => codes.filter((code) => !shared.has(code)));
	const sharedMemory = new SeenMemory();
	for (const code of shared) sharedMemory.addCode(code, now);
	return { seen: new SeenMemory(), booked, reminded: new RemindedMemory(), shared: sharedMemory };
}

export function baselineMemory(input: { pages: PageObservation[]; settings: TriggerSettings; now: number; skewMs: number | undefined }): TriggerMemory {
	const { pages, settings, now } = input;
	const lists = listsFor(settings);
	// Each window of a list the selected events read starts where things stand (windows/: `baseline`).
	const windows: Record<string, WindowMemory> = {};
	const offsets = windowOffsets(settings);
	for (const kind of WINDOW_KINDS) if (lists[kind.list] && kind.baseline) windows[kind.name] = kind.baseline(pages, now, offsets[kind.name]);
	// Each selected event with a memory of its own starts it empty.
	const events = Object.fromEntries(selectedKinds(settings).flatMap((kind) => (kind.memory ? [[kind.memory.slot, kind.memory.decode(undefined)]] : [])));
	const memory: TriggerMemory = { label: { fingerprint: settings.fingerprint }, since: now, polledAt: now, skewMs: input.skewMs ?? 0, windows, events };
	if (lists.sessions) {
		memory.sessions = {
			checkpoints: nextCheckpoints([], pages, now),
			customers: baselineCustomers(pages, settings, now),
		};
	}
	return memory;
}
