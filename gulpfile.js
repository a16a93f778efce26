/**
 * Build of the two editions, from the one source tree (docs/guides/queue-mode.md, "Why two packages"):
 * - the n8n Cloud edition, `n8n-nodes-booking-requests` (the package at the repository root): dist/;
 * - the queue edition, `n8n-nodes-booking-requests-queue` (self-hosted queue mode: the rate limit shared
 *   through Redis): editions/queue/ (package.json, README.md, LICENSE, dist/).
 * Every TypeScript file of nodes/ and credentials/ (and, for the queue edition, queue/) becomes one
 * JavaScript file in the edition's dist/, in the same tree (so each module exists ONCE at run time: both
 * nodes `require` the same transport and limiter registry), and the third-party libraries the nodes use
 * at run time are bundled once each into dist/vendor/. Then icons and codex files are copied.
 *
 * What differs: the queue edition's build puts queue/edition.ts in the place of
 * nodes/shared/transport/limiter/edition.ts (the Redis-shared limiter) and queue/credentialFields.ts in
 * the place of credentials/editionFields.ts (the credential's Redis fields: the Cloud edition's credential
 * has none, under the same type name and common fields), and bundles ioredis and all of
 * Bottleneck; the Cloud edition bundles Bottleneck without its Redis parts (Group, Batcher and the Redis
 * connections and datastore are replaced by a module that explains they are not in this edition), so
 * the Cloud package holds no Redis client, no Node built-in and no timer of its own (n8n's scanner).
 *
 * Why bundle the libraries: n8n installs community packages without their dependencies being
 * guaranteed, and n8n's linter forbids runtime `dependencies`, so Bottleneck and ioredis are shipped in
 * dist/vendor/ and every `require('bottleneck')` / `require('ioredis')` of our code points there.
 * `n8n-workflow` is provided by n8n (peer dependency) and stays a plain require.
 *
 * Patches: every `patches/<package>+<version>.patch` (patch-package format) is applied to the bundled
 * copy of that package while esbuild reads it, not to node_modules (.npmrc sets ignore-scripts, so
 * patch-package's postinstall never runs). The build fails if the installed version differs from the
 * patch's or a hunk no longer matches. Today: Bottleneck 2.19.5's timers through n8n-workflow's `sleep`,
 * and its Redis datastore on Redis 7 (see patches/README.md).
 */
const { src, dest, series } = require('gulp');
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = __dirname;
const DIST = path.join(ROOT, 'dist');
const QUEUE_PACKAGE_DIR = path.join(ROOT, 'editions', 'queue');

/** Bottleneck modules left out of the Cloud edition (Redis clustering, and Group/Batcher that need it or timers). */
const BOTTLENECK_REDIS_PARTS = ['RedisDatastore', 'RedisConnection', 'IORedisConnection', 'Scripts', 'Group', 'Batcher'];

const EDITIONS = {
	cloud: { name: 'n8n-nodes-booking-requests', out: DIST, sourceDirs: ['nodes', 'credentials'], vendored: ['bottleneck'], withoutBottleneck: BOTTLENECK_REDIS_PARTS, replaced: {} },
	queue: {
		name: 'n8n-nodes-booking-requests-queue',
		out: path.join(QUEUE_PACKAGE_DIR, 'dist'),
		sourceDirs: ['nodes', 'credentials', 'queue'],
		vendored: ['bottleneck', 'ioredis'],
		withoutBottleneck: [],
		// module (without extension) → the module built in its place
		replaced: { 'nodes/shared/transport/limiter/edition': 'queue/edition', 'credentials/editionFields': 'queue/credentialFields' },
	},
};

function listFiles(dir, predicate) {
	const found = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) found.push(...listFiles(full, predicate));
		else if (predicate(entry.name)) found.push(full);
	}
	return found;
}

async function clean() {
	fs.rmSync(DIST, { recursive: true, force: true });
	fs.rmSync(QUEUE_PACKAGE_DIR, { recursive: true, force: true });
}

/** Reads patches/*.patch (patch-package's format, parsed with patch-package's own parser). */
function loadPatches() {
	const dir = path.join(ROOT, 'patches');
	if (!fs.existsSync(dir)) return [];
	const { parsePatchFile } = require('patch-package/dist/patch/parse');
	const patches = [];
	for (const name of fs.readdirSync(dir).filter((file) => file.endsWith('.patch'))) {
		const match = /^(.+)\+(\d[^+]*)\.patch$/.exec(name.replace(/\+\+/g, '/'));
		if (!match) throw new Error(`patches/${name}: expected <package>+<version>.patch`);
		const [, packageName, version] = match;
		const installed = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', packageName, 'package.json'), 'utf8')).version;
		if (installed !== version) {
			throw new Error(`patches/${name} is for ${packageName}@${version}, but ${installed} is installed: check the patch is still needed and update it.`);
		}
		for (const effect of parsePatchFile(fs.readFileSync(path.join(dir, name), 'utf8'))) {
			if (effect.type !== 'patch') throw new Error(`patches/${name}: only file modifications are supported (${effect.type} ${effect.path})`);
			// the real path: esbuild loads files by it, and node_modules may be a symlink (a git worktree sharing one install)
			const file = path.join(ROOT, effect.path);
			patches.push({ name, file: fs.existsSync(file) ? fs.realpathSync(file) : file, hunks: effect.hunks, applied: false });
		}
	}
	return patches;
}

/** Applies the hunks of one file's patch to its text; each hunk must match exactly once. */
function applyHunks(source, patch) {
	let text = source;
	for (const hunk of patch.hunks) {
		const before = [];
		const after = [];
		for (const part of hunk.parts) {
			if (part.type !== 'insertion') before.push(...part.lines);
			if (part.type !== 'deletion') after.push(...part.lines);
		}
		const from = `${before.join('\n')}\n`;
		const to = `${after.join('\n')}\n`;
		const found = text.split(from).length - 1;
		if (found === 1) text = text.replace(from, () => to);
		// Already applied (someone ran `npx patch-package` on node_modules): keep it.
		else if (!(found === 0 && text.split(to).length - 1 === 1)) {
			throw new Error(
				`patches/${patch.name}: the hunk at line ${hunk.header.original.start} of ${path.relative(ROOT, patch.file)} matches ${found} times`,
			);
		}
	}
	return text;
}

/** esbuild plugin: serves the patched text of patched package files. */
function patchPackagesPlugin(patches) {
	// keyed by the real path: node_modules may be a symlink (a git worktree sharing another's)
	const byFile = new Map(patches.map((patch) => [fs.realpathSync(patch.file), patch]));
	const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return {
		name: 'patch-packages',
		setup(build) {
			if (byFile.size === 0) return;
			const filter = new RegExp(`(${[...byFile.keys()].map((file) => escape(path.basename(file))).join('|')})$`);
			build.onLoad({ filter }, async (args) => {
				const patch = byFile.get(fs.realpathSync(args.path)) ?? byFile.get(args.path);
				if (!patch) return undefined;
				const contents = applyHunks(fs.readFileSync(args.path, 'utf8'), patch);
				patch.applied = true;
				return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
			});
		},
	};
}

/** A relative require from the built `importer` to `target` (both in the edition's dist tree). */
function requirePath(fromFile, target) {
	const relative = path.relative(path.dirname(fromFile), target);
	return relative.startsWith('.') ? relative : `./${relative}`;
}

/**
 * esbuild plugin for our own files: other files of ours stay separate modules (a relative require;
 * the edition's replaced modules point at their replacement), vendored libraries (`edition.vendored`)
 * are required from dist/vendor/, n8n-workflow and Node's modules from the runtime.
 */
function ownModulesPlugin(edition) {
	return {
		name: 'own-modules',
		setup(build) {
			build.onResolve({ filter: /.*/ }, (args) => {
				if (args.kind === 'entry-point') return undefined;
				const builtImporter = path.join(edition.out, path.relative(ROOT, args.importer));
				if (args.path.startsWith('.')) {
					const module = path.relative(ROOT, path.resolve(path.dirname(args.importer), args.path)).replace(/\.ts$/, '');
					const replacement = edition.replaced[module];
					if (replacement && path.relative(ROOT, args.importer).replace(/\.ts$/, '') !== replacement) {
						return { path: requirePath(builtImporter, path.join(edition.out, `${replacement}.js`)), external: true };
					}
					return { path: args.path, external: true };
				}
				const name = args.path.split('/')[0];
				if (edition.vendored.includes(name)) return { path: requirePath(builtImporter, path.join(edition.out, 'vendor', `${name}.js`)), external: true };
				return { path: args.path, external: true };
			});
		},
	};
}

/** esbuild plugin: Bottleneck's modules listed in `parts` become a stub that says they are not in this edition. */
function bottleneckWithoutPlugin(parts) {
	return {
		name: 'bottleneck-without',
		setup(build) {
			if (parts.length === 0) return;
			const filter = new RegExp(`^\\./(${parts.join('|')})$`);
			build.onResolve({ filter }, (args) => {
				if (!args.importer.includes(`${path.sep}bottleneck${path.sep}`)) return undefined;
				return { path: args.path.slice(2), namespace: 'bottleneck-left-out' };
			});
			build.onLoad({ filter: /.*/, namespace: 'bottleneck-left-out' }, (args) => ({
				contents: `module.exports = function ${args.path}() { throw new Error("Bottleneck's ${args.path} (Redis clustering) is not part of the n8n Cloud edition of n8n-nodes-booking-requests: install n8n-nodes-booking-requests-queue for a rate limit shared through Redis"); };`,
				loader: 'js',
			}));
		},
	};
}

/** What every esbuild run of the build shares: CommonJS for the Node versions n8n runs on. */
const COMMON = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', keepNames: true, logLevel: 'warning' };

async function compile(edition) {
	const replaced = new Set(Object.keys(edition.replaced).map((module) => path.join(ROOT, `${module}.ts`)));
	const sources = edition.sourceDirs
		.flatMap((dir) => listFiles(path.join(ROOT, dir), (name) => name.endsWith('.ts') && !name.endsWith('.d.ts')))
		.filter((file) => !replaced.has(file));
	await esbuild.build({
		...COMMON,
		entryPoints: sources,
		outbase: ROOT,
		outdir: edition.out,
		sourcemap: true,
		plugins: [ownModulesPlugin(edition)],
	});
}

async function vendor(edition) {
	const patches = loadPatches();
	await esbuild.build({
		...COMMON,
		entryPoints: Object.fromEntries(edition.vendored.map((name) => [`vendor/${name}`, require.resolve(name, { paths: [ROOT] })])),
		outdir: edition.out,
		// Third-party code, shipped once: minified (the licences stay: esbuild keeps legal comments).
		minify: true,
		legalComments: 'eof',
		logLevel: 'warning',
		// n8n-workflow (the patched Bottleneck's sleep) is n8n's, as for our own files.
		external: ['n8n-workflow'],
		plugins: [bottleneckWithoutPlugin(edition.withoutBottleneck), patchPackagesPlugin(patches)],
	});
	const leftOut = (patch) => edition.withoutBottleneck.includes(path.basename(patch.file, '.js'));
	const unused = patches.filter((patch) => !patch.applied && !leftOut(patch));
	if (unused.length > 0) {
		throw new Error(`Patched file(s) not part of the bundle, so the patch was not applied: ${unused.map((p) => path.relative(ROOT, p.file)).join(', ')}`);
	}
}

function copyAssets(edition) {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'nodes/**/*.node.json', 'credentials/**/*.svg'], { base: ROOT, encoding: false }).pipe(
		dest(edition.out),
	);
}

/**
 * editions/queue/: the queue edition's package.json (the root's, renamed, without the development
 * fields), README.md and LICENSE, beside its dist/.
 */
async function queuePackage() {
	const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	const edition = EDITIONS.queue;
	const pkg = {
		name: edition.name,
		version: root.version,
		description: `${root.description} This edition is for self-hosted n8n in queue mode: every n8n process using a key shares one rate limit through Redis. For n8n Cloud and single-process n8n, install ${EDITIONS.cloud.name}.`,
		keywords: [...root.keywords, 'queue-mode', 'redis'],
		license: root.license,
		author: root.author,
		homepage: root.homepage,
		repository: root.repository,
		bugs: root.bugs,
		engines: root.engines,
		files: root.files,
		// Not for n8n Cloud: it bundles a Redis client (Node's net/tls) and Bottleneck's Redis timers.
		n8n: { ...root.n8n, strict: false },
		peerDependencies: root.peerDependencies,
	};
	fs.mkdirSync(QUEUE_PACKAGE_DIR, { recursive: true });
	fs.writeFileSync(path.join(QUEUE_PACKAGE_DIR, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
	for (const file of ['README.md', 'LICENSE']) {
		if (fs.existsSync(path.join(ROOT, file))) fs.copyFileSync(path.join(ROOT, file), path.join(QUEUE_PACKAGE_DIR, file));
	}
}

/** The build steps of one edition, named for gulp's log. */
function editionSteps(key) {
	const edition = EDITIONS[key];
	const named = (name, fn) => Object.assign(fn, { displayName: `${name}:${key}` });
	return series(
		named('compile', () => compile(edition)),
		named('vendor', () => vendor(edition)),
		named('copyAssets', () => copyAssets(edition)),
	);
}

exports.clean = clean;
exports.loadPatches = loadPatches;
exports.applyHunks = applyHunks;
exports.EDITIONS = EDITIONS;
exports.build = series(clean, editionSteps('cloud'), editionSteps('queue'), queuePackage);
exports.default = exports.build;
