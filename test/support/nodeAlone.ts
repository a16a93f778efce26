/**
 * What `npm test` and the other Node-alone tiers refuse: starting a system program that a machine with
 * Node alone does not have (redis-server, PostgreSQL, Chromium, curl, an n8n install). A test that
 * needs one fails at once, even on a machine that has it, and says which npm script runs such tests.
 * Applied to each test file of those projects by test/support/tierEnvironment.ts (jest.config.js).
 */
import childProcess = require('node:child_process');

import { prerequisiteOfCommand, type PrerequisiteId } from '../../harness/services/prerequisites';

/** The npm script (jest project) whose machine has each program, and how its files are named. */
const TIER_OF: Record<PrerequisiteId, string> = {
	'redis-server': 'npm run test:redis (name the file *.redis.test.ts)',
	curl: 'npm run test:curl (name the file *.curl.test.ts)',
	chromium: 'npm run test:ui (test/ui/*.ui.ts)',
	postgresql: 'npm run test:e2e:queue (test/e2e/queue/*.e2e.ts)',
	n8n: 'npm run test:e2e (test/e2e/*.e2e.ts)',
};

/** The spawning functions of node:child_process, by where their command line is. */
const WITH_ARGS = ['spawn', 'spawnSync', 'execFile', 'execFileSync'] as const;
const SHELL_LINE = ['exec', 'execSync'] as const;

type AnyFunction = (...args: unknown[]) => unknown;

/** Refuses those programs in this process until the returned function is called; `testPath` is named in the error. */
export function refuseSystemServices(testPath: string): () => void {
	const module = childProcess as unknown as Record<string, AnyFunction>;
	const originals = Object.fromEntries([...WITH_ARGS, ...SHELL_LINE].map((name) => [name, module[name]]));
	const check = (command: unknown, args: unknown) => {
		const prerequisite = prerequisiteOfCommand(String(command), Array.isArray(args) ? args.map(String) : []);
		if (!prerequisite) return;
		throw new Error(
			`this tier needs Node alone, and ${testPath} starts ${prerequisite.label.replace(/ \(.*\)$/, '')} (${String(command)}): ` +
				`such tests run in ${TIER_OF[prerequisite.id]}`,
		);
	};
	for (const name of WITH_ARGS) {
		module[name] = function (this: unknown, ...all: unknown[]) {
			check(all[0], all[1]);
			return originals[name].apply(this, all);
		};
	}
	for (const name of SHELL_LINE) {
		module[name] = function (this: unknown, ...all: unknown[]) {
			check('sh', ['-c', String(all[0])]);
			return originals[name].apply(this, all);
		};
	}
	return () => Object.assign(module, originals);
}
