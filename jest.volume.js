/**
 * The trigger's oracle runs at volume (thousands of customers over hours of generated traffic, on the
 * in-memory list model): minutes of CPU each, so `npm test` leaves them out (it stays within a few
 * minutes on 2 cores) and `npm run test:volume` runs them; `.ci/run` calls it after `npm test`.
 */
module.exports = [
	// random runs of the poll loop at volume: thousands of sessions, cut polls, lost saves
	'simulation.unit.test.ts',
	// 10,000 drafts in one delay, a bulk import, a 3-hour backlog, 6,000 bookings without a draft
	'volume.unit.test.ts',
	// the retargeting day: 1,500 customers start within one delay, 750 of them book minutes later
	'retarget.unit.test.ts',
	// 3,000 customers, all events, small call budgets, lost saves
	'retargetBudgets.unit.test.ts',
	// 3,000 customers with the customer cooldown (1 and 2 days)
	'retargetCooldown.unit.test.ts',
];
