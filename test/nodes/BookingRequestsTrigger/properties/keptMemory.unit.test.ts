/**
 * Property: the memory a published trigger keeps between its polls changes nothing
 * (nodes/BookingRequestsTrigger/poll/keptMemory.ts). Each generated program (test/support/triggerDiff.ts:
 * the programs of the other properties, with n8n restarts, parameter changes and Fetch Test Event put
 * between their steps; lost saves and rolled-back states are the programs' own) runs through the
 * trigger that keeps its memory and through the trigger that decodes the stored state at every poll:
 * the same items in the same order, the same `event_id`s, the same cuts and the same next states.
 * Case counts and seeds: test/support/triggerFuzz.ts (FUZZ_RUNS for `npm run test:fuzz`).
 */
import { test } from '@fast-check/jest';

import type { DiffProgram } from '../../../support/triggerDiff';
import { diffProgramArb, runBoth } from '../../../support/triggerDiff';
import { fuzzParams } from '../../../support/triggerFuzz';

jest.setTimeout(600_000);

const seen = { programs: 0, polls: 0, kept: 0 };

async function sameAsDecoding(program: DiffProgram): Promise<void> {
	const { decoding, keeping } = await runBoth(program);
	expect(keeping.polls).toEqual(decoding.polls);
	seen.programs++;
	seen.polls += keeping.polls.length;
	seen.kept += keeping.keptPolls;
}

describe('the memory kept between polls', () => {
	afterAll(() => {
		// eslint-disable-next-line no-console
		console.log(`[kept memory] ${seen.programs} programs, ${seen.polls} polls, ${seen.kept} of them from the memory kept`);
		// The memory kept is used, not only decoded after every restart and change.
		expect(seen.kept).toBeGreaterThan(seen.polls / 3);
	});

	test.prop([diffProgramArb()], fuzzParams(0.1, 401))('any program, any options: the same polls as decoding the state every poll', async (program) => {
		await sameAsDecoding(program);
	});

	test.prop([diffProgramArb({}, { maxSteps: 50, busy: true })], fuzzParams(0.06, 402))('busy polls: small budgets, activity between page reads, lost saves, rolled-back states', async (program) => {
		await sameAsDecoding(program);
	});

	test.prop([diffProgramArb({ events: { sessionAbandoned: true, requestUpdated: true } }, { maxSteps: 50 })], fuzzParams(0.04, 403))(
		'the customers’ memories and Request Updated’s records',
		async (program) => {
			await sameAsDecoding(program);
		},
	);
});
