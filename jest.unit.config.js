/**
 * The unit tier (`npm run test:unit`): pure logic only — the trigger's windows, planner and rules, its
 * state and memories, the pacing policy and the retry rule, the output shapes — with fake clocks and
 * in-memory list models. Files are named `*.unit.test.ts`; the network is refused (test/support/noNetwork.js).
 * `npm test` runs these together with the integration tests.
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

module.exports = {
	...base,
	testMatch: ['**/*.unit.test.ts'],
	setupFiles: ['<rootDir>/test/support/noNetwork.js'],
};
