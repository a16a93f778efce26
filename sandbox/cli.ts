// Starts the sandbox API server from the command line and prints its URL and keys.
//   node scripts/ts-run.js sandbox/cli.ts [--port 4010] [--host 127.0.0.1] [--seed 42]
//        [--min-gap 1000] [--latency 250 | --latency 80-320] [--no-rate-limit] [--recent] [--quiet]
//   --latency: network latency before the rate check, constant or a min-max range in ms.
//   --recent: demo data that looks like today (SandboxOptions.recent): the newest activity minutes old,
//             customers who left a booking unfinished in the last hours.
//   Where the contract leaves a choice (choices.ts; the defaults are the unkind ones):
//        [--kind] [--nulls first|last] [--ties id|fixed|reshuffled] [--commit-lag MS | MIN-MAX]
//        [--max-per-page N | LIST=N,...] [--profiles-bad-per-page default|error] [--invalid-uuid 400|404|422]
//        [--unsupported-filter error|ignored] [--retry-after S|none] [--values examples|open]
//        [--completion-keeps-session]
//   npm run sandbox -- --port 4010        (package.json script, through sandbox/cli.js)
// Ctrl+C (SIGINT) or SIGTERM closes the server and exits 0.

import { applyChoices, DEFAULT_CHOICES, KIND_CHOICES, type ChoicesInput, type ListName } from './choices';
import { startSandbox } from './server';
import type { SandboxOptions } from './types';

function usage(): never {
	console.error(
		'usage: cli.ts [--port N] [--host H] [--seed N] [--min-gap MS] [--latency MS | --latency MIN-MAX] [--no-rate-limit] [--recent] [--quiet]\n' +
			'              [--kind] [--nulls first|last] [--ties id|fixed|reshuffled] [--commit-lag MS | MIN-MAX] [--max-per-page N | LIST=N,...]\n' +
			'              [--profiles-bad-per-page default|error] [--invalid-uuid 400|404|422] [--unsupported-filter error|ignored]\n' +
			'              [--retry-after S|none] [--values examples|open] [--completion-keeps-session]',
	);
	process.exit(2);
}

/** `100` (every list) or `sessions=50,profiles=20`. */
function perPageArg(v: string | undefined): ChoicesInput['maxPerPage'] {
	if (v !== undefined && /^\d+$/.test(v)) return Number(v);
	const out: Partial<Record<ListName, number>> = {};
	for (const part of (v ?? '').split(',')) {
		const m = /^(requests|sessions|forms|profiles)=(\d+)$/.exec(part);
		if (!m) {
			console.error('--max-per-page needs N or LIST=N,... (requests, sessions, forms, profiles)');
			usage();
		}
		out[m[1] as ListName] = Number(m[2]);
	}
	return out;
}

/** A choice flag: its setting and how its value reads. */
const CHOICE_FLAGS: Record<string, { name: keyof ChoicesInput; read: (v: string | undefined) => unknown }> = {
	'--nulls': { name: 'nulls', read: (v) => v },
	'--ties': { name: 'ties', read: (v) => v },
	'--commit-lag': { name: 'commitLagMs', read: (v) => latencyArg(v) },
	'--max-per-page': { name: 'maxPerPage', read: perPageArg },
	'--profiles-bad-per-page': { name: 'profilesBadPerPage', read: (v) => v },
	'--invalid-uuid': { name: 'invalidUuid', read: (v) => Number(v) },
	'--unsupported-filter': { name: 'unsupportedFilter', read: (v) => v },
	'--retry-after': { name: 'retryAfterS', read: (v) => (v === 'none' ? null : Number(v)) },
	'--values': { name: 'values', read: (v) => v },
};

function intArg(name: string, v: string | undefined): number {
	if (v === undefined || !/^\d+$/.test(v)) {
		console.error(`${name} needs a non-negative integer`);
		usage();
	}
	return Number(v);
}

/** `250` or `80-320` (ms). */
export function latencyArg(v: string | undefined): number | [number, number] {
	const m = v === undefined ? null : /^(\d+)(?:-(\d+))?$/.exec(v);
	if (!m || (m[2] !== undefined && Number(m[1]) > Number(m[2]))) {
		console.error('--latency needs MS or MIN-MAX (non-negative integers, MIN <= MAX)');
		usage();
	}
	return m[2] === undefined ? Number(m[1]) : [Number(m[1]), Number(m[2])];
}

export function parseArgs(argv: string[]): SandboxOptions {
	const opts: SandboxOptions = { port: 4010 };
	const choices: Record<string, unknown> = {};
	let kind = false;
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
		const value = (): string | undefined => (inline !== undefined ? inline : argv[++i]);
		switch (flag) {
			case '--port':
				opts.port = intArg('--port', value());
				break;
			case '--host':
				opts.host = value() ?? usage();
				break;
			case '--seed':
				opts.seed = intArg('--seed', value());
				break;
			case '--min-gap':
				opts.minGapMs = intArg('--min-gap', value());
				break;
			case '--latency':
				opts.latencyMs = latencyArg(value());
				break;
			case '--no-rate-limit':
				opts.rateLimit = false;
				break;
			case '--quiet':
				opts.quiet = true;
				break;
			case '--recent':
				opts.recent = true;
				break;
			case '--kind':
				kind = true;
				break;
			case '--completion-keeps-session':
				choices.completionTouchesSession = false;
				break;
			case '--help':
			case '-h':
				usage();
				break;
			default: {
				const choice = CHOICE_FLAGS[flag];
				if (!choice) {
					console.error(`unknown argument ${a}`);
					usage();
				}
				choices[choice.name] = choice.read(value());
			}
		}
	}
	if (kind || Object.keys(choices).length > 0) {
		try {
			opts.choices = applyChoices(kind ? KIND_CHOICES : DEFAULT_CHOICES, choices);
		} catch (e) {
			console.error((e as Error).message);
			usage();
		}
	}
	return opts;
}

async function main(): Promise<void> {
	const opts = parseArgs(process.argv.slice(2));
	const sb = await startSandbox(opts);
	const ws = sb.workspace();
	console.log(`Booking Requests sandbox listening on ${sb.url}`);
	console.log(`  API base URL:   ${sb.url}  (paths /api/v1/...)`);
	console.log(`  demo key:       ${sb.keys.demo}`);
	if (!opts.quiet) {
		console.log(`  second key:     ${sb.keys.second}  (same workspace, own rate budget)`);
		console.log(`  other key:      ${sb.keys.other}  (another workspace)`);
		console.log(`  revoked key:    ${sb.keys.revoked}`);
		console.log(`  data:           ${ws.requests.length} requests, ${ws.sessions.length} sessions, ${ws.forms.length} forms, ${ws.profiles.length} profiles (seed ${opts.seed ?? 42})`);
		console.log(`  rate limit:     ${opts.rateLimit === false ? 'off' : `1 request per ${opts.minGapMs ?? 1000} ms per key`}`);
		const c = sb.choices();
		console.log(
			`  choices:        nulls ${c.nulls}, ties ${c.ties}, commit lag ${JSON.stringify(c.commitLagMs)} ms, values ${c.values}, invalid UUID ${c.invalidUuid} ` +
				`(where the contract is silent; --kind for the kind ones; ${sb.url}/__sandbox/choices)`,
		);
		const latency = sb.latency();
		if (latency) console.log(`  latency:        ${latency[0] === latency[1] ? `${latency[0]} ms` : `${latency[0]}-${latency[1]} ms`} before the rate check`);
		console.log(`  control:        ${sb.url}/__sandbox/info`);
		console.log(`  abandon now:    curl -X POST ${sb.url}/__sandbox/abandon  (a customer leaves a booking unfinished now; -d '{"idleMinutes": 61}' moves the sandbox clock on 61 min)`);
		console.log('  try a recipe:   docs/sandbox.md (make customers abandon and book, create and change requests, list ids)');
		console.log('Press Ctrl+C to stop.');
	}
	let stopping = false;
	const stop = (signal: string): void => {
		if (stopping) return;
		stopping = true;
		if (!opts.quiet) console.log(`\n${signal}: closing sandbox`);
		sb.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
	console.error('sandbox failed to start:', err instanceof Error ? err.message : err);
	process.exit(1);
});
