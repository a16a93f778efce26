/**
 * States saved by main's trigger before its memory and stored forms were rebuilt (6ef63e9:
 * test/fixtures/upgrade/, written by scripts/write-upgrade-fixtures.ts) go on with this checkout's
 * trigger. For each fixture the world is rebuilt from its program, the polls before the upgrade are
 * replayed from the fixture, the saved state is handed to this trigger as the node's static data (a new
 * process: no memory kept), and the property tests' oracle judges the whole run from the world's history
 * (test/support/upgradeReplay.ts): no event lost or repeated across the upgrade; the first poll after it
 * is no new start (it emits what the fixture says it must) and uses the memories saved before it (a
 * completion recovered from a reminder made before the upgrade, changes reported with their `previous`;
 * cooldowns, bookings, sessions seen and shared phones that hold reminders back are the oracle's "must
 * not"). Nothing here reads the state.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { decodingTrigger, keepingTrigger } from '../../support/triggerDiff';
import type { UpgradeFixture } from '../../support/upgradeReplay';
import { upgradeFindings } from '../../support/upgradeReplay';

const DIR = path.join(__dirname, '../../fixtures/upgrade');
const FIXTURES = ['retarget', 'recovered', 'updates-contact', 'updates-plain', 'updates-filtered', 'held', 'ties', 'office'];
const read = (name: string): UpgradeFixture => JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as UpgradeFixture;

test('every fixture is run', () => {
	expect(readdirSync(DIR).filter((file) => file.endsWith('.json')).sort()).toEqual(FIXTURES.map((name) => `${name}.json`).sort());
});

describe.each(FIXTURES.map(read))('$name: a state saved by $writtenBy', (fixture) => {
	test('the published trigger goes on from it: nothing lost or repeated, no new start, the memories used', async () => {
		expect(await upgradeFindings(fixture, keepingTrigger(`upgrade-today:${fixture.name}`))).toEqual([]);
	});

	test('decoding the state at every poll, the same', async () => {
		expect(await upgradeFindings(fixture, decodingTrigger())).toEqual([]);
	});
});
