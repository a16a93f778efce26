/**
 * States saved by earlier versions, each written by that version's trigger at the end of upgradeWorld.ts's
 * steps — the release before the trigger's rebuild (0.1.0: test/fixtures/trigger-state-0.1.0.json) and main
 * before the state was made smaller (30cff8e: trigger-state-main-30cff8e.json) — are read by this one as
 * they are: no new start, nothing replayed, the memories kept (the cooldown, Request Updated's records).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { listsFor, windowOffsets } from '../../../nodes/BookingRequestsTrigger/events';
import type { UpdatesState } from '../../../nodes/BookingRequestsTrigger/events/requestUpdated/records';
import { UpdatesMemory } from '../../../nodes/BookingRequestsTrigger/events/requestUpdated/records';
import { readMemory, readState, writeMemory } from '../../../nodes/BookingRequestsTrigger/state/codec';
import { MIN, Runner, newCustomer } from '../../support/triggerWorld';
import { UPGRADE_SETTINGS, beforeUpgrade } from './upgradeWorld';

const FIXTURES = ['trigger-state-0.1.0.json', 'trigger-state-main-30cff8e.json'];
const read = (file: string): unknown => JSON.parse(readFileSync(path.join(__dirname, '../../fixtures', file), 'utf8'));
const expect0 = { fingerprint: UPGRADE_SETTINGS.fingerprint, lists: listsFor(UPGRADE_SETTINGS), selection: { events: 'acnu', offsets: windowOffsets(UPGRADE_SETTINGS) } };

describe.each(FIXTURES)('%s', (file) => {
	const saved = read(file);

	test('the state is read as it was written, and written back in the same form', () => {
		const stored = readMemory(saved, { expect: expect0, settings: UPGRADE_SETTINGS, about: { baseUrl: '5a1e9c02', key: '3f1c2a9be0d4c7a1' } });
		expect(stored.memory).toBeDefined();
		const written = writeMemory(stored.memory!);
		// the same state, but for Request Updated's records, written again by field (their contacts in the older form until read again)
		const { updates: before, ...rest } = saved as Record<string, unknown>;
		const { updates: after, ...writtenRest } = written as unknown as Record<string, unknown>;
		expect(writtenRest).toEqual(rest);
		expect((after as UpdatesState).records).toBeUndefined();
		expect(UpdatesMemory.decode(after as UpdatesState).size).toBe((before as { records: string }).records.split(',').length);
	});

	test('the next poll goes on: no new start, nothing replayed, the cooldown and the request records of before hold', async () => {
		const { world, ann, watched, annDraft } = await beforeUpgrade(async () => undefined);
		const runner = new Runner(world, UPGRADE_SETTINGS);
		runner.state = readState(saved, expect0);
		expect(runner.state).toBeDefined();
		world.start({}, ann); // within Ann's 7-day limit: no reminder
		const cy = world.start({}, newCustomer());
		world.changeRequest(watched, { lead_status: 'qualified' });
		world.advance(31 * MIN);
		const next = await runner.poll();
		expect(next.baseline).toBe(false);
		expect(next.events.map((event) => [event.event, (event.session ?? event.request)?.id])).toEqual([
			['request.updated', watched.id],
			['session.abandoned', cy.id],
		]);
		const updated = next.events[0];
		expect([updated.changedFields, updated.previous]).toEqual([['lead_status'], { lead_status: 'new' }]);
		expect(next.ids.some((id) => id.includes(annDraft.id))).toBe(false);
		// the contacts sealed in the older form read back: a changed e-mail reports the one before
		const email = watched.email;
		world.changeRequest(watched, { email: 'moved@example.com' });
		world.advance(MIN);
		const after = await runner.poll();
		expect(after.events.map((event) => [event.event, event.changedFields, event.previous])).toEqual([['request.updated', ['email'], { email }]]);
	});
});
