/**
 * Retargeting by customer at volume with the customer cooldown: 3,000 customers, Skip Customers Who
 * Booked, small call budgets and lost saves, judged by the oracle of test/support/retargetRuns.ts.
 */
import type { TriggerSettings } from '../../../nodes/BookingRequestsTrigger/events';
import { DAY_MS } from '../../../nodes/BookingRequestsTrigger/state/seen';
import type { Options } from '../../support/retargetRuns';
import { checkOracleRun } from '../../support/retargetRuns';

jest.setTimeout(600_000);

describe('oracle runs with the customer cooldown', () => {
	const variants: Array<[string, Partial<Options> & { seed: number }, Partial<TriggerSettings>]> = [
		['all events, cooldown 1 day', { seed: 2, budget: [5, 14], lostSave: 0.06 }, { customerCooldownMs: DAY_MS }],
		['Session Abandoned + Completed only (no New Request), cooldown 2 days, tiny budgets', { seed: 3, budget: [5, 12], lostSave: 0.04 }, { customerCooldownMs: 2 * DAY_MS, events: { sessionAbandoned: true, sessionCompleted: true, requestCreated: false } }],
	];
	test.each(variants)('%s', async (label, options, overrides) => {
		await checkOracleRun(label, options, overrides);
	});
});
