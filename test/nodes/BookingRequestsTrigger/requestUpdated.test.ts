/**
 * Request Updated in n8n's real PollContext against the sandbox API over loopback: the
 * workspace changes requests (status, lead status, notes, completion, contact; `updated_at` set or
 * null) and the trigger reports each change once, with `changed_fields`, `previous` and an event id
 * that is the same when a change is delivered again after a lost save. Rotation over a watched range
 * larger than a page uses a short rate gap (correctness does not need the real 1 s).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { createHarness } from '../../../harness/inProcessN8n';
import type { Harness } from '../../../harness/inProcessN8n';
import { hashKey, sortRequests, startSandbox } from '../../../sandbox';
import type { Sandbox } from '../../../sandbox';
import { WATCH_PAGES_PER_POLL } from '../../../nodes/BookingRequestsTrigger/events/watched';
import { TriggerRun } from './trigger';
import { pacing429s } from '../../support/pacing429';

jest.setTimeout(180_000);

const MIN = 60_000;
const UPDATED_ONLY = { events: ['requestUpdated'] };
const BOTH = { events: ['requestCreated', 'requestUpdated'] };

let sandbox: Sandbox;
let harness: Harness;

async function open(requests: number, minGapMs = 1000): Promise<void> {
	sandbox = await startSandbox({ sizes: { forms: 2, requests, sessions: 5 }, minGapMs });
	harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
}
afterEach(async () => {
	expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	await sandbox.close();
});

const updates = (items: IDataObject[] | null) => (items ?? []).filter((item) => item.event === 'request.updated');
/** Copies of the workspace's requests in the list's order (newest first by created_at): the store changes its own objects. */
const requestsNewestFirst = () => sortRequests(sandbox.workspace().requests).map((request) => ({ ...request }));

describe('Request Updated over HTTP', () => {
	test('the first poll is silent; one event per change with changed_fields, previous and a stable event id; a creation is only New Request', async () => {
		await open(30);
		const run = new TriggerRun(harness, sandbox, { ...BOTH, simplify: true });
		expect((await run.poll()).items).toBeNull();
		sandbox.clock.advance(MIN);

		const [first, second] = requestsNewestFirst();
		const changed = sandbox.updateRequest(second.id, { status: 'confirmed', lead_status: 'contacted', internal_notes: 'Called, wants Tuesday' });
		const created = { ...sandbox.addRequest({}) };
		const poll = await run.poll();
		const byId = new Map((poll.items ?? []).map((item) => [`${String(item.event)}:${String(item.id)}`, item]));
		expect(poll.items).toHaveLength(2);
		expect(byId.get(`request.created:${created.id}`)).toBeDefined();
		const update = byId.get(`request.updated:${second.id}`)!;
		expect(update).toMatchObject({
			event_id: `request.updated:${second.id}:${Date.parse(changed.updated_at!)}`,
			status: 'confirmed',
			lead_status: 'contacted',
			internal_notes: 'Called, wants Tuesday',
			changed_fields: ['status', 'lead_status', 'internal_notes'],
			previous: { status: second.status, lead_status: second.lead_status },
		});
		expect(update).not.toHaveProperty('previous.internal_notes');

		// Nothing changed: nothing; the new request changed only later is an update then.
		expect((await run.poll()).items).toBeNull();
		sandbox.updateRequest(created.id, { lead_status: 'won' });
		const later = updates((await run.poll()).items);
		expect(later.map((item) => [item.id, item.changed_fields, item.previous])).toEqual([[created.id, ['lead_status'], { lead_status: created.lead_status }]]);
		expect(first.id).not.toBe(second.id);
	});

	test('several changes between two reads are one event; a change undone before the next read is none', async () => {
		await open(20);
		const run = new TriggerRun(harness, sandbox, UPDATED_ONLY);
		await run.poll();
		const [a, b] = requestsNewestFirst();
		sandbox.updateRequest(a.id, { status: 'confirmed' });
		sandbox.updateRequest(a.id, { status: 'completed', completed_at: 'now' });
		sandbox.updateRequest(b.id, { lead_status: 'lost' });
		sandbox.updateRequest(b.id, { lead_status: b.lead_status });
		const items = updates((await run.poll()).items);
		expect(items.map((item) => [item.id, item.changed_fields])).toEqual([[a.id, ['status', 'completed_at']]]);
		expect(items[0].previous).toEqual({ status: a.status, completed_at: a.completed_at });
	});

	test('without updated_at: a hashed event id, the same after a lost save, and a new one for the next change', async () => {
		await open(20);
		const run = new TriggerRun(harness, sandbox, UPDATED_ONLY);
		await run.poll();
		const [a] = requestsNewestFirst();
		sandbox.updateRequest(a.id, { status: 'confirmed', updatedAt: 'null' });
		const saved = JSON.stringify(run.state.staticData);
		const first = updates((await run.poll()).items);
		expect(first).toHaveLength(1);
		expect(first[0].updated_at).toBeNull();
		expect(first[0].event_id).toMatch(new RegExp(`^request\\.updated:${a.id}:h[A-Za-z0-9_-]{8}$`));

		// n8n lost the save: the same change is read again and delivered with the same id.
		run.state.staticData = JSON.parse(saved) as IDataObject;
		const again = updates((await run.poll()).items);
		expect(again.map((item) => item.event_id)).toEqual([first[0].event_id]);
		expect((await run.poll()).items).toBeNull();

		sandbox.updateRequest(a.id, { status: 'completed', updatedAt: 'keep' });
		const next = updates((await run.poll()).items);
		expect(next.map((item) => item.changed_fields)).toEqual([['status']]);
		expect(next[0].event_id).not.toBe(first[0].event_id);
		expect(next[0].previous).toEqual({ status: 'confirmed' });
	});

	test('contact changes report the earlier contact, which the saved state never holds in clear; notes never in the state', async () => {
		await open(20);
		const run = new TriggerRun(harness, sandbox, UPDATED_ONLY);
		await run.poll();
		const [a] = requestsNewestFirst();
		const notes = 'Gate code 4411, ask for Priya';
		sandbox.updateRequest(a.id, { email: 'new.address@example.com', phone: '+15550001111', internal_notes: notes });
		const items = updates((await run.poll()).items);
		expect(items).toHaveLength(1);
		expect(items[0].changed_fields).toEqual(['internal_notes', 'email', 'phone']);
		expect(items[0].previous).toEqual({ email: a.email, phone: a.phone });
		const state = JSON.stringify(run.state.staticData);
		for (const secret of [notes, 'new.address@example.com', '+15550001111', a.email!, a.phone!, a.first_name!, a.last_name!]) {
			expect(state).not.toContain(secret);
		}
	});

	test('Fields to Watch and Only When Status Changes To: a filtered change is consumed, not reported later', async () => {
		await open(20);
		const run = new TriggerRun(harness, sandbox, { ...UPDATED_ONLY, options: { watchFields: ['status'], statusChangesTo: 'Completed, cancelled' } });
		await run.poll();
		const [a, b] = requestsNewestFirst();
		sandbox.updateRequest(a.id, { internal_notes: 'not watched' });
		sandbox.updateRequest(b.id, { status: 'confirmed' });
		expect((await run.poll()).items).toBeNull();
		sandbox.updateRequest(b.id, { status: 'COMPLETED', internal_notes: 'done' });
		const items = updates((await run.poll()).items);
		expect(items.map((item) => [item.id, item.changed_fields, item.previous])).toEqual([[b.id, ['status'], { status: 'confirmed' }]]);
	});

	test('Only When Lead Status Changes To alone, and with a status filter either passing', async () => {
		await open(20);
		const run = new TriggerRun(harness, sandbox, { ...UPDATED_ONLY, options: { leadStatusChangesTo: 'won', statusChangesTo: 'cancelled' } });
		await run.poll();
		const [a, b, c] = requestsNewestFirst().filter((request) => request.lead_status !== 'won' && request.status !== 'cancelled');
		sandbox.updateRequest(a.id, { lead_status: 'won' });
		sandbox.updateRequest(b.id, { status: 'cancelled' });
		sandbox.updateRequest(c.id, { lead_status: 'contacted', status: 'confirmed' });
		const items = updates((await run.poll()).items);
		expect(items.map((item) => item.id).sort()).toEqual([a.id, b.id].sort());
	});

	test('the watched range is read in rotation: a change deep in it is reported within its cycle, one past it never', async () => {
		// 1,250 requests, the newest 1,200 watched: page 1 each poll, pages 2-12 in rotation (10 a poll).
		await open(1_250, 25);
		const run = new TriggerRun(harness, sandbox, { ...UPDATED_ONLY, options: { watchNewest: 1_200 } });
		const baseline = await run.poll(); // pages 1-11
		expect(baseline.calls).toBe(1 + WATCH_PAGES_PER_POLL);
		const list = requestsNewestFirst();
		const deep = list[1_150]; // page 12: first read by the next poll
		const outside = list[1_230]; // page 13, not watched
		sandbox.updateRequest(deep.id, { status: 'confirmed' });
		sandbox.updateRequest(outside.id, { status: 'confirmed' });

		// Changed before this trigger first read it, after activation: reported, what changed unknown.
		const first = await run.poll();
		expect(updates(first.items).map((item) => [item.id, item.changed_fields, item.previous])).toEqual([[deep.id, [], null]]);

		// Changed again: reported with what changed within ceil(11 / 10) = 2 polls.
		sandbox.updateRequest(deep.id, { status: 'completed' });
		const seen: IDataObject[] = [];
		const calls = [first.calls];
		for (let poll = 0; poll < 2; poll++) {
			const outcome = await run.poll();
			calls.push(outcome.calls);
			seen.push(...updates(outcome.items));
		}
		expect(seen.map((item) => [item.id, item.changed_fields, item.previous])).toEqual([[deep.id, ['status'], { status: 'confirmed' }]]);
		expect(calls.every((count) => count === 1 + WATCH_PAGES_PER_POLL)).toBe(true);
		// Page 13 (outside the range) is never read.
		const pages = sandbox.log.filter((entry) => entry.path === '/api/v1/requests').map((entry) => Number(entry.query.page));
		expect(Math.max(...pages)).toBe(12);
	});

	test('a request pushed out of the watched range is forgotten: its later change is not reported', async () => {
		await open(10, 25);
		const run = new TriggerRun(harness, sandbox, { ...BOTH, options: { watchNewest: 5 } });
		await run.poll();
		const fifth = requestsNewestFirst()[4];
		sandbox.addRequest({});
		const poll = await run.poll();
		expect((poll.items ?? []).map((item) => item.event)).toEqual(['request.created']);
		sandbox.updateRequest(fifth.id, { status: 'confirmed' });
		expect(updates((await run.poll()).items)).toEqual([]);
	});

	test('bad options are clear errors', async () => {
		await open(5);
		const cases: Array<[INodeParameters, RegExp]> = [
			[{ watchNewest: 0 }, /Watch the Newest \(Requests\)" must be a whole number from 1 to 5000, got 0/],
			[{ watchNewest: 5_001 }, /from 1 to 5000, got 5001/],
			[{ watchNewest: 2.5 }, /got 2.5/],
			[{ watchFields: [] }, /Fields to Watch/],
		];
		for (const [options, message] of cases) {
			const run = new TriggerRun(harness, sandbox, { ...UPDATED_ONLY, options });
			await expect(run.poll()).rejects.toThrow(message);
		}
	});
});
