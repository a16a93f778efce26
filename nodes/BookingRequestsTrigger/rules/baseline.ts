/**
 * The baseline: the first poll (or a new start) emits nothing and remembers where things stand, so
 * that only what happens from now on is reported.
 */
import { BookedMemory, RemindedMemory } from '../state/customers';
import { KeySet } from '../state/keySet';
import { SeenMemory } from '../state/seen';
import { UpdatesMemory } from '../events/requestUpdated/records';
import type { CustomerMemories, TriggerMemory } from '../state/decoded';
import type { ListName, PageObservation } from '../model/pages';
import { sortTime } from '../model/pages';
import type { TriggerSettings } from '../model/settings';
import { skipsBooked } from '../model/settings';
import type { WindowMemory } from '../model/windows';
import { bookingsInPoll, sharedInPoll } from '../events/context';
import { listsFor } from '../events';
import { locatedBelow } from './advance';
import { firstSessionsPage } from './next';

function baselineWindow(pages: PageObservation[], list: ListName, floor: number, below?: number): WindowMemory {
	const done = new KeySet();
	const firstPage = pages.find((page) => page.list === list && page.page === 1);
	for (const item of firstPage?.items ?? []) {
		const time = sortTime(list, item);
		// A timestamp ahead of the server's clock is not history: remembered, so it is not reported later either.
		if (time !== null && time > floor) done.add(time, item.id);
	}
	return { floor, done, ...(below !== undefined ? { below } : {}) };
}

/** The customers' memory of a baseline: the bookings on the first page of the request list count for drafts already open. */
function baselineCustomers(pages: PageObservation[], settings: TriggerSettings, now: number): CustomerMemories {
	const booked = new BookedMemory();
	const shared = sharedInPoll(pages);
	const identity = (codes: string[]) => codes.filter((code) => !shared.has(code));
	if (skipsBooked(settings)) for (const [code, at] of bookingsInPoll(pages, now, identity).newest) booked.add([code], at);
	booked.prune(now);
	const sharedMemory = new SeenMemory();
	for (const code of shared) sharedMemory.addCode(code, now);
	return { seen: new SeenMemory(), booked, reminded: new RemindedMemory(), shared: sharedMemory };
}

/** The baseline's customers with the ones a state about another Form carried (they are about customers, not a form). */
function withCarried(customers: CustomerMemories, carried: CustomerMemories | undefined): CustomerMemories {
	if (!carried) return customers;
	carried.booked.merge(customers.booked);
	carried.shared.merge(customers.shared);
	return carried;
}

export function baselineMemory(input: { pages: PageObservation[]; settings: TriggerSettings; now: number; skewMs: number | undefined; carried?: CustomerMemories }): TriggerMemory {
	const { pages, settings, now } = input;
	const lists = listsFor(settings);
	const memory: TriggerMemory = { label: { fingerprint: settings.fingerprint }, since: now, polledAt: now, skewMs: input.skewMs ?? 0 };
	if (lists.requests) memory.requests = baselineWindow(pages, 'requests', now, locatedBelow(pages, 'requests', now));
	if (lists.sessions) {
		const horizonFloor = now - settings.abandonedAfterMs;
		const first = firstSessionsPage(pages);
		memory.sessions = {
			completions: baselineWindow(pages, 'sessions', now, locatedBelow(pages, 'sessions', now)),
			// Nothing to remember at the horizon: only sessions that cross it from now on are reported.
			horizon: baselineWindow([], 'sessions', horizonFloor, locatedBelow(pages, 'sessions', horizonFloor)),
			checkpoints: first?.total !== undefined ? [[first.serverDate ?? now, first.total]] : [],
			customers: withCarried(baselineCustomers(pages, settings, now), input.carried),
		};
	}
	if (lists.updates) memory.updates = new UpdatesMemory();
	return memory;
}
