/**
 * The weekly funnel report (examples/funnel-report.json) in a real n8n 2.x (2.41.1), as an agency runs it:
 * the packed package, the sandbox API in this process at its real 1 request/s, the workflow as
 * shipped, run from its Schedule Trigger through the REST API (the editor's Execute workflow).
 *
 * The sandbox holds two stretches of booking activity: 3 weeks that ended 8 days ago (not in the
 * report) and the last 6 days (the report's week), on 3 forms with 4 marketing sources, 30% of the
 * sessions completed (some without a draft: placeholder sessions), requests without a session, and
 * 2 requests of the week deleted since (their sessions count as completed, with no minutes to book).
 * The Data table (read through n8n's REST API) must then hold one row per form and utm_source of the
 * week's sessions, with the sessions, completed, conversion rate and median minutes to book computed
 * here from the sandbox's data; a second run the same day replaces those rows (no duplicate).
 */
import { playBookingActivity } from '../../harness/bookingActivity';
import { hashKey, sortSessions, startSandbox, type Sandbox, type Session } from '../../sandbox';
import { dataTableRows } from './helpers/dataTable';
import { startRecipe, type Recipe } from './helpers/recipe';
import { loadState } from './helpers/state';
import { pacing429s } from '../support/pacing429';

const FILE = 'funnel-report.json';
const CREDENTIAL = { id: 'brFunnelCred0001', name: 'Booking Requests (funnel report e2e)' };
const TABLE = 'booking_funnel';
const DAY = 24 * 60 * 60_000;

// node names in the example file
const NODES = {
	schedule: 'Every Monday 07:00',
	forms: 'Booking forms',
	sessions: 'Sessions of the last 7 days',
	summarize: 'By form and utm_source',
	row: 'Report row',
	upsert: 'Report table: create or update',
};

const COLUMNS = ['row_key', 'week_ending', 'form_id', 'form_name', 'utm_source', 'sessions', 'completed', 'conversion_rate', 'median_minutes_to_book'] as const;
type Row = Record<(typeof COLUMNS)[number], string | number | null>;

const median = (values: number[]): number | null => {
	if (values.length === 0) return null;
	const sorted = [...values].sort((a, b) => a - b);
	return (sorted[Math.floor((sorted.length - 1) / 2)] + sorted[Math.ceil((sorted.length - 1) / 2)]) / 2;
};

/** minutes_to_book as the node page defines it: first save (session created_at) to the request's created_at. */
function minutesToBook(session: Session, sandbox: Sandbox): number | null {
	const request = sandbox.workspace().requests.find((r) => r.id === session.request_id);
	const placeholder = session.step === 'confirm' && Object.keys(session.data).length === 0;
	if (!request || placeholder || session.created_at === null) return null;
	const minutes = (Date.parse(request.created_at) - Date.parse(session.created_at)) / 60_000;
	return minutes < 0 ? null : Math.floor(minutes);
}

/** The report's rows as the sandbox's data gives them, for the sessions active after `since`. */
function expectedRows(sandbox: Sandbox, since: number, weekEnding: string): Row[] {
	const forms = new Map(sandbox.workspace().forms.map((f) => [f.id, f.name]));
	const groups = new Map<string, Session[]>();
	for (const session of sandbox.workspace().sessions) {
		if (session.updated_at === null || Date.parse(session.updated_at) <= since) continue;
		const key = `${session.form_id} ${session.attribution?.utm_source ?? '(none)'}`;
		groups.set(key, [...(groups.get(key) ?? []), session]);
	}
	return [...groups].map(([key, sessions]) => {
		const completed = sessions.filter((s) => s.request_id !== null);
		const minutes = completed.map((s) => minutesToBook(s, sandbox)).filter((m): m is number => m !== null);
		const [formId, utmSource] = key.split(' ');
		return {
			row_key: `${weekEnding} ${key}`,
			week_ending: weekEnding,
			form_id: formId,
			form_name: forms.get(formId) ?? null,
			utm_source: utmSource,
			sessions: sessions.length,
			completed: completed.length,
			conversion_rate: Math.round((completed.length / sessions.length) * 1000) / 1000,
			median_minutes_to_book: median(minutes),
		};
	});
}

const byKey = (a: Row, b: Row) => String(a.row_key).localeCompare(String(b.row_key));

describe('funnel report recipe (examples/funnel-report.json) in a real n8n', () => {
	const state = loadState();
	let sandbox: Sandbox;
	let recipe: Recipe;
	const figures: Record<string, unknown> = {};

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, seed: 35, sizes: { requests: 0, sessions: 0, forms: 3 } });
		// 3 weeks that ended 8 days ago, then the last 6 days: no session near the report's 7-day edge
		sandbox.clock.advance(-8 * DAY);
		playBookingActivity(sandbox, { sessions: 600, days: 21, history: 300 });
		sandbox.clock.advance(8 * DAY);
		playBookingActivity(sandbox, { sessions: 420, days: 6 });
		const week = sortSessions(sandbox.workspace().sessions).filter((s) => s.request_id !== null && s.data.contact);
		for (const session of [week[3], week[60]]) sandbox.deleteRequest(session.request_id as string);
		recipe = await startRecipe(state, sandbox, FILE, CREDENTIAL);
	});

	afterAll(async () => {
		await recipe?.stop();
		await sandbox?.close();
		// eslint-disable-next-line no-console
		console.log(`[funnel report] ${JSON.stringify(figures)}`);
	});

	/** Every row of the report's table, reduced to the recipe's columns. */
	async function tableRows(): Promise<Row[]> {
		return (await dataTableRows(recipe.rest, TABLE)).map((raw) => Object.fromEntries(COLUMNS.map((column) => [column, (raw[column] as string | number | null | undefined) ?? null])) as Row);
	}

	test('the recipe as shipped: weekly Schedule Trigger, sessions of the last 7 days with their requests, summed by form and utm_source into a keyed Data table', () => {
		const { example } = recipe;
		const byName = new Map(example.workflow.nodes.map((n) => [n.name, n]));
		expect(example.via).toBe('trigger');
		expect(example.startNode).toBe(NODES.schedule);
		expect(byName.get(NODES.schedule)?.parameters).toEqual({ rule: { interval: [{ field: 'weeks', triggerAtDay: [1], triggerAtHour: 7 }] } });
		expect(byName.get(NODES.sessions)).toMatchObject({
			executeOnce: true,
			parameters: { resource: 'bookingSession', operation: 'getAll', returnAll: true, filters: { updatedAfter: "={{ $now.minus(7, 'days') }}" }, options: { includeRequest: true } },
		});
		expect(byName.get(NODES.summarize)?.parameters.fieldsToSplitBy).toBe('form_id, utm_source');
		const upsert = byName.get(NODES.upsert)!;
		expect(upsert.parameters).toMatchObject({ resource: 'row', operation: 'upsert', dataTableId: { mode: 'name', value: TABLE } });
		expect(Object.keys((upsert.parameters.columns as { value: Record<string, string> }).value)).toEqual([...COLUMNS]);
		const stickies = example.workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.stickyNote').map((n) => String(n.parameters.content)).join('\n');
		for (const word of ['Google Sheets', 'Append or Update Row', 'row_key', 'utm_source', '1 call per second', 'Publish']) expect(stickies).toContain(word);
	});

	test("a run: one row per form and utm_source of the week's sessions, with the sandbox's counts, conversion and median minutes to book; a second run replaces them", async () => {
		sandbox.clearLog();
		const started = Date.now();
		const run = await recipe.rest.runFromTrigger(recipe.example.workflow.id, NODES.schedule, 5 * 60_000);
		if (!run.ok) throw new Error(`the report failed: ${run.error?.message} ${run.error?.description ?? ''} ${JSON.stringify(run.nodeErrors).slice(0, 1500)}`);
		figures.runSeconds = (Date.now() - started) / 1000;
		const weekEnding = String(run.items[NODES.row][0].week_ending);
		const since = started - 7 * DAY;
		const expected = expectedRows(sandbox, since, weekEnding).sort(byKey);
		const weekSessions = sandbox.workspace().sessions.filter((s) => s.updated_at !== null && Date.parse(s.updated_at) > since);
		expect(run.items[NODES.sessions]).toHaveLength(weekSessions.length);

		const rows = (await tableRows()).sort(byKey);
		figures.rowsExpected = expected.length;
		figures.rowsInTable = rows.length;
		figures.sessions = weekSessions.length;
		figures.completed = weekSessions.filter((s) => s.request_id !== null).length;
		expect(rows).toEqual(expected);
		expect(rows.reduce((n, row) => n + Number(row.sessions), 0)).toBe(weekSessions.length);
		expect(rows.reduce((n, row) => n + Number(row.completed), 0)).toBe(figures.completed);

		// the calls: the forms, the week's session pages, the request pages that span its bookings, a
		// Get for each of the 2 deleted requests; never over the limit
		const key = hashKey(sandbox.keys.demo);
		const calls = sandbox.log.filter((e) => e.keyHash === key);
		const count = (test: (p: string) => boolean) => calls.filter((e) => test(e.path)).length;
		figures.calls = {
			forms: count((p) => p === '/api/v1/forms'),
			sessionPages: count((p) => p === '/api/v1/abandoned-sessions'),
			requestPages: count((p) => p === '/api/v1/requests'),
			gets: count((p) => p.startsWith('/api/v1/requests/')),
			total: calls.length,
		};
		expect(figures.calls).toMatchObject({ forms: 1, gets: 2 });
		expect(calls.length).toBeLessThanOrEqual(1 + Math.ceil(weekSessions.length / 100) + 1 + Math.ceil(Number(figures.completed) / 100) + 1 + 2 + 3);
		expect(pacing429s(sandbox.log)).toEqual([]);

		const again = await recipe.rest.runFromTrigger(recipe.example.workflow.id, NODES.schedule, 5 * 60_000);
		expect(again.ok).toBe(true);
		expect((await tableRows()).sort(byKey)).toEqual(expected);
	});
});
