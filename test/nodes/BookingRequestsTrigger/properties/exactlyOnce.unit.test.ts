/**
 * Property: exactly once (README "Exactly once, and what the state holds"). Over generated programs of
 * steps (test/support/triggerProgram.ts) with every option (test/support/triggerArbitraries.ts): no
 * event_id twice on the kept timeline (the states n8n saved), and once the world goes quiet and enough
 * polls pass, every event that must fire has — judged by the oracle (test/support/triggerOracle.ts)
 * from the world's history and the poll times alone, never from the trigger's state.
 * Case counts and seeds: test/support/triggerFuzz.ts (FUZZ_RUNS for `npm run test:fuzz`).
 */
import { test } from '@fast-check/jest';

import { programArb } from '../../../support/triggerArbitraries';
import { expectNoViolations, fuzzParams, GROUPS, PROPERTY_TIMEOUT_MS } from '../../../support/triggerFuzz';

jest.setTimeout(PROPERTY_TIMEOUT_MS);

describe('exactly once', () => {
	test.prop([programArb()], fuzzParams(0.2, 101))('any program, any options: once per state, none missing after quiet polls', async (program) => {
		await expectNoViolations(program, GROUPS.exactlyOnce);
	});

	test.prop([programArb({}, { maxSteps: 50, busy: true })], fuzzParams(0.12, 102))(
		'busy polls: small budgets, activity between page reads, dropped saves, rolled-back states',
		async (program) => {
			await expectNoViolations(program, GROUPS.exactlyOnce);
		},
	);
});
