/**
 * Property: each event carries what the world's history holds (README "Trigger" table, "Retargeting by
 * customer", Request Updated): event ids and times, the session or request as one of its versions,
 * Include Booking Request's request, `recovered` / `recovered_from_session_id` / `minutes_to_recover`
 * from the abandonments reported before on the kept timeline, and Request Updated's `changed_fields`,
 * `previous` (an earlier version of the request, never the notes' text), `event_id` and its filters.
 */
import { test } from '@fast-check/jest';

import { programArb } from '../../../support/triggerArbitraries';
import { expectNoViolations, fuzzParams, GROUPS, PROPERTY_TIMEOUT_MS } from '../../../support/triggerFuzz';

jest.setTimeout(PROPERTY_TIMEOUT_MS);

describe('event payloads', () => {
	test.prop([programArb()], fuzzParams(0.12, 301))('any program, any options', async (program) => {
		await expectNoViolations(program, GROUPS.payload);
	});

	test.prop([programArb({ events: { sessionAbandoned: true, sessionCompleted: true } })], fuzzParams(0.07, 302))('recovered by customer', async (program) => {
		await expectNoViolations(program, GROUPS.payload);
	});

	test.prop([programArb({ events: { requestUpdated: true } }, { maxSteps: 50 })], fuzzParams(0.07, 303))(
		'Request Updated: changed_fields, previous, event_id, filters, watched range; none missing between full reads',
		async (program) => {
			await expectNoViolations(program, [...GROUPS.payload, ...GROUPS.exactlyOnce, ...GROUPS.mustNot]);
		},
	);
});
