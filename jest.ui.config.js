/**
 * Browser test of the n8n editor (test/ui): the packed package in a real n8n (see harness/n8n/),
 * driven in Debian's Chromium (`apt-get install -y chromium`) with playwright-core.
 * Shares the e2e global setup (cached n8n, build + pack). Run with: npm run test:ui
 * UI_UPDATE_DOCS=1 also refreshes the screenshots in docs/ after a passing run.
 * @type {import('jest').Config}
 */
module.exports = {
	testEnvironment: 'node',
	rootDir: __dirname,
	roots: ['<rootDir>/test/ui'],
	testMatch: ['**/*.ui.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
	testTimeout: 5 * 60 * 1000,
	maxWorkers: 1,
	verbose: true,
};
