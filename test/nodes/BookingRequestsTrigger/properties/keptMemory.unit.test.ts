/**
 * Property: the memory a published trigger keeps between its polls changes nothing
 * (nodes/BookingRequestsTrigger/poll/memory.ts). Each generated program (test/support/triggerDiff.ts:
 * the programs of the other properties, with n8n restarts, parameter changes and Fetch Test Event put
 * between their steps; lost saves and rolled-back states are the programs' own) runs through the
 * trigger that keeps its memory and through the trigger that decodes the stored state at every poll:
 * the same items in the same order, the same `event_id`s, the same cuts and the same next states.
 * Run with the held drafts' rows off (poll/memory.ts `keepRowsForTests(false)`): judged on those rows,
 * a kept memory reads fewer pages than a decoded one, so under small budgets its polls split differently;
 * heldRows.unit.test.ts is the property that what they emit over a whole run and the state they end in
 * are the same. With them off, the kept memory is exactly what its state decodes to, poll by poll.
 * Case counts and seeds: test/support/triggerFuzz.ts (FUZZ_RUNS for `npm run test:fuzz`); these three
 * properties take a tenth of the total on top of the other properties' (each program runs twice):
 * 240 programs with fixed seeds in `npm test`, 2,000 with a fresh seed in `npm run test:fuzz`.
 */
import { test } from '@fast-check/jest';

import type { DiffProgram } from '../../../support/triggerDiff';
import { diffProgramArb, runBoth } from '../../../support/triggerDiff';
import { fuzzParams, PROPERTY_TIMEOUT_MS } from '../../../support/triggerFuzz';
import { keepRowsForTests } from '../../../../nodes/BookingRequestsTrigger/poll/memory';
import { printFigures } from '../../../support/figures';

jest.setTimeout(PROPERTY_TIMEOUT_MS);

const seen = { programs: 0, polls: 0, kept: 0, restart: 0, fetch: 0, settings: 0, rollback: 0, lostSave: 0 };

/** Counts the steps that make the kept memory stale (or must not): restarts, Fetch Test Event, parameter changes, lost saves. */
function countSteps(program: DiffProgram): void {
	for (const step of program.steps) {
		if (step.k === 'restart' || step.k === 'fetch' || step.k === 'settings' || step.k === 'rollback') seen[step.k]++;
		else if (step.k === 'poll' && step.save === 'drop') seen.lostSave++;
	}
}

async function sameAsDecoding(program: DiffProgram): Promise<void> {
	const { decoding, keeping } = await runBoth(program);
	expect(keeping.polls).toEqual(decoding.polls);
	seen.programs++;
	countSteps(program);
	seen.polls += keeping.polls.length;
	seen.kept += keeping.keptPolls;
}

describe('the memory kept between polls', () => {
	beforeAll(() => keepRowsForTests(false));
	afterAll(() => {
		keepRowsForTests(true);
		printFigures(
			`[kept memory] ${seen.programs} programs, ${seen.polls} polls, ${seen.kept} of them from the memory kept; steps: ${seen.restart} restarts, ${seen.lostSave} lost saves, ${seen.rollback} rolled-back states, ${seen.settings} parameter changes, ${seen.fetch} Fetch Test Event`,
		);
		// The memory kept is used, not only decoded after every restart and change.
		expect(seen.kept).toBeGreaterThan(seen.polls / 3);
	});

	test.prop([diffProgramArb()], fuzzParams(0.05, 401))('any program, any options: the same polls as decoding the state every poll', async (program) => {
		await sameAsDecoding(program);
	});

	test.prop([diffProgramArb({}, { maxSteps: 50, busy: true })], fuzzParams(0.03, 402))('busy polls: small budgets, activity between page reads, lost saves, rolled-back states', async (program) => {
		await sameAsDecoding(program);
	});

	test.prop([diffProgramArb({ events: { sessionAbandoned: true, requestUpdated: true } }, { maxSteps: 50 })], fuzzParams(0.02, 403))(
		'the customers’ memories and Request Updated’s records',
		async (program) => {
			await sameAsDecoding(program);
		},
	);
});

describe('regressions of the memory kept between polls (fixed)', () => {
	beforeAll(() => keepRowsForTests(false));
	afterAll(() => keepRowsForTests(true));

	test('two reminders of one customer at one event time (fuzz seed 512916991): the decoded state keeps the same one per key as the poll did', async () => {
		// Sessions 1 (e-mail and phone) and 2 (the same e-mail only), last active in the same millisecond:
		// both reported abandoned at one event time. The poll added 1 then 2 (the e-mail's reminder became
		// 2's); the decoded state added them in stored order, 2 then 1 (the e-mail's became 1's), so the
		// next polls' states differed. Of two reminders at one time the greater session id now stays.
		const program = {
			settings: {
				trigger: {
					events: { sessionAbandoned: true, sessionCompleted: false, requestCreated: false, requestUpdated: false },
					abandonedAfterMs: 60000,
					fireAgainIfReabandoned: false,
					onlyRecovered: false,
					skipIfBooked: false,
					customerCooldownMs: 0,
					onlyWithEmail: false,
					fingerprint: 'fp-fuzz',
				},
				perPage: 2,
				includeRequest: false,
				form: undefined,
				drainBudget: null,
			},
			before: [],
			steps: [
				{ k: 'start', c: 0, form: 0, contact: 'both', n: 1, spelling: false },
				{ k: 'start', c: 0, form: 0, contact: 'email', n: 1, spelling: false, late: 2001 },
				{ k: 'save', s: 0, addEmail: false },
				{ k: 'save', s: 3, addEmail: false, late: 1 },
				{ k: 'tick', ms: 0 },
			],
		} as unknown as DiffProgram;
		await sameAsDecoding(program);
	});
});
