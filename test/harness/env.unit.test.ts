/**
 * The environment overrides (harness/env.js): one set but empty, or only spaces, counts as unset, as a
 * script that clears a variable (`REDIS_SERVER_BIN=`) means it to.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

import { envOverride } from '../../harness/env';
import { DEFAULT_N8N_VERSION } from '../../harness/n8n/install';

const ROOT = path.resolve(__dirname, '../..');

test('an override set but empty or blank is unset; a value is read trimmed', () => {
	const env = { EMPTY: '', BLANK: ' \t\n', SET: 'redis-server', PADDED: '  /usr/bin/redis-server ' };
	expect(envOverride('UNSET', env)).toBeUndefined();
	expect(envOverride('EMPTY', env)).toBeUndefined();
	expect(envOverride('BLANK', env)).toBeUndefined();
	expect(envOverride('SET', env)).toBe('redis-server');
	expect(envOverride('PADDED', env)).toBe('/usr/bin/redis-server');
	expect(envOverride('EMPTY', env) ?? 'the default').toBe('the default');
});

test('reads process.env unless given another environment', () => {
	const name = 'BOOKING_REQUESTS_ENV_TEST';
	process.env[name] = ' x ';
	try {
		expect(envOverride(name)).toBe('x');
		expect(envOverride(name, {})).toBeUndefined();
		process.env[name] = '';
		expect(envOverride(name)).toBeUndefined();
	} finally {
		delete process.env[name];
	}
});

/** scripts/test-tiers.ts as npm test runs it, with these variables set (an empty one too). */
function testTiers(env: Record<string, string>, ...args: string[]) {
	return spawnSync(process.execPath, [path.join(ROOT, 'scripts/ts-run.js'), path.join(ROOT, 'scripts/test-tiers.ts'), ...args], {
		cwd: ROOT,
		env: { ...process.env, ...env },
		encoding: 'utf8',
		timeout: 60_000,
	});
}

const EMPTY_OVERRIDES = {
	REDIS_SERVER_BIN: '',
	PG_BIN_DIR: '',
	UI_CHROMIUM: ' ',
	E2E_N8N_VERSION: '',
	E2E_REDIS_URL: '',
	E2E_POSTGRES_URL: '',
	BOOKING_REQUESTS_CACHE: '',
};

test('npm test with REDIS_SERVER_BIN= (set but empty): the tiers table, as with it unset', () => {
	const empty = testTiers(EMPTY_OVERRIDES);
	expect(empty.error).toBeUndefined();
	expect(empty.stderr).toBe('');
	expect(empty.status).toBe(0);
	// the table as with them unset: redis-server looked for by its name, n8n in its default version, in the default cache
	expect(empty.stdout).toMatch(/^ {2}npm run test:redis +redis-server +(ready here|here: apt-get install -y redis-server) /m);
	expect(empty.stdout).toMatch(new RegExp(`^ {2}npm run test:e2e +n8n ${DEFAULT_N8N_VERSION.replace(/\./g, '\\.')} `, 'm'));
});

test('a tier script\'s check with REDIS_SERVER_BIN= says what is missing or passes; it does not throw', () => {
	const checked = testTiers(EMPTY_OVERRIDES, '--check', 'test:redis');
	expect(checked.stderr).not.toMatch(/ERR_INVALID_ARG_VALUE|\n\s+at /);
	if (checked.status !== 0) expect(checked.stderr).toMatch(/^npm run test:redis needs redis-server \(redis-server not found\): apt-get install -y redis-server\n$/);
	expect([0, 1]).toContain(checked.status);
});
