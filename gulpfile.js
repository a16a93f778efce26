/**
 * Build: every TypeScript file of nodes/ and credentials/ becomes one JavaScript file in dist/, in the
 * same tree (so each module exists ONCE at run time: both nodes `require` the same transport, limiter
 * registry and Redis connections), and the third-party libraries the nodes use at run time are bundled
 * once each into dist/vendor/ (bottleneck.js, ioredis.js). Then icons and codex files are copied.
 *
 * Why bundle the libraries: n8n installs community packages without their dependencies being
 * guaranteed, and n8n's linter forbids runtime `dependencies`, so Bottleneck and ioredis are shipped in
 * dist/vendor/ and every `require('bottleneck')` / `require('ioredis')` of our code points there.
 * `n8n-workflow` is provided by n8n (peer dependency) and stays a plain require.
 *
 * Patches: every `patches/<package>+<version>.patch` (patch-package format) is applied to the bundled
 * copy of that package while esbuild reads it, not to node_modules (.npmrc sets ignore-scripts, so
 * patch-package's postinstall never runs). The build fails if the installed version differs from the
 * patch's or a hunk no longer matches. Today: Bottleneck 2.19.5's Redis datastore on Redis 7 (see
 * patches/README.md).
 */
const { src, dest, series } = require('gulp');
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = __dirname;
const DIST = path.join(ROOT, 'dist');

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
			patches.push({ name, file: path.join(ROOT, effect.path), hunks: effect.hunks, applied: false });
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

/** Libraries bundled into dist/vendor/<name>.js (everything else is ours, or n8n's n8n-workflow). */
const VENDORED = ['bottleneck', 'ioredis'];

/**
 * esbuild plugin for our own files: other files of ours stay separate modules (a relative require),
 * vendored libraries are required from dist/vendor/, n8n-workflow and Node's modules from the runtime.
 */
function ownModulesPlugin() {
	return {
		name: 'own-modules',
		setup(build) {
			build.onResolve({ filter: /.*/ }, (args) => {
				if (args.kind === 'entry-point') return undefined;
				if (args.path.startsWith('.')) return { path: args.path, external: true };
				const name = args.path.split('/')[0];
				if (VENDORED.includes(name)) {
					const from = path.dirname(path.join(DIST, path.relative(ROOT, args.importer)));
					let target = path.relative(from, path.join(DIST, 'vendor', `${name}.js`));
					if (!target.startsWith('.')) target = `./${target}`;
					return { path: target, external: true };
				}
				return { path: args.path, external: true };
			});
		},
	};
}

/** What every esbuild run of the build shares: CommonJS for the Node versions n8n runs on. */
const COMMON = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', keepNames: true, logLevel: 'warning' };

async function compile() {
	const sources = [
		...listFiles(path.join(ROOT, 'nodes'), (name) => name.endsWith('.ts') && !name.endsWith('.d.ts')),
		...listFiles(path.join(ROOT, 'credentials'), (name) => name.endsWith('.ts') && !name.endsWith('.d.ts')),
	];
	await esbuild.build({
		...COMMON,
		entryPoints: sources,
		outbase: ROOT,
		outdir: DIST,
		sourcemap: true,
		plugins: [ownModulesPlugin()],
	});
}

async function vendor() {
	const patches = loadPatches();
	await esbuild.build({
		...COMMON,
		entryPoints: Object.fromEntries(VENDORED.map((name) => [`vendor/${name}`, require.resolve(name, { paths: [ROOT] })])),
		outdir: DIST,
		// Third-party code, shipped once: minified (the licences stay: esbuild keeps legal comments).
		minify: true,
		legalComments: 'eof',
		logLevel: 'warning',
		plugins: [patchPackagesPlugin(patches)],
	});
	const unused = patches.filter((patch) => !patch.applied);
	if (unused.length > 0) {
		throw new Error(`Patched file(s) not part of the bundle, so the patch was not applied: ${unused.map((p) => path.relative(ROOT, p.file)).join(', ')}`);
	}
}

function copyAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'nodes/**/*.node.json', 'credentials/**/*.svg'], { base: ROOT, encoding: false }).pipe(
		dest(DIST),
	);
}

exports.clean = clean;
exports.loadPatches = loadPatches;
exports.applyHunks = applyHunks;
exports.build = series(clean, compile, vendor, copyAssets);
exports.default = exports.build;
