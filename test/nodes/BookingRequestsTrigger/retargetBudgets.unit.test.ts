/**
 * Retargeting by customer at volume: 3,000 customers, all events, Skip Customers Who Booked, small call
 * budgets and lost saves, judged by the oracle of test/support/retargetRuns.ts. A file of its own so
 * that jest runs it beside the other oracle runs (retargetCooldown.unit.test.ts).
 */
import { checkOracleRun } from '../../support/retargetRuns';

jest.setTimeout(600_000);

test('oracle run: all events, Skip Customers Who Booked, small budgets, lost saves', async () => {
	await checkOracleRun('all events, Skip Customers Who Booked, small budgets, lost saves', { seed: 1, budget: [6, 20], lostSave: 0.06 }, {});
});
