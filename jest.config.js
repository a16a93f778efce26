/**
 * `npm test` (after the build): every unit (`*.unit.test.ts`, pure) and integration (`*.test.ts`: the
 * sandbox API over loopback, Redis, n8n-core's real execution contexts) test. The integration tests
 * wait on I/O — mostly the sandbox's real 1 request/s limit — not on the CPU, and each file starts its
 * own sandbox (and Redis) on free ports, so they run in parallel workers even on a 2-core machine.
 * No test here asserts a duration: timing is asserted on simulated clocks (pacing.unit.test.ts, fake
 * timers) or measured by the bench. The end-to-end suites in a real n8n (test/e2e), the editor test
 * (test/ui) and the suites that measure polls against n8n's poll budget (jest.inBand.js: CPU load from
 * parallel workers would change them) and the trigger's oracle runs at volume (jest.volume.js: minutes
 * of CPU each) have their own configs.
 * @type {import('jest').Config}
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/', '/test/ui/', ...[...require('./jest.inBand.js'), ...require('./jest.volume.js')].map((file) => `/${file.replace(/\./g, '\\.')}$`)],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
	testTimeout: 60000,
	// Most files wait on the sandbox's 1 request/s, so more of them at once finish sooner even on 2
	// cores: 12 workers took 208 s of jest on 2 quiet cores where 8 took 244 s.
	maxWorkers: 12,
};
