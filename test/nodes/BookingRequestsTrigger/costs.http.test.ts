/**
 * Calls per page drained over HTTP (`npm run test:costs`, in band): the backlog shapes of
 * harness/backlogShapes.ts played on the sandbox and drained by the node in n8n-core's real
 * PollContext, with n8n's durable-scheduler budget scaled to a shorter rate gap (about 30 calls a
 * poll, as 36 s give at the contract's 1 s: CI time; the bench runs the same shapes at the real
 * limit). Each event once, oldest first; calls per page the rules need ≤ 1.2 (the sandbox's log
 * counts the calls); no poll of the drain finds nothing; the poll after it reads page 1 of each list.
 * The sandbox makes its default choices, late commits included (each write visible 0 to 2 s after its
 * stamp): the costs hold with them.
 */
import { GAP_MS, setPacingGapForTests } from '../../../harness/limiterSettings';
import { countsOf, drainOverHttp, eventTime } from '../../../harness/backlogDrain';
import type { BacklogShape } from '../../../harness/backlogShapes';
import { drainTable, MAX_CALLS_PER_PAGE, pagesNeeded, SHAPES, totalEvents } from '../../../harness/backlogShapes';
import { rateLimitedCount } from '../../../harness/sandboxGaps';
import { hashKey, startSandbox } from '../../../sandbox';
import type { Sandbox } from '../../../sandbox';
import { printFigures } from '../../support/figures';

jest.setTimeout(600_000);

const SANDBOX_GAP_MS = 190;
const CLIENT_GAP_MS = 200;
/**
 * About 30 calls at CLIENT_GAP_MS after the node's margins (its deadline and last-call reserve), as
 * n8n's 36 s give at 1 s. The gap is long enough that the poll's own work (a few ms a page) moves the
 * calls a poll affords by one at most: fewer calls a poll would cost more page-1 reads per page.
 */
const BUDGET_MS = 10_700;

let sandbox: Sandbox;

beforeAll(() => setPacingGapForTests(CLIENT_GAP_MS));
afterAll(() => setPacingGapForTests(GAP_MS));
beforeEach(async () => {
	sandbox = await startSandbox({ minGapMs: SANDBOX_GAP_MS, sizes: { requests: 0, sessions: 0 } });
});
afterEach(async () => {
	expect(rateLimitedCount(sandbox.log, hashKey(sandbox.keys.demo))).toBe(0);
	await sandbox.close();
});

test.each(SHAPES.map((shape) => [shape.label, shape] as const))('%s', async (_label, shape: BacklogShape) => {
	const drain = await drainOverHttp(sandbox, shape, BUDGET_MS);
	const pages = pagesNeeded(shape);
	printFigures(
		`[costs over HTTP] ${shape.name}: ${drain.calls} calls for ${pages} pages (${(drain.calls / pages).toFixed(2)}), ${drain.polls.length - 1} polls + a quiet one\n${drainTable(drain)}`,
	);
	const ids = drain.emitted.map((item) => String(item.event_id));
	expect(new Set(ids).size).toBe(ids.length);
	expect(countsOf(drain.emitted)).toEqual(shape.events);
	expect(drain.emitted).toHaveLength(totalEvents(shape));
	const delay = shape.abandonedAfterMinutes * 60_000;
	for (let i = 1; i < drain.emitted.length; i++) expect(eventTime(drain.emitted[i], delay)).toBeGreaterThanOrEqual(eventTime(drain.emitted[i - 1], delay));
	expect(drain.calls / pages).toBeLessThanOrEqual(MAX_CALLS_PER_PAGE);
	for (const poll of drain.polls.slice(0, -1)) expect(poll.events).toBeGreaterThan(0);
	expect(drain.polls.at(-1)?.calls).toBe(2);
});
