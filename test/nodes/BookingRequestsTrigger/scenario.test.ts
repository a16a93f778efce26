/**
 * Scripted scenario: 300 customers over 10 polls with churn (saves), completions (some after being
 * reported abandoned), bookings without a draft and direct requests, against the sandbox with the real
 * rate limit, through n8n's PollContext. A model of the rules computes the events each poll must
 * emit; the test asserts them exactly and prints (TEST_FIGURES=1) expected vs emitted events, calls per poll, the
 * sessions remembered as seen abandoned and the state size.
 */
import type { IDataObject } from 'n8n-workflow';

import { createHarness } from '../../../harness/inProcessN8n';
import { hashKey, startSandbox } from '../../../sandbox';
import type { Sandbox } from '../../../sandbox';
import { TriggerRun } from './trigger';
import { pacing429s } from '../../support/pacing429';
import { printFigures } from '../../support/figures';

jest.setTimeout(300_000);

const MIN = 60_000;
const DELAY_MIN = 25;
const ROUND_MS = 10 * MIN;

interface Row {
	poll: string;
	expected: { abandoned: number; completed: number; recovered: number; requests: number };
	emitted: { abandoned: number; completed: number; recovered: number; requests: number };
	calls: { sessions: number; requests: number; total: number };
	stateBytes: number;
	/** Sessions in the seen-abandoned memory. */
	seen: number;
}

let sandbox: Sandbox;
afterAll(async () => await sandbox?.close());

test('300 sessions over 10 polls with churn: expected vs emitted events, calls per poll', async () => {
	sandbox = await startSandbox({ minGapMs: 1000 });
	const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
	const run = new TriggerRun(harness, sandbox, {
		events: ['sessionAbandoned', 'sessionCompleted', 'requestCreated'],
		abandonedAfterMinutes: DELAY_MIN,
	});
	let seed = 20261122;
	const rnd = () => {
		seed = (seed * 1103515245 + 12345) % 2 ** 31;
		return seed / 2 ** 31;
	};
	const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)];

	const rows: Row[] = [];
	const reportedAbandoned = new Set<string>();
	const reportedCompleted = new Set<string>();
	const reportedRequests = new Set<string>();
	const mine = new Set<string>(); // sessions created after the baseline
	// Requests there at the baseline: history. A request written after it is new whatever its created_at
	// (the sandbox's late commits stamp a write up to 2 s before it is visible, so before the baseline).
	const history = new Set<string>();

	const expectedNow = (now: number) => {
		const ws = sandbox.workspace();
		const ids: string[] = [];
		let recovered = 0;
		const counts = { abandoned: 0, completed: 0, recovered: 0, requests: 0 };
		for (const session of ws.sessions) {
			if (!mine.has(session.id)) continue;
			if (session.request_id === null) {
				const at = Date.parse(session.updated_at!);
				if (at + DELAY_MIN * MIN <= now && !reportedAbandoned.has(session.id)) {
					ids.push(`session.abandoned:${session.id}:${at}`);
					counts.abandoned++;
				}
			} else if (!reportedCompleted.has(session.id)) {
				ids.push(`session.completed:${session.id}:${session.request_id}`);
				counts.completed++;
				if (reportedAbandoned.has(session.id)) recovered++;
			}
		}
		for (const request of ws.requests) {
			if (!history.has(request.id) && !reportedRequests.has(request.id)) {
				ids.push(`request.created:${request.id}`);
				counts.requests++;
			}
		}
		counts.recovered = recovered;
		return { ids: ids.sort(), counts };
	};

	const pollAndCheck = async (label: string) => {
		const expected = expectedNow(sandbox.clock.now());
		const outcome = await run.poll();
		const items: IDataObject[] = outcome.items ?? [];
		const got = items.map((item) => String(item.event_id)).sort();
		expect(got).toEqual(expected.ids);
		const emitted = { abandoned: 0, completed: 0, recovered: 0, requests: 0 };
		for (const item of items) {
			if (item.event === 'session.abandoned') {
				emitted.abandoned++;
				reportedAbandoned.add(String(item.id));
			} else if (item.event === 'session.completed') {
				emitted.completed++;
				if (item.recovered === true) emitted.recovered++;
				reportedCompleted.add(String(item.id));
			} else {
				emitted.requests++;
				reportedRequests.add(String(item.id));
			}
		}
		expect(emitted).toEqual(expected.counts);
		const stored = run.stored;
		rows.push({
			poll: label,
			expected: expected.counts,
			emitted,
			calls: {
				sessions: outcome.byPath['/api/v1/abandoned-sessions'] ?? 0,
				requests: outcome.byPath['/api/v1/requests'] ?? 0,
				total: outcome.calls,
			},
			stateBytes: JSON.stringify(stored ?? {}).length,
			seen: Object.values(((stored?.sessions as IDataObject | undefined)?.seen ?? {}) as Record<string, string>).join('').length / 8,
		});
	};

	for (const request of sandbox.workspace().requests) history.add(request.id);
	await pollAndCheck('baseline');

	for (let round = 1; round <= 10; round++) {
		for (let i = 0; i < 30; i++) mine.add(sandbox.startSession().id);
		const open = () => sandbox.workspace().sessions.filter((session) => mine.has(session.id) && session.request_id === null);
		for (let i = 0; i < 10; i++) sandbox.saveSession(pick(open()).id); // churn: customers still working
		for (let i = 0; i < 6; i++) sandbox.completeSession(pick(open()).id); // some of them were reported abandoned
		for (let i = 0; i < 2; i++) mine.add(sandbox.bookWithoutDraft().session.id);
		for (let i = 0; i < 2; i++) sandbox.addRequest();
		sandbox.clock.advance(ROUND_MS);
		await pollAndCheck(`poll ${round}`);
	}
	sandbox.clock.advance(DELAY_MIN * MIN);
	await pollAndCheck('settle');
	await pollAndCheck('quiet');

	const total = rows.reduce(
		(sum, row) => ({
			expected: sum.expected + row.expected.abandoned + row.expected.completed + row.expected.requests,
			emitted: sum.emitted + row.emitted.abandoned + row.emitted.completed + row.emitted.requests,
			calls: sum.calls + row.calls.total,
		}),
		{ expected: 0, emitted: 0, calls: 0 },
	);
	const table = [
		'poll      | expected ab/co(rec)/req | emitted ab/co(rec)/req | calls sess+req | seen    | state bytes',
		...rows.map(
			(row) =>
				`${row.poll.padEnd(9)} | ${`${row.expected.abandoned}/${row.expected.completed}(${row.expected.recovered})/${row.expected.requests}`.padEnd(23)} | ${`${row.emitted.abandoned}/${row.emitted.completed}(${row.emitted.recovered})/${row.emitted.requests}`.padEnd(22)} | ${`${row.calls.sessions}+${row.calls.requests}`.padEnd(14)} | ${String(row.seen).padEnd(7)} | ${row.stateBytes}`,
		),
		`total: expected ${total.expected} events, emitted ${total.emitted}, ${total.calls} calls in ${rows.length} polls; 429s from the API: ${sandbox.stats().rateLimited}`,
	].join('\n');
	printFigures(table);

	expect(total.emitted).toBe(total.expected);
	expect(reportedAbandoned.size + reportedCompleted.size).toBeGreaterThan(250);
	expect(rows.at(-1)!.calls).toEqual({ sessions: 1, requests: 1, total: 2 });
	expect(Math.max(...rows.map((row) => row.calls.total))).toBeLessThanOrEqual(4);
	expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
});
