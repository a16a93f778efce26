/**
 * The test suites that need more than Node, each in its own npm script (jest.config.js has a project
 * for each), and what each needs. `npm test` runs only what needs Node alone and prints this table
 * first, so that nothing is left out silently; each of these scripts checks its needs before jest
 * starts and, when one is missing, says in one line how to install it and fails.
 *
 *   node scripts/ts-run.js scripts/test-tiers.ts                   the table (npm test prints it)
 *   node scripts/ts-run.js scripts/test-tiers.ts --check test:ui   check one script's needs (exit 1 if missing)
 */
import {
	PREREQUISITES,
	installLine,
	n8nInstallPending,
	n8nPrerequisite,
	type Prerequisite,
} from '../harness/services/prerequisites';
import { envOverride } from '../harness/env';
import { N8N_1X_VERSION } from '../harness/n8n/install';

interface ServiceTier {
	script: string;
	/** What it runs, in a few words. */
	runs: string;
	needs(): Prerequisite[];
	/** The n8n version spec its suites use (E2E_N8N_VERSION), when it runs n8n. */
	n8n?: string;
}

/** queue mode uses an existing Redis instead of its own redis-server when E2E_REDIS_URL is set (harness/services/redis.ts). */
const queueRedis = (): Prerequisite[] => (envOverride('E2E_REDIS_URL') ? [] : [PREREQUISITES['redis-server']]);

export const SERVICE_TIERS: ServiceTier[] = [
	{ script: 'test:redis', runs: 'the queue edition\'s shared rate limit against a real Redis', needs: () => [PREREQUISITES['redis-server']] },
	{ script: 'test:curl', runs: "docs/sandbox.md's commands, run as written", needs: () => [PREREQUISITES.curl] },
	{ script: 'test:e2e', runs: 'the packed package in a real n8n 2.x', needs: () => [n8nPrerequisite()], n8n: envOverride('E2E_N8N_VERSION') ?? '' },
	{ script: 'test:e2e:n8n1', runs: 'the same in n8n 1.x', needs: () => [n8nPrerequisite(N8N_1X_VERSION)], n8n: N8N_1X_VERSION },
	{ script: 'test:ui', runs: "n8n's editor driven in a browser", needs: () => [PREREQUISITES.chromium, n8nPrerequisite()], n8n: envOverride('E2E_N8N_VERSION') ?? '' },
	{
		script: 'test:e2e:queue',
		runs: 'n8n queue mode: main and 2 workers',
		needs: () => [PREREQUISITES.postgresql, ...queueRedis(), n8nPrerequisite()],
		n8n: envOverride('E2E_N8N_VERSION') ?? '',
	},
];

/** The longer suites that need Node alone, not in npm test (.ci/run runs them too). */
const NODE_ALONE_LONGER = 'npm run test:fuzz (the trigger\'s property tests at length), test:volume (its oracle runs at volume), test:costs (polls at the real pace, in band)';

function pad(text: string, width: number): string {
	return text.length >= width ? `${text} ` : text + ' '.repeat(width - text.length);
}

function table(): string {
	const rows = SERVICE_TIERS.map((tier) => {
		const needs = tier.needs();
		const missing = needs.filter((need) => need.missing() !== undefined);
		return [
			`npm run ${tier.script}`,
			needs.map((need) => need.label.replace(/ \(.*\)$/, '')).join(' + '),
			missing.length > 0 ? `here: ${installLine(...missing)}` : tier.n8n !== undefined && n8nInstallPending(tier.n8n || undefined) ? 'ready here (installs n8n first)' : 'ready here',
			tier.runs,
		];
	});
	const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column].length)) + 2);
	return [
		'npm test runs the tests that need Node alone. The suites that need more run in their own scripts (.ci/run runs them all):',
		...rows.map((row) => `  ${pad(row[0], widths[0])}${pad(row[1], widths[1])}${pad(row[2], widths[2])}${row[3]}`),
		`  Node alone, longer: ${NODE_ALONE_LONGER}.`,
		'  n8n is installed into ~/.cache/n8n-nodes-booking-requests by the first e2e run (npm registry; compiling sqlite3 needs python3, make, g++).',
		'',
	].join('\n');
}

/** One line when something is missing (exit 1); a note when n8n will be installed first. */
function check(script: string): number {
	const tier = SERVICE_TIERS.find((candidate) => candidate.script === script);
	if (!tier) {
		process.stderr.write(`test-tiers: no script ${script} (known: ${SERVICE_TIERS.map((t) => t.script).join(', ')})\n`);
		return 2;
	}
	const missing = tier.needs().filter((need) => need.missing() !== undefined);
	if (missing.length > 0) {
		const why = missing.map((need) => need.missing()).join('; ');
		process.stderr.write(`npm run ${script} needs ${missing.map((need) => need.label.replace(/ \(.*\)$/, '')).join(' and ')} (${why}): ${installLine(...missing)}\n`);
		return 1;
	}
	const pending = tier.n8n === undefined ? undefined : n8nInstallPending(tier.n8n || undefined);
	if (pending) process.stderr.write(`npm run ${script}: ${pending}\n`);
	return 0;
}

const at = process.argv.indexOf('--check');
if (at > 0) process.exit(check(process.argv[at + 1] ?? ''));
process.stdout.write(table());
