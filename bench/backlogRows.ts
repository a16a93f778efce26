/**
 * Benchmark row of the idle-drafts backlog (child-process entry, like triggerRows.ts): 1,000 drafts
 * left idle 45 minutes below 2,000 bookings completed through drafts — Session Abandoned, Session
 * Completed and New Request, Skip Customers Who Booked on — drained at the real 1 request/s under
 * n8n's 36 s budget. The drain is triggerRows.ts's `shape idleDrafts` (harness/backlogShapes.ts,
 * harness/backlogDrain.ts: each event checked once); this row also counts the calls per page of the
 * two lists (20 request pages + 30 session pages = 50: the drafts are all due at the first poll, so no
 * page needs reading twice), next to the calls per page the shape's rules count (60).
 *
 * Usage: node scripts/ts-run.js bench/backlogRows.ts
 *        `npm run bench -- --only=backlog` runs it and prints its row.
 */
import { pagesNeeded, SHAPES } from '../harness/backlogShapes';
import type { RowResult } from './rows';
import { triggerShapeRow } from './triggerRows';

export async function idleDraftsBacklogRow(): Promise<RowResult> {
	const shape = SHAPES.find((candidate) => candidate.name === 'idleDrafts');
	if (!shape) throw new Error('no idleDrafts shape');
	const listPages = shape.pages.requests + shape.pages.sessions;
	const drained = await triggerShapeRow(shape.name);
	return {
		...drained,
		row: `Trigger backlog, 1,000 drafts idle 45 min below 2,000 completed bookings, per page of the lists (${listPages} pages)`,
		minCalls: listPages,
		minSeconds: listPages - 1,
		note: `${drained.calls} calls: ${(drained.calls / listPages).toFixed(2)} per page of the lists (${shape.pages.requests} request + ${shape.pages.sessions} session pages), ${(drained.calls / pagesNeeded(shape)).toFixed(2)} per page the shape's rules count (${pagesNeeded(shape)}); ${(drained.note ?? '').replace(/; minimum = .*$/, '')}`,
	};
}

if (process.argv[1]?.endsWith('backlogRows.ts')) {
	idleDraftsBacklogRow()
		.then((row) => {
			process.stdout.write(`\n${JSON.stringify([row])}\n`);
			process.exit(0);
		})
		.catch((error: unknown) => {
			console.error(error);
			process.exit(1);
		});
}
