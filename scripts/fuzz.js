#!/usr/bin/env node
// `npm run test:fuzz`: the trigger's property tests at length (FUZZ_RUNS generated programs, 20,000 by
// default) with a fresh seed on every run, printed first so that a failure can be replayed:
//   FUZZ_SEED=<seed> npm run test:fuzz
// A failure prints the shrunk program: keep it in properties/regressions.unit.test.ts and fix it.
'use strict';
const { spawnSync } = require('node:child_process');
const { randomInt } = require('node:crypto');
const { envOverride } = require('../harness/env');

const seed = envOverride('FUZZ_SEED') ?? String(randomInt(1, 2 ** 31 - 1));
const runs = envOverride('FUZZ_RUNS') ?? '20000';
console.log(`trigger properties: FUZZ_RUNS=${runs} FUZZ_SEED=${seed} (replay: FUZZ_SEED=${seed} npm run test:fuzz)`);
// the unit project of jest.config.js (the network refused), its property tests only
const args = ['jest', 'test/nodes/BookingRequestsTrigger/properties', ...process.argv.slice(2)];
const result = spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, JEST_PROJECTS: 'unit', FUZZ_RUNS: runs, FUZZ_SEED: seed, TEST_FIGURES: '1' } });
console.log(`trigger properties: FUZZ_SEED=${seed} ${result.status === 0 ? 'passed' : 'FAILED'}`);
process.exit(result.status ?? 1);
