/**
 * Build: bundle every node and credential entry point into dist/ with esbuild, then copy icons and
 * codex files.
 *
 * Why bundle: n8n installs community packages without their dependencies' dependencies being
 * guaranteed, and n8n's linter forbids runtime `dependencies`, so Bottleneck (and everything else the
 * nodes use at run time, except n8n-workflow which n8n provides) is inlined into each entry file.
 * Each entry gets its own copy of the shared code; the limiter registry is kept on `globalThis`
 * (nodes/shared/transport/limiterRegistry.ts) so all of them still share one budget per key.
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

async function bundle() {
	const entryPoints = [
		...listFiles(path.join(ROOT, 'nodes'), (name) => name.endsWith('.node.ts')),
		...listFiles(path.join(ROOT, 'credentials'), (name) => name.endsWith('.credentials.ts')),
	];
	await esbuild.build({
		entryPoints,
		outbase: ROOT,
		outdir: DIST,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		keepNames: true,
		sourcemap: true,
		external: ['n8n-workflow'],
		logLevel: 'warning',
	});
}

function copyAssets() {
	return src(['nodes/**/*.svg', 'nodes/**/*.png', 'nodes/**/*.node.json', 'credentials/**/*.svg'], { base: ROOT, encoding: false }).pipe(
		dest(DIST),
	);
}

exports.clean = clean;
exports.build = series(clean, bundle, copyAssets);
exports.default = exports.build;
