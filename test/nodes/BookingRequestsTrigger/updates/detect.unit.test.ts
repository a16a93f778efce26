/**
 * Request Updated's detection as a pure function of (records, pages read, passed, activation, now,
 * settings): events/requestUpdated/changes.ts with the records of records.ts encoded and decoded between
 * polls as the static data would be. The node over HTTP: requestUpdated.test.ts.
 */
import type { BookingRequest } from '../../../../nodes/shared/types';
import { detectUpdates } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/changes';
import type { RequestChange } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/changes';
import { updatedEventId } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated';
import type { UpdateSettings } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/fields';
import { UpdatesMemory, isUpdatesState } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/records';
import type { UpdatesState } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/records';
import { seal, unseal } from '../../../../nodes/BookingRequestsTrigger/events/requestUpdated/contactSeal';
import type { PageObservation } from '../../../../nodes/BookingRequestsTrigger/model/pages';
import { watchedRequests } from '../../../../nodes/BookingRequestsTrigger/events/watched';
import { makeRequest } from '../../../support/triggerWorld';
import { printFigures } from '../../../support/figures';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const MIN = 60_000;
const ALL: UpdateSettings = { watchNewest: 500, fields: ['status', 'lead_status', 'internal_notes', 'completed_at', 'contact'], statusTo: [], leadStatusTo: [] };

/** The request list as pages of `perPage`, newest first (the array's order). */
function pagesOf(list: BookingRequest[], perPage = 100, read: number[] = []): PageObservation[] {
	const count = Math.max(1, Math.ceil(list.length / perPage));
	const pages = read.length > 0 ? read : Array.from({ length: count }, (_, i) => i + 1);
	return pages.map((page, seq) => ({ list: 'requests', page, perPage, total: list.length, items: list.slice((page - 1) * perPage, page * perPage) as never, seq }));
}

const iso = (ms: number) => new Date(ms).toISOString();

function requests(count: number): BookingRequest[] {
	// Newest first: created a minute apart, the oldest at T0 - count minutes.
	return Array.from({ length: count }, (_, i) =>
		makeRequest({ id: `req-${String(count - i).padStart(5, '0')}`, created_at: iso(T0 - (i + 1) * MIN), updated_at: iso(T0 - (i + 1) * MIN), status: 'pending', lead_status: 'new', internal_notes: null, completed_at: null }),
	);
}

/** One trigger's Request Updated memory across polls, stored as JSON between them. */
class Watcher {
	state: UpdatesState | undefined;
	constructor(public settings: UpdateSettings = ALL) {}

	/** The changes of one poll, each with its event id (index.ts `updatedEventId` names a change by its version). */
	poll(pages: PageObservation[], now: number, passed: (r: BookingRequest) => boolean = () => true): Array<Omit<RequestChange, 'version'> & { eventId: string }> {
		const memory = UpdatesMemory.decode(this.state);
		const from = memory.from ?? now;
		const watched = watchedRequests(pages, this.settings.watchNewest, now);
		const { changes, records } = detectUpdates({ memory, watched, passed, since: from, now, baseline: memory.from === undefined, settings: this.settings });
		memory.apply(records);
		this.state = JSON.parse(JSON.stringify(memory.encode(from))) as UpdatesState;
		expect(isUpdatesState(this.state)).toBe(true);
		return changes.map(({ version, ...change }) => ({ ...change, eventId: updatedEventId(change.request.id, version) }));
	}
}

function change(request: BookingRequest, values: Partial<BookingRequest>, at: number | null): void {
	Object.assign(request, values, { updated_at: at === null ? null : iso(at) });
}

describe('detectUpdates', () => {
	test('the first read only remembers; a creation after it is never an update', () => {
		const list = requests(20);
		const watcher = new Watcher();
		expect(watcher.poll(pagesOf(list), T0)).toEqual([]);
		const created = makeRequest({ id: 'req-new', created_at: iso(T0 + MIN), updated_at: iso(T0 + MIN) });
		list.unshift(created);
		// Not yet passed by New Request: not remembered, not reported.
		expect(watcher.poll(pagesOf(list), T0 + 2 * MIN, (r) => r.id !== created.id)).toEqual([]);
		expect(watcher.poll(pagesOf(list), T0 + 3 * MIN)).toEqual([]);
		change(created, { status: 'confirmed' }, T0 + 4 * MIN);
		expect(watcher.poll(pagesOf(list), T0 + 5 * MIN).map((c) => [c.request.id, c.changedFields])).toEqual([['req-new', ['status']]]);
	});

	test('changes between two reads are one event; A -> B -> A is none; the event time is updated_at', () => {
		const list = requests(10);
		const watcher = new Watcher();
		watcher.poll(pagesOf(list), T0);
		change(list[0], { status: 'confirmed' }, T0 + MIN);
		change(list[0], { status: 'completed', completed_at: iso(T0 + 2 * MIN) }, T0 + 2 * MIN);
		change(list[1], { lead_status: 'lost' }, T0 + MIN);
		change(list[1], { lead_status: 'new' }, T0 + 2 * MIN);
		const changes = watcher.poll(pagesOf(list), T0 + 3 * MIN);
		expect(changes).toEqual([
			{
				request: list[0],
				eventId: `request.updated:${list[0].id}:${T0 + 2 * MIN}`,
				at: T0 + 2 * MIN,
				changedFields: ['status', 'completed_at'],
				previous: { status: 'pending', completed_at: null },
			},
		]);
		expect(watcher.poll(pagesOf(list), T0 + 4 * MIN)).toEqual([]);
	});

	test('without updated_at the event id is a hash chained from the record: the same after a lost save, new for the next change', () => {
		const list = requests(5);
		const watcher = new Watcher();
		watcher.poll(pagesOf(list), T0);
		change(list[2], { lead_status: 'contacted' }, null);
		const saved = watcher.state;
		const [first] = watcher.poll(pagesOf(list), T0 + MIN);
		expect(first.eventId).toMatch(/^request\.updated:req-00003:h[\w-]{8}$/);
		expect(first.at).toBe(T0 + MIN); // the poll's time
		watcher.state = saved; // n8n did not save
		expect(watcher.poll(pagesOf(list), T0 + 2 * MIN).map((c) => c.eventId)).toEqual([first.eventId]);
		change(list[2], { lead_status: 'won' }, null);
		const [second] = watcher.poll(pagesOf(list), T0 + 3 * MIN);
		expect(second.eventId).not.toBe(first.eventId);
		expect(second.previous).toEqual({ lead_status: 'contacted' });
		// A change that keeps an old updated_at is named by the hash too (its time did not move).
		const kept = list[3].updated_at;
		change(list[3], { status: 'confirmed' }, Date.parse(kept!));
		expect(watcher.poll(pagesOf(list), T0 + 4 * MIN)[0].eventId).toMatch(/:h[\w-]{8}$/);
	});

	test('a change without updated_at keeps its id after a lost save although another request brought a status never seen before (ids from values, not from how the record was stored)', () => {
		const list = requests(120);
		const watcher = new Watcher();
		watcher.poll(pagesOf(list), T0);
		watcher.poll(pagesOf(list), T0 + MIN);
		const kept = watcher.state;
		change(list[0], { status: 'in_progress' }, T0 + 2 * MIN);
		watcher.poll(pagesOf(list), T0 + 2 * MIN);
		change(list[60], { internal_notes: 'called back' }, null);
		const [notes] = watcher.poll(pagesOf(list), T0 + 3 * MIN);
		expect(notes.eventId).toMatch(/^request\.updated:req-00060:h[\w-]{8}$/);
		watcher.state = kept; // n8n lost the saves since
		const again = watcher.poll(pagesOf(list), T0 + 4 * MIN).find((c) => c.request.id === 'req-00060');
		expect([again?.eventId, again?.changedFields, again?.previous]).toEqual([notes.eventId, notes.changedFields, notes.previous]);
	});

	test('a field flipped back and forth without updated_at gets a new id each time it changes again', () => {
		const list = requests(5);
		const watcher = new Watcher();
		watcher.poll(pagesOf(list), T0);
		const ids: string[] = [];
		for (const [i, lead] of ['contacted', 'new', 'contacted', 'new'].entries()) {
			change(list[1], { lead_status: lead }, null);
			ids.push(...watcher.poll(pagesOf(list), T0 + (i + 1) * MIN).map((c) => c.eventId));
		}
		expect(ids).toHaveLength(4);
		expect(new Set(ids).size).toBe(4);
	});

	test('Fields to Watch: other fields are consumed silently; the contact is not kept when not watched', () => {
		const list = requests(5);
		const watcher = new Watcher({ ...ALL, fields: ['status'] });
		watcher.poll(pagesOf(list), T0);
		expect(watcher.state!.contacts).toBeUndefined(); // no sealed contact
		change(list[0], { internal_notes: 'x', email: 'b@example.com', lead_status: 'won' }, T0 + MIN);
		expect(watcher.poll(pagesOf(list), T0 + 2 * MIN)).toEqual([]);
		change(list[0], { status: 'cancelled', internal_notes: 'y' }, T0 + 3 * MIN);
		expect(watcher.poll(pagesOf(list), T0 + 4 * MIN).map((c) => c.changedFields)).toEqual([['status']]);
	});

	test('status filters: case-insensitive, trimmed by the node; either passes when both are set; a change to another value is consumed', () => {
		const list = requests(5);
		const watcher = new Watcher({ ...ALL, statusTo: ['completed'], leadStatusTo: ['won'] });
		watcher.poll(pagesOf(list), T0);
		change(list[0], { status: 'Completed' }, T0 + MIN);
		change(list[1], { lead_status: 'WON' }, T0 + MIN);
		change(list[2], { status: 'confirmed', lead_status: 'contacted' }, T0 + MIN);
		change(list[3], { internal_notes: 'completed' }, T0 + MIN);
		expect(watcher.poll(pagesOf(list), T0 + 2 * MIN).map((c) => c.request.id).sort()).toEqual([list[0].id, list[1].id].sort());
		change(list[2], { internal_notes: 'later' }, T0 + 3 * MIN);
		expect(watcher.poll(pagesOf(list), T0 + 4 * MIN)).toEqual([]);
	});

	test('a request first read after activation with updated_at after it: reported with what changed unknown; before it: only remembered', () => {
		const list = requests(300);
		const watcher = new Watcher();
		watcher.poll(pagesOf(list, 100, [1]), T0); // the first poll read page 1 only
		change(list[150], { status: 'confirmed' }, T0 + MIN);
		const changes = watcher.poll(pagesOf(list, 100, [1, 2, 3]), T0 + 2 * MIN);
		expect(changes.map((c) => [c.request.id, c.changedFields, c.previous])).toEqual([[list[150].id, [], null]]);
		expect(watcher.poll(pagesOf(list, 100, [1, 2, 3]), T0 + 3 * MIN)).toEqual([]);
	});

	test('the watched range: places past Watch the Newest are not remembered; a request pushed out is forgotten', () => {
		const list = requests(10);
		const watcher = new Watcher({ ...ALL, watchNewest: 5 });
		watcher.poll(pagesOf(list), T0);
		expect(UpdatesMemory.decode(watcher.state).size).toBe(5);
		const fifth = list[4];
		list.unshift(makeRequest({ id: 'req-new', created_at: iso(T0 + MIN) }));
		watcher.poll(pagesOf(list), T0 + 2 * MIN);
		const memory = UpdatesMemory.decode(watcher.state);
		expect(memory.size).toBe(5);
		expect(memory.get(fifth.id)).toBeUndefined();
		change(fifth, { status: 'confirmed' }, T0 + 3 * MIN);
		expect(watcher.poll(pagesOf(list), T0 + 4 * MIN)).toEqual([]);
	});

	test('state: no notes text or contact in clear; bytes per watched request at 5,000 (contact watched and not)', () => {
		const list = requests(5_000).map((r, i) => Object.assign(r, { email: `customer${i}@example.com`, phone: `+1555${String(i).padStart(7, '0')}`, first_name: `First${i}`, last_name: `Last${i}`, internal_notes: `Gate code ${i}` }));
		const sizes: Record<string, number> = {};
		for (const [name, settings] of [
			['all fields', { ...ALL, watchNewest: 5_000 }],
			['without contact', { ...ALL, watchNewest: 5_000, fields: ['status', 'lead_status', 'internal_notes', 'completed_at'] }],
		] as const) {
			const watcher = new Watcher(settings as UpdateSettings);
			watcher.poll(pagesOf(list), T0);
			const json = JSON.stringify(watcher.state);
			sizes[name] = json.length / 5_000;
			for (const secret of ['customer42@example.com', '+15550000042', 'First42', 'Gate code 42']) expect(json).not.toContain(secret);
			expect(UpdatesMemory.decode(watcher.state).size).toBe(5_000);
		}
		printFigures(`[Request Updated state at 5,000 watched requests] bytes per request: ${JSON.stringify(sizes)}`);
		// Half of what versions before 0.2 stored without the contact (32); with it, the contact's own characters are the floor (113 before).
		expect(sizes['without contact']).toBeLessThanOrEqual(16);
		expect(sizes['all fields']).toBeLessThan(80);
	});

	test('malformed states are refused whole; a sealed contact reads back only with its request id', () => {
		const list = requests(3);
		const watcher = new Watcher();
		watcher.poll(pagesOf(list), T0);
		const good = watcher.state!;
		expect(isUpdatesState(good)).toBe(true);
		for (const bad of [
			null,
			[],
			{ ...good, from: 'x' },
			{ ...good, cursor: -1 },
			{ ...good, values: [1] },
			{ ...good, ids: 5 },
			{ ...good, ids: 'short' },
			{ ...good, ranks: `${good.ranks}A` },
			{ ...good, values: [] },
			{ ...good, updated: '.' },
			{ ...good, contacts: `${good.contacts},x` },
			{ ...good, records: 'short' },
		]) {
			expect(isUpdatesState(bad)).toBe(false);
		}
		const contact = { first_name: 'Ada', last_name: null, email: 'ada@example.com', phone: '+1555' };
		const sealed = seal('req-1', contact);
		expect(unseal('req-1', sealed)).toEqual(contact);
		expect(unseal('req-2', sealed)).toBeUndefined();
		expect(unseal('req-1', 'AAAA')).toBeUndefined();
	});
});
