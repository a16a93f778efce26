/**
 * Shared by the trigger's property tests (test/nodes/BookingRequestsTrigger/properties): how many cases
 * each property runs, and a program's violations of a group of the oracle's rules.
 *
 * `npm test` runs DEFAULT_TOTAL cases over all properties, with fixed seeds (the same cases every run).
 * `npm run test:fuzz` sets FUZZ_RUNS (e.g. 20000) and runs that many in total, with a new seed each run
 * unless FUZZ_SEED is set; fast-check prints the seed and the shrunk program of a failure (keep it in
 * regressions.unit.test.ts).
 */
import type fc from "fast-check";

import { envOverride } from "../../harness/env";

import type { Program } from "./triggerProgram";
import { runProgram } from "./triggerProgram";
import type { Tag } from "./triggerOracle";
import { judge } from "./triggerOracle";

/** Cases of all properties together in `npm test`. */
export const DEFAULT_TOTAL = 2_400;

/**
 * fast-check parameters of a property that takes `share` of all cases. Fixed seeds in the default run;
 * FUZZ_RUNS: that many cases in total and a random seed (FUZZ_SEED to replay one).
 */
export function fuzzParams(
  share: number,
  seed: number,
): fc.Parameters<[Program]> {
  const runs = envOverride("FUZZ_RUNS");
  const fuzzSeed = envOverride("FUZZ_SEED");
  const total = runs ? Number(runs) : DEFAULT_TOTAL;
  const numRuns = Math.max(1, Math.round(total * share));
  // @fast-check/jest stops a property at the test's timeout and passes it quietly with the cases it
  // ran: a property cut short fails instead (PROPERTY_TIMEOUT_MS gives a long run the time it needs).
  const always = { numRuns, markInterruptAsFailure: true };
  if (fuzzSeed) return { ...always, seed: Number(fuzzSeed) + seed };
  return runs ? always : { ...always, seed };
}

/**
 * Each property's time (jest.setTimeout in its file): 10 minutes in `npm test` (a few seconds
 * needed), 60 with FUZZ_RUNS (`npm run test:fuzz` beside CI's e2e suites, at the lowest priority).
 */
export const PROPERTY_TIMEOUT_MS = envOverride("FUZZ_RUNS") ? 3_600_000 : 600_000;

/** The properties' groups of rules: every rule of the oracle is in one. */
export const GROUPS = {
  /** Each event once on the kept timeline; every event that must fire has, once the world went quiet. */
  exactlyOnce: ["duplicate", "missing", "progress", "slowPoll", "churnDeferral"],
  /** Nothing fires that must not; oldest first; memories judged by event time in a catch-up. */
  mustNot: ["unexpected", "order", "staleSeen", "staleCooldown"],
  /** Each event carries what the history holds (ids, times, snapshots, recovered, Request Updated's fields). */
  payload: ["payload", "recovered", "updates", "minutes", "staleSeen"],
} satisfies Record<string, Tag[]>;

/** Runs the program and returns the violations of the given rules, one per line (empty: none). */
export async function violations(
  program: Program,
  tags: readonly Tag[],
): Promise<string[]> {
  const run = await runProgram(program);
  return judge(program, run)
    .filter((violation) => tags.includes(violation.tag))
    .map((violation) => `${violation.tag}: ${violation.message}`);
}

/** For a property: throws the violations (fast-check then shrinks the program and reports it). */
export async function expectNoViolations(
  program: Program,
  tags: readonly Tag[],
): Promise<void> {
  const found = await violations(program, tags);
  if (found.length > 0)
    throw new Error(
      `${found.length} violation(s):\n${found.slice(0, 8).join("\n")}`,
    );
}
