/**
 * What the machine must have for the suites beyond `npm test` (which needs Node alone): each system
 * program, how to tell that it is there, and the one line that installs it. The npm scripts of those
 * suites check it before jest starts (scripts/test-tiers.ts), the services' own errors quote the same
 * line, and npm test's set-up refuses to start these programs (test/support/tierEnvironment.ts).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { envOverride } from '../env';
import { cacheDir, resolveN8nVersion } from '../n8n/install';

export type PrerequisiteId = 'redis-server' | 'postgresql' | 'chromium' | 'curl' | 'n8n';

export interface Prerequisite {
	id: PrerequisiteId;
	/** What it is, for the table: `redis-server`, `n8n 2.41.1 (cached install)` */
	label: string;
	/** The Debian packages that provide it: installLine() makes the one line that installs them. */
	apt: readonly string[];
	/** Commands that start it: a test that spawns one of these needs this prerequisite. */
	commands: readonly string[];
	/** undefined when the machine has it; else what is missing, in a few words. */
	missing(): string | undefined;
}

const runs = (cmd: string, args: string[] = ['--version']): boolean => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

/** The binary the redis tests start; REDIS_SERVER_BIN overrides. */
export const REDIS_SERVER_BIN = envOverride('REDIS_SERVER_BIN') ?? 'redis-server';

/** PostgreSQL's server binaries: PG_BIN_DIR, else the newest /usr/lib/postgresql/<v>/bin with initdb. */
export function postgresBinDir(): string | undefined {
	const fromEnv = envOverride('PG_BIN_DIR');
	if (fromEnv) return fs.existsSync(path.join(fromEnv, 'initdb')) ? fromEnv : undefined;
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return undefined;
	const versions = fs
		.readdirSync(root)
		.filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length > 0 ? path.join(root, versions[0], 'bin') : undefined;
}

/** Where the editor test looks for Chromium (test/ui/helpers/browser.ts looks in the same places). */
export function chromiumCandidates(): string[] {
	return [envOverride('UI_CHROMIUM'), '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((candidate) => candidate !== undefined);
}

/** The n8n the e2e suites use: E2E_N8N_VERSION, as their global set-up resolves it. */
function n8nVersion(spec = envOverride('E2E_N8N_VERSION')): string {
	return resolveN8nVersion(spec);
}

/** The cached install's marker (harness/n8n/install.ts writes it last). */
function n8nCached(version: string): boolean {
	return fs.existsSync(path.join(cacheDir(), `n8n-${version}`, 'ready.json'));
}

/**
 * A cached n8n install (harness/n8n/install.ts): present, or installable here, that is with the
 * tools that compile its sqlite3 (the download itself comes from the npm registry).
 */
export function n8nPrerequisite(spec = envOverride('E2E_N8N_VERSION')): Prerequisite {
	const version = n8nVersion(spec);
	return {
		id: 'n8n',
		label: `n8n ${version} (installed into the cache on first run, about 4 to 10 min)`,
		apt: ['python3', 'make', 'g++'],
		commands: ['n8n'],
		missing: () => {
			if (n8nCached(version)) return undefined;
			const lacking = ['python3', 'make', 'g++'].filter((tool) => !runs(tool));
			return lacking.length === 0 ? undefined : `n8n ${version} is not in ${cacheDir()}, and compiling its sqlite3 needs ${lacking.join(', ')}`;
		},
	};
}

export const PREREQUISITES: Record<PrerequisiteId, Prerequisite> = {
	'redis-server': {
		id: 'redis-server',
		label: 'redis-server',
		apt: ['redis-server'],
		commands: ['redis-server', 'redis-cli'],
		missing: () => (runs(REDIS_SERVER_BIN) ? undefined : `${REDIS_SERVER_BIN} not found`),
	},
	postgresql: {
		id: 'postgresql',
		label: 'PostgreSQL server',
		apt: ['postgresql'],
		commands: ['postgres', 'initdb', 'pg_ctl', 'psql', 'pg_isready'],
		missing: () => {
			// an existing server (harness/services/postgres.ts: E2E_POSTGRES_URL) needs only psql
			if (envOverride('E2E_POSTGRES_URL')) return postgresBinDir() || runs('psql') ? undefined : 'E2E_POSTGRES_URL is set, but psql is not found (apt-get install -y postgresql-client)';
			return postgresBinDir() ? undefined : 'no PostgreSQL server binaries in /usr/lib/postgresql/<version>/bin (or PG_BIN_DIR)';
		},
	},
	chromium: {
		id: 'chromium',
		label: 'Chromium',
		apt: ['chromium'],
		commands: ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome'],
		missing: () => (chromiumCandidates().some((p) => fs.existsSync(p)) ? undefined : `no Chromium at ${chromiumCandidates().join(', ')}`),
	},
	curl: {
		id: 'curl',
		label: 'curl',
		apt: ['curl'],
		commands: ['curl'],
		missing: () => (runs('curl') ? undefined : 'curl not found'),
	},
	n8n: n8nPrerequisite(),
};

/** The one line that installs what is given: `apt-get install -y postgresql redis-server`. */
export function installLine(...prerequisites: Prerequisite[]): string {
	return `apt-get install -y ${[...new Set(prerequisites.flatMap((prerequisite) => prerequisite.apt))].join(' ')}`;
}

/** Whether the e2e suites will install n8n first (minutes): said before they start. */
export function n8nInstallPending(spec = envOverride('E2E_N8N_VERSION')): string | undefined {
	const version = n8nVersion(spec);
	return n8nCached(version) ? undefined : `n8n ${version} is not in ${cacheDir()} yet: this run installs it first (about 4 to 10 minutes; progress every 15 s)`;
}

/** The prerequisite a command line starts, if any (a shell's -c script is read for the commands). */
export function prerequisiteOfCommand(command: string, args: readonly string[] = []): Prerequisite | undefined {
	const words = [command, ...args].map(String);
	const cache = cacheDir();
	if (words.some((word) => word.startsWith(cache))) return PREREQUISITES.n8n;
	const names = new Set([path.basename(command)]);
	if (/^(ba|da|z)?sh$/.test(path.basename(command))) {
		for (const word of words.slice(1).join(' ').split(/[\s;&|()`$"']+/)) names.add(path.basename(word));
	}
	return Object.values(PREREQUISITES).find((prerequisite) => prerequisite.commands.some((name) => names.has(name)));
}
