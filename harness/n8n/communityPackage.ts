/**
 * Builds/packs a community node package and installs the tarball into an n8n user folder the way
 * n8n 2.x itself installs community packages.
 *
 * What n8n 2.x does (2.40.7 and 2.41.1; packages/cli, modules/community-packages):
 *  - community-packages.service.js `downloadPackage()`: `npm pack <name>@<version>` inside
 *    `<N8N_USER_FOLDER>/.n8n/nodes`, `tar -xzf <tgz> -C nodes/node_modules/<name> --strip-components=1`,
 *    strips devDependencies/peerDependencies/optionalDependencies from the extracted package.json,
 *    runs `npm install --audit=false --fund=false --bin-links=false --install-strategy=shallow
 *    --ignore-scripts=true --package-lock=false` in the package dir (its own dependencies), then
 *    records `dependencies[name] = version` in `.n8n/nodes/package.json` (the "ledger").
 *  - community-packages.module.js `nodeLoaders()`: at EVERY start-up (start, execute, import ...)
 *    n8n-core `scanDirectoryForPackages(<.n8n/nodes/node_modules>)` globs `n8n-nodes-*` and
 *    `@*\/n8n-nodes-*` (depth 1/2), and loads each with LazyPackageDirectoryLoader, which reads
 *    `package.json#n8n` (nodes/credentials lists, n8nNodesApiVersion must be <= 1). Node types are
 *    `<package name>.<node description name>`. The DB table installed_packages is only used by the
 *    Settings > Community nodes page and by "reinstall missing packages"; it is not needed to load.
 *  - `n8n-workflow` (a peer dependency) resolves from n8n's own node_modules because
 *    LoadNodesAndCredentials.init() puts n8n's module paths on NODE_PATH.
 * So the honest install of a LOCAL tarball is the same sequence with the tarball instead of the
 * registry download, which is what installTarball() below does.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cleanEnv, run } from './process';
import { BuildProgress, duration, startProgress } from './progress';

export interface PackResult {
	tarball: string;
	name: string;
	version: string;
}

const npmEnv = (): NodeJS.ProcessEnv => ({ ...cleanEnv(), npm_config_update_notifier: 'false', npm_config_fund: 'false' });

export interface PackOptions {
	/**
	 * Build first: `true` = `npm run build` (tsc's type check, then the bundle); `'bundle'` = only
	 * `gulp build`, the bundle n8n loads (seconds; tsc's type check is most of `npm run build`).
	 */
	build?: boolean | 'bundle';
	/** Where the steps and their progress (every PROGRESS_EVERY_MS) are reported. */
	log?: (m: string) => void;
}

/** `npm pack` of a package folder into outDir. Optionally builds it first (PackOptions.build). */
export async function packPackage(pkgDir: string, outDir: string, opts: PackOptions = {}): Promise<PackResult> {
	fs.mkdirSync(outDir, { recursive: true });
	const log = opts.log ?? (() => undefined);
	if (opts.build) {
		const full = opts.build === true;
		const [cmd, args, what] = full
			? ['npm', ['run', 'build'], 'npm run build (tsc type-checks, then gulp bundles dist/; about a minute on 2 cores)']
			: [path.join(pkgDir, 'node_modules', '.bin', 'gulp'), ['build'], 'gulp build (esbuild bundles dist/; seconds)'];
		log(`building ${path.basename(pkgDir)}: ${what}`);
		const build = new BuildProgress(full);
		const progress = startProgress(log, 'building', () => build.describe());
		let took = 0;
		const b = await run(cmd, args, { cwd: pkgDir, env: npmEnv(), timeoutMs: 10 * 60_000, onLine: build.onLine }).finally(() => (took = progress.stop()));
		if (b.code !== 0) throw new Error(`${full ? 'npm run build' : 'gulp build'} failed (${b.code}):\n${(b.stdout + b.stderr).slice(-4000)}`);
		log(`built in ${duration(took)}`);
	}
	log('packing: npm pack');
	const packing = startProgress(log, 'packing', () => 'npm pack is writing the tarball');
	const p = await run('npm', ['pack', '--json', '--pack-destination', outDir], {
		cwd: pkgDir,
		env: npmEnv(),
		timeoutMs: 5 * 60_000,
	}).finally(() => packing.stop());
	if (p.code !== 0) throw new Error(`npm pack failed (${p.code}):\n${(p.stdout + p.stderr).slice(-4000)}`);
	const start = p.stdout.indexOf('[');
	const info = JSON.parse(p.stdout.slice(start)) as Array<{ filename: string; name: string; version: string }>;
	const tarball = path.join(outDir, path.basename(info[0].filename));
	if (!fs.existsSync(tarball)) throw new Error(`npm pack did not produce ${tarball}`);
	return { tarball, name: info[0].name, version: info[0].version };
}

export interface InstalledPackage {
	name: string;
	version: string;
	dir: string;
	/** `<name>.<node>` type names declared by the package (from the built node files' names). */
	nodeFiles: string[];
	credentialFiles: string[];
}

const PACKAGE_NAME_RE = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?n8n-nodes-[a-z0-9-._~]+$/;

/** Installs a packed community package tarball into `<userFolder>/.n8n/nodes` like n8n does. */
export async function installTarball(userFolder: string, tarball: string): Promise<InstalledPackage> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-pkg-'));
	try {
		const x = await run('tar', ['-xzf', path.resolve(tarball), '-C', staging, '--strip-components=1'], {});
		if (x.code !== 0) throw new Error(`tar failed: ${x.stderr}`);
		const pkgJsonPath = path.join(staging, 'package.json');
		const pkg = JSON.parse(fs.readFileSync(pkgJsonPath, 'utf8')) as Record<string, unknown> & {
			name: string;
			version: string;
			dependencies?: Record<string, string>;
			n8n?: { nodes?: string[]; credentials?: string[]; n8nNodesApiVersion?: number };
		};
		if (!PACKAGE_NAME_RE.test(pkg.name)) {
			throw new Error(`"${pkg.name}" is not a community package name n8n scans (n8n-nodes-* or @scope/n8n-nodes-*)`);
		}
		if (!pkg.n8n) throw new Error(`${pkg.name} has no "n8n" section in package.json`);
		for (const f of [...(pkg.n8n.nodes ?? []), ...(pkg.n8n.credentials ?? [])]) {
			if (!fs.existsSync(path.join(staging, f))) throw new Error(`${pkg.name}: ${f} is listed in package.json#n8n but not in the tarball`);
		}
		const { devDependencies: _d, peerDependencies: _p, optionalDependencies: _o, ...stripped } = pkg;
		fs.writeFileSync(pkgJsonPath, JSON.stringify(stripped, null, 2), 'utf8');

		const dest = path.join(nodesDir, 'node_modules', pkg.name);
		fs.rmSync(dest, { recursive: true, force: true });
		fs.mkdirSync(path.dirname(dest), { recursive: true });
		fs.cpSync(staging, dest, { recursive: true });
		if (pkg.dependencies && Object.keys(pkg.dependencies).length > 0) {
			const i = await run(
				'npm',
				['install', '--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false'],
				{ cwd: dest, env: npmEnv(), timeoutMs: 10 * 60_000 },
			);
			if (i.code !== 0) throw new Error(`npm install of ${pkg.name}'s dependencies failed:\n${i.stderr.slice(-4000)}`);
		}
		// the ledger n8n keeps next to node_modules
		const ledgerPath = path.join(nodesDir, 'package.json');
		let ledger: { name: string; private: boolean; dependencies: Record<string, string> } = {
			name: 'installed-nodes',
			private: true,
			dependencies: {},
		};
		try {
			const existing = JSON.parse(fs.readFileSync(ledgerPath, 'utf8'));
			if (existing?.dependencies) ledger = existing;
		} catch {
			/* new ledger */
		}
		ledger.dependencies[pkg.name] = pkg.version;
		fs.writeFileSync(ledgerPath, JSON.stringify(ledger, null, 2), 'utf8');
		return {
			name: pkg.name,
			version: pkg.version,
			dir: dest,
			nodeFiles: pkg.n8n.nodes ?? [],
			credentialFiles: pkg.n8n.credentials ?? [],
		};
	} finally {
		fs.rmSync(staging, { recursive: true, force: true });
	}
}
