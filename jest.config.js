/**
 * `npm test` (after the build): every unit (`*.unit.test.ts`, pure) and integration (`*.test.ts`: the
 * sandbox API over loopback, Redis, n8n-core's real execution contexts) test. The integration tests
 * wait on I/O — mostly the sandbox's real 1 request/s limit — not on the CPU, and each file starts its
 * own sandbox (and Redis) on free ports, so they run in parallel workers even on a 2-core machine.
 * The end-to-end suites in a real n8n (test/e2e), the editor test (test/ui) and the cost test over HTTP
 * (costs.http.test.ts: figures that CPU load would change) have their own configs.
 * @type {import('jest').Config}
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/', '/test/ui/', 'costs.http.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
	testTimeout: 60000,
	maxWorkers: 8,
};
