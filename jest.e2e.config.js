/**
 * End-to-end suite: the packed package inside a REAL n8n (see harness/n8n/). Slow by nature: the
 * first run installs Node 24 + n8n into the cache (minutes), every n8n CLI call takes seconds.
 * Run with: npx jest -c jest.e2e.config.js --runInBand
 * Against n8n 1.x: E2E_N8N_VERSION=1.123.81 (or 1.x) npx jest -c jest.e2e.config.js --runInBand
 * @type {import('jest').Config}
 */
const n8nVersion = process.env.E2E_N8N_VERSION || 'default (2.40.7)';
const onN8n1 = /^1\./.test(process.env.E2E_N8N_VERSION || '');

module.exports = {
	// shown before every test file's results: which n8n the run used
	displayName: `e2e n8n ${n8nVersion}`,
	testEnvironment: 'node',
	rootDir: __dirname,
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	// queue mode has its own suite (jest.e2e.queue.config.js: PostgreSQL, Redis, workers). The CRM
	// and funnel report recipes are n8n 2.x workflows (their Data Table node version and parameters are
	// 2.x's; the docs say so): they are run against n8n 2.x only.
	testPathIgnorePatterns: [
		'/node_modules/',
		'<rootDir>/test/e2e/queue/',
		...(onN8n1 ? ['<rootDir>/test/e2e/crm-sync.e2e.ts', '<rootDir>/test/e2e/funnel-report.e2e.ts'] : []),
	],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
	// a cold n8n install happens in globalSetup (no timeout there); tests spawn n8n processes
	testTimeout: 10 * 60 * 1000,
	maxWorkers: 1,
	verbose: true,
};
