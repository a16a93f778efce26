/**
 * Retargeting by customer at volume, the day: 1,500 customers start within one delay and half
 * of them book minutes later; with Skip Customers Who Booked no reminder goes to one who booked
 * (test/support/retargetRuns.ts: the world, the oracle and what it says).
 */
import { makeSettings, MIN } from '../../support/triggerWorld';
import { report, run } from '../../support/retargetRuns';

jest.setTimeout(600_000);

describe("the issue's day: 1,500 customers start within one delay, 750 of them book minutes later", () => {
	test.each([
		['Skip Customers Who Booked off (before)', false],
		['Skip Customers Who Booked on (after)', true],
	])('%s', async (label, skipIfBooked) => {
		const outcome = await run({
			seed: 22,
			customers: 1500,
			span: 30 * MIN,
			settings: makeSettings({ skipIfBooked }),
			budget: [1000, 1000],
			lostSave: 0,
			bookShare: 0.5,
			quickBookings: true,
			simple: true,
		});
		report(label, outcome);
		if (skipIfBooked) expect(outcome.remindersToBooked).toBe(0);
		else expect(outcome.remindersToBooked).toBeGreaterThan(600);
	});
});
