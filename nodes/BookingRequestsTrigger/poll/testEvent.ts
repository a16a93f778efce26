/**
 * "Fetch Test Event": up to 3 recent samples of each selected event from page 1 of each list, shaped
 * exactly like the published trigger's items; the state is neither read nor written.
 */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { BookingRequest, BookingSession } from '../../shared/types';
import { listsFor, pickSamples } from '../events';
import type { PageObservation } from '../model/pages';
import { pollNow } from '../model/pages';
import type { TriggerSettings } from '../events';
import type { ItemOptions } from '../output/itemFields';
import { needsRequest } from '../output/itemFields';
import type { FirstPages } from '../output/samples';
import { withSampleRequests } from './attach';
import { PollClock } from './budget';
import { toItems } from './items';
import type { PageSource } from './source';

/** Reads page 1 of the lists the selected events read: items and the server's time. */
export async function readFirstPages(source: PageSource, settings: TriggerSettings): Promise<FirstPages> {
	const lists = listsFor(settings);
	const clock = new PollClock(undefined);
	const out: FirstPages = { now: 0 };
	const pages: PageObservation[] = [];
	for (const list of ['requests', 'sessions'] as const) {
		if (!lists[list]) continue;
		const page = await source.readPage(list, 1);
		if (!page) break;
		clock.observe(page.serverDate);
		pages.push({ ...page, list, seq: pages.length });
		if (list === 'sessions') out.sessions = page.items as BookingSession[];
		else out.requests = page.items as BookingRequest[];
	}
	out.now = pollNow(pages, clock.now);
	return out;
}

export async function testEvent(ctx: IPollFunctions, input: { source: PageSource; settings: TriggerSettings; output: Omit<ItemOptions, 'now'>; deadline: number }): Promise<INodeExecutionData[]> {
	const { source, settings, output } = input;
	const first = await readFirstPages(source, settings);
	const samples = await withSampleRequests(source, pickSamples(first.sessions, first.requests, first.now, settings), first.requests, (session) => needsRequest(session, output));
	return await toItems(ctx, samples, { ...output, now: first.now }, { deadline: input.deadline });
}
