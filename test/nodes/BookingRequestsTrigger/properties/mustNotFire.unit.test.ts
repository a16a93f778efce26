/**
 * Property: nothing fires that must not, and events come oldest first (README "Trigger", "Retargeting
 * by customer", "Assumptions where the contract is silent"). Generated programs with every option;
 * the oracle (test/support/triggerOracle.ts) sets must / may / must not from the world's history and
 * the poll times alone: a session that was never idle for the delay at a poll, one of another form,
 * without an e-mail (Only Sessions With an E-Mail), whose customer booked since the draft started
 * (Skip Customers Who Booked), reminded within the cooldown, reported before (without Fire Again If
 * Reabandoned); history from before activation; requests changed outside the watched range.
 */
import { test } from '@fast-check/jest';

import { programArb } from '../../../support/triggerArbitraries';
import { expectNoViolations, fuzzParams, GROUPS, PROPERTY_TIMEOUT_MS } from '../../../support/triggerFuzz';

jest.setTimeout(PROPERTY_TIMEOUT_MS);

describe('nothing fires that must not', () => {
	test.prop([programArb()], fuzzParams(0.2, 201))('any program, any options', async (program) => {
		await expectNoViolations(program, GROUPS.mustNot);
	});

	test.prop([programArb({ events: { sessionAbandoned: true } }, { maxSteps: 40 })], fuzzParams(0.12, 202))(
		'Session Abandoned with the customer options (Skip Customers Who Booked, cooldown, Only Sessions With an E-Mail, Fire Again)',
		async (program) => {
			await expectNoViolations(program, GROUPS.mustNot);
		},
	);

	test.prop([programArb({}, { maxSteps: 30, ties: true })], fuzzParams(0.1, 203))('several items in one millisecond, tie groups larger than a page', async (program) => {
		await expectNoViolations(program, [...GROUPS.mustNot, ...GROUPS.exactlyOnce]);
	});
});
