/**
 * n8n queue mode end to end (test/e2e/queue): PostgreSQL + Redis + n8n 2.40.7 main and two workers,
 * the packed package in every process, the sandbox API with its real 1 request/s limit.
 * Needs Debian's postgresql and redis-server (.ci/run installs them). About 12 minutes: the trigger
 * polls once a minute, so the trigger scenarios wait for n8n's own poll times.
 * Run with: npm run test:e2e:queue
 * @type {import('jest').Config}
 */
module.exports = {
	displayName: 'e2e queue mode, n8n 2.40.7',
	testEnvironment: 'node',
	rootDir: __dirname,
	roots: ['<rootDir>/test/e2e/queue'],
	testMatch: ['**/*.e2e.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
	// the packed package and the cached n8n, as for the other e2e suites
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
	testTimeout: 10 * 60 * 1000,
	maxWorkers: 1,
	verbose: true,
};
