/**
 * Running an installed n8n (./install.ts): one CLI call (`runN8n`) or a server (`startN8n`), each
 * with its own task-runner broker port, in an offline, quiet, self-contained user folder.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';

import { ensureN8n, n8nProfile, type N8nInstall } from './install';
import { cleanEnv, freePort, killTree, lineSplitter, run, sleep, type RunResult } from './process';
import { startProgress, StartProgress } from './progress';

/**
 * Environment for an offline, quiet, self-contained n8n: everything lives in userFolder/.n8n
 * (sqlite DB, encryption key, community packages in .n8n/nodes), nothing phones home.
 */
export function n8nEnv(install: N8nInstall, userFolder: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env = cleanEnv();
	for (const k of Object.keys(env)) {
		// never inherit an outer n8n configuration
		if (/^(N8N_|DB_|EXECUTIONS_|QUEUE_|GENERIC_TIMEZONE$|NODES_|WEBHOOK_URL$)/.test(k)) delete env[k];
		// Jest sets NODE_ENV=test (and JEST_WORKER_ID): n8n then believes it runs in ITS unit tests,
		// silences its logger and skips loading nodes - the CLI "succeeds" doing nothing.
		if (k === 'NODE_ENV' || k.startsWith('JEST_')) delete env[k];
	}
	return {
		...env,
		PATH: `${path.join(install.node.nodeDir, 'bin')}${path.delimiter}${env.PATH ?? ''}`,
		// what this n8n version needs (n8n 1.x: the legacy expression engine)
		...(install.env ?? n8nProfile(install.version).env),
		N8N_USER_FOLDER: userFolder,
		DB_TYPE: 'sqlite',
		DB_SQLITE_DATABASE: path.join(userFolder, '.n8n', 'database.sqlite'),
		// offline & quiet
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_PYTHON_ENABLED: 'false',
		// our sandbox API runs on 127.0.0.1: keep n8n's (off by default) SSRF guard off explicitly
		N8N_SSRF_PROTECTION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		NO_COLOR: '1',
		...extra,
	};
}

export interface RunN8nOptions {
	userFolder: string;
	env?: NodeJS.ProcessEnv;
	timeoutMs?: number;
	install?: N8nInstall;
}

/** One n8n CLI call (`import:workflow`, `execute`, ...) with Node 24; async spawn. */
export async function runN8n(args: string[], opts: RunN8nOptions): Promise<RunResult> {
	const install = opts.install ?? (await ensureN8n());
	// each CLI process that needs the task runner opens a broker port: give it its own
	const brokerPort = await freePort();
	fs.mkdirSync(opts.userFolder, { recursive: true });
	return run(install.node.nodeBin, [install.n8nBin, ...args], {
		cwd: opts.userFolder,
		env: n8nEnv(install, opts.userFolder, { N8N_RUNNERS_BROKER_PORT: String(brokerPort), ...opts.env }),
		timeoutMs: opts.timeoutMs ?? 5 * 60_000,
	});
}

export interface StartN8nOptions {
	userFolder: string;
	port?: number;
	env?: NodeJS.ProcessEnv;
	install?: N8nInstall;
	/** Max wait for /healthz/readiness. */
	timeoutMs?: number;
	/** Forward n8n's output to this stream (e.g. process.stdout for the demo). */
	echo?: NodeJS.WritableStream;
	/** The n8n command and its arguments (default `['start']`; queue mode: `['worker', '--concurrency=5']`). */
	command?: string[];
	/** Paths that must answer 200 before the process counts as ready (default: main's three, see startN8n). */
	readyPaths?: string[];
	/** Reports what n8n is doing every PROGRESS_EVERY_MS until it is ready (its last line of output). */
	progress?: (msg: string) => void;
}

export interface N8nServer {
	url: string;
	port: number;
	pid: number;
	/** Everything n8n printed so far. */
	output(): string;
	stop(): Promise<void>;
	/** `kill -9` of the process group (n8n and its task runner); resolves once n8n has exited. */
	kill(): Promise<void>;
}

function httpGetStatus(url: string): Promise<number> {
	return new Promise((resolve) => {
		const req = http.get(url, (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.setTimeout(2000, () => req.destroy());
		req.on('error', () => resolve(0));
	});
}

const MAIN_READY_PATHS = ['/healthz', '/healthz/readiness', '/rest/settings'];

/**
 * `n8n start` on 127.0.0.1:port; resolves once /healthz, /healthz/readiness and /rest/settings answer 200.
 * With `command` (e.g. `['worker', '--concurrency=5']`) and `readyPaths` it starts any long-running
 * n8n command whose HTTP server listens on `port` (a worker's health check server).
 */
export async function startN8n(opts: StartN8nOptions): Promise<N8nServer> {
	const install = opts.install ?? (await ensureN8n());
	const port = opts.port ?? (await freePort());
	const brokerPort = await freePort();
	fs.mkdirSync(opts.userFolder, { recursive: true });
	const env = n8nEnv(install, opts.userFolder, {
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: 'localhost',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://localhost:${port}`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		...opts.env,
	});
	const child = spawn(install.node.nodeBin, [install.n8nBin, ...(opts.command ?? ['start'])], {
		cwd: opts.userFolder,
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true, // own process group: stop() takes the task runner down with it
	});
	let out = '';
	const started = new StartProgress();
	const lines = lineSplitter(started.onLine);
	const onData = (d: Buffer) => {
		out += d.toString('utf8');
		lines(d.toString('utf8'));
		opts.echo?.write(d);
	};
	child.stdout!.on('data', onData);
	child.stderr!.on('data', onData);
	let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
	const exitPromise = new Promise<void>((resolve) =>
		child.on('exit', (code, signal) => {
			exited = { code, signal };
			resolve();
		}),
	);
	const url = `http://127.0.0.1:${port}`;
	// n8n runs in its own process group (so Ctrl+C reaches only our handler, which stops it in
	// order); if this process ends without stop(), take the group down with it
	const onExit = () => killTree(child, 'SIGKILL');
	process.once('exit', onExit);
	child.once('exit', () => process.removeListener('exit', onExit));
	const stop = async () => {
		if (exited) return;
		killTree(child, 'SIGTERM');
		const t = setTimeout(() => killTree(child, 'SIGKILL'), 15_000);
		await exitPromise;
		clearTimeout(t);
	};
	const kill = async () => {
		if (exited) return;
		killTree(child, 'SIGKILL');
		await exitPromise;
	};
	const readyPaths = opts.readyPaths ?? MAIN_READY_PATHS;
	const deadline = Date.now() + (opts.timeoutMs ?? 180_000);
	const progress = opts.progress ? startProgress(opts.progress, opts.command ? `starting n8n ${opts.command[0]}` : 'starting n8n', () => started.describe()) : undefined;
	try {
		await waitUntilReady();
	} finally {
		progress?.stop();
	}
	return { url, port, pid: child.pid!, output: () => out, stop, kill };

	async function waitUntilReady(): Promise<void> {
		for (;;) {
			if (exited) {
				throw new Error(`n8n ${(opts.command ?? ['start'])[0]} exited early (${exited.code ?? exited.signal}):\n${out.split('\n').slice(-40).join('\n')}`);
			}
			// n8n 1.x reports /healthz/readiness as soon as the database is migrated, seconds BEFORE it
			// registers its REST controllers (POST /rest/owner/setup answers 404 until then): also wait for
			// a public REST route, /rest/settings (the first call the editor makes)
			let ready = true;
			for (const readyPath of readyPaths) {
				if ((await httpGetStatus(`${url}${readyPath}`)) !== 200) {
					ready = false;
					break;
				}
			}
			if (ready) return;
			if (Date.now() > deadline) {
				await stop();
				throw new Error(`n8n did not become ready on ${url}:\n${out.split('\n').slice(-40).join('\n')}`);
			}
			await sleep(300);
		}
	}
}
