/**
 * Every test suite, one jest project each. An npm script runs one or more of them (JEST_PROJECTS=a,b);
 * plain `npx jest` runs npm test's two, `npx jest --selectProjects e2e` any. The projects that need more than Node have their own scripts,
 * which check that the machine has it first (scripts/test-tiers.ts; `npm test` prints the list):
 *
 * | project     | npm script                      | files                                   | needs, runs                                   |
 * |-------------|---------------------------------|-----------------------------------------|-----------------------------------------------|
 * | unit        | test:unit, test (+ test:fuzz)   | *.unit.test.ts                          | Node; the network refused                     |
 * | integration | test                            | the other *.test.ts                     | Node; the sandbox over loopback, n8n-core     |
 * | volume      | test:volume                     | VOLUME below                            | Node; the network refused; minutes of CPU     |
 * | costs       | test:costs                      | IN_BAND below                           | Node; in band                                 |
 * | redis       | test:redis                      | *.redis.test.ts                         | redis-server                                  |
 * | curl        | test:curl                       | *.curl.test.ts                          | curl                                          |
 * | e2e         | test:e2e, test:e2e:n8n1         | test/e2e/*.e2e.ts                       | an n8n install; in band                       |
 * | e2e-queue   | test:e2e:queue                  | test/e2e/queue/*.e2e.ts                 | PostgreSQL, Redis, an n8n install; in band    |
 * | ui          | test:ui, docs:screenshots       | test/ui/*.ui.ts                         | Chromium, an n8n install; in band             |
 *
 * The Node-alone projects refuse to start redis-server, PostgreSQL, Chromium, curl or n8n, and unit
 * and volume refuse the network (test/support/tierEnvironment.ts). No test in them asserts a duration:
 * timing is asserted on simulated clocks and measured by the bench.
 * @type {import('jest').Config}
 */
const { envOverride } = require('./harness/env');

/**
 * The suites that measure a poll against n8n's poll budget, or its calls per page, at the real pace:
 * `npm run test:costs` runs them one after the other, and npm test leaves them out. CPU load from
 * parallel test workers, or from anything else on the machine, changes what they measure.
 */
const IN_BAND = [
	// calls per page drained over HTTP
	'costs.http.test.ts',
	// a backlog and 800 bookings without a draft under a budget, at the real 1 request/s
	'pollBudget.http.test.ts',
	// 10,000 drafts, a bulk import and a 3-hour backlog: each poll within its budget
	'volume.node.test.ts',
];

/**
 * The trigger's oracle runs at volume (thousands of customers over hours of generated traffic, on the
 * in-memory list model): minutes of CPU each, so npm test leaves them out and `npm run test:volume` runs them.
 */
const VOLUME = [
	// random runs of the poll loop at volume: thousands of sessions, cut polls, lost saves
	'simulation.unit.test.ts',
	// 10,000 drafts in one delay, a bulk import, a 3-hour backlog, 6,000 bookings without a draft
	'volume.unit.test.ts',
	// the retargeting day: 1,500 customers start within one delay, 750 of them book minutes later
	'retarget.unit.test.ts',
	// 3,000 customers, all events, small call budgets, lost saves
	'retargetBudgets.unit.test.ts',
	// 3,000 customers with the customer cooldown (1 and 2 days)
	'retargetCooldown.unit.test.ts',
];

/** A file name, wherever it is, as a path pattern. */
const anywhere = (files) => files.map((file) => `/${file.replace(/\./g, '\\.')}$`);

const common = {
	rootDir: __dirname,
	// n8n's logger in the test process: silent unless N8N_LOG_LEVEL is set; captured where a test asserts it
	setupFiles: ['<rootDir>/test/support/n8nLog.ts'],
	// tsconfig.json with isolatedModules (each file transpiled alone: fast; tsc type-checks): set as
	// a compiler option, as ts-jest's own isolatedModules option is deprecated (a warning per worker)
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }] },
};

/** A project that needs Node alone: system services refused, the network too when `network: false`. */
const nodeAlone = ({ network }) => ({
	...common,
	roots: ['<rootDir>/test'],
	testEnvironment: '<rootDir>/test/support/tierEnvironment.ts',
	testEnvironmentOptions: { refuse: network ? ['services'] : ['services', 'network'] },
});

/** A project with services of its own (nothing refused). */
const withServices = (roots, timeoutMs) => ({
	...common,
	roots,
	testEnvironment: 'node',
	...(timeoutMs ? { globals: { projectTestTimeoutMs: timeoutMs }, setupFilesAfterEnv: ['<rootDir>/test/support/projectTimeout.ts'] } : {}),
});

/** What the e2e suites share: the cached n8n and the packed package (test/e2e/global-setup.ts). */
const realN8n = {
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
};

// The CRM and funnel report recipes are n8n 2.x workflows (their Data Table node version and
// parameters are 2.x's; the docs say so), the lost save is staged with 2.x's Publish, Unpublish and
// publication status, and the demo runs n8n 2.x (its second run: demo.e2e.ts): against n8n 1.x they
// are left out.
const onN8n1 = /^1\./.test(envOverride('E2E_N8N_VERSION') ?? '');

const PROJECTS = {
	unit: {
		...nodeAlone({ network: false }),
		testMatch: ['**/*.unit.test.ts'],
		testPathIgnorePatterns: ['/node_modules/', ...anywhere(VOLUME)],
	},
	integration: {
		...nodeAlone({ network: true }),
		testMatch: ['**/*.test.ts'],
		testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/', '<rootDir>/test/ui/', '\\.(unit|redis|curl)\\.test\\.ts$', ...anywhere(IN_BAND)],
	},
	volume: {
		...nodeAlone({ network: false }),
		testMatch: VOLUME.map((file) => `**/${file}`),
	},
	costs: {
		...nodeAlone({ network: true }),
		testMatch: IN_BAND.map((file) => `**/${file}`),
	},
	redis: { ...withServices(['<rootDir>/test']), testMatch: ['**/*.redis.test.ts'] },
	curl: { ...withServices(['<rootDir>/test']), testMatch: ['**/*.curl.test.ts'] },
	e2e: {
		...withServices(['<rootDir>/test/e2e'], 10 * 60_000),
		...realN8n,
		testMatch: ['**/*.e2e.ts'],
		testPathIgnorePatterns: [
			'/node_modules/',
			'<rootDir>/test/e2e/queue/',
			...(onN8n1
				? ['<rootDir>/test/e2e/crm-sync.e2e.ts', '<rootDir>/test/e2e/funnel-report.e2e.ts', '<rootDir>/test/e2e/lost-save.e2e.ts', '<rootDir>/test/e2e/demo.e2e.ts']
				: []),
		],
	},
	'e2e-queue': { ...withServices(['<rootDir>/test/e2e/queue'], 10 * 60_000), ...realN8n, testMatch: ['**/*.e2e.ts'] },
	ui: { ...withServices(['<rootDir>/test/ui'], 5 * 60_000), ...realN8n, testMatch: ['**/*.ui.ts'] },
};

/** The projects a run names on jest's command line (`--selectProjects a b`, `--selectProjects=a`). */
function selectedOnCommandLine(argv) {
	const names = [];
	let found = false;
	for (let i = 0; i < argv.length; i++) {
		const [flag, value] = argv[i].split('=', 2);
		if (flag !== '--selectProjects') continue;
		found = true;
		if (value !== undefined) names.push(value);
		else for (let j = i + 1; j < argv.length && !argv[j].startsWith('-'); j++) names.push(argv[j]);
	}
	return found ? names : undefined;
}

// Which projects this run has: JEST_PROJECTS (what the npm scripts set: unlike --selectProjects, it
// leaves `npm run test:unit -- <path>` a path), else all of them for --selectProjects or
// --ignoreProjects to choose from, else npm test's two (plain `npx jest`, `npx jest <path>`).
const DEFAULT = ['unit', 'integration'];
const fromEnv = (envOverride('JEST_PROJECTS') ?? '').split(/[\s,]+/).filter(Boolean);
const fromEnvOrNone = fromEnv.length > 0 ? fromEnv : undefined;
const onCommandLine = selectedOnCommandLine(process.argv);
const choosing = onCommandLine !== undefined || process.argv.some((arg) => arg.startsWith('--ignoreProjects'));
const unknown = fromEnv.filter((name) => !(name in PROJECTS));
if (unknown.length > 0) throw new Error(`JEST_PROJECTS names no project ${unknown.join(', ')} (jest.config.js has ${Object.keys(PROJECTS).join(', ')})`);
const included = fromEnvOrNone ?? (choosing ? Object.keys(PROJECTS) : DEFAULT);
const running = fromEnvOrNone ?? onCommandLine ?? included;

// In band, one file after the other: the suites that time polls (costs) or drive real n8n processes.
const SERIAL = new Set(['costs', 'e2e', 'e2e-queue', 'ui']);
const serialOnly = running.length > 0 && running.every((name) => SERIAL.has(name));

module.exports = {
	projects: included.map((name) => ({ displayName: name, ...PROJECTS[name] })),
	testTimeout: 60_000,
	// Most files of npm test wait on the sandbox's 1 request/s, so more of them at once finish sooner
	// even on 2 cores: 12 workers took 208 s of jest on 2 quiet cores where 8 took 244 s.
	// `npm run test:unit` overrides it with one worker per core (--maxWorkers=100%): its files only
	// compute, so workers beyond the cores buy nothing (2 workers: 116 s of jest on 2 quiet cores, 12:
	// 142 s), and at the end jest gives each worker 500 ms to exit after the last file: 12 workers
	// freeing their heaps (150 to 550 MB each) at once on 2 cores took up to 360 ms on a quiet machine,
	// and on a busy one past the 500 ms ("A worker process has failed to exit gracefully", no handle open).
	maxWorkers: serialOnly ? 1 : 12,
	// A worker whose heap grew past this after a file is replaced by a fresh one, so the workers left
	// at the end are small and exit within those 500 ms (npm test's 12 did not, on a quiet machine too).
	workerIdleMemoryLimit: serialOnly ? undefined : '200MB',
	// the e2e and editor suites list every test as it passes
	verbose: serialOnly && !running.includes('costs') ? true : undefined,
};
