/**
 * Loads a package directory the way n8n does (n8n-core's PackageDirectoryLoader: each node file through
 * `loadClassInIsolation`, a vm script calling Node's own `require`), outside jest, and prints as JSON
 * which node types it loaded and whether both nodes reach the same module instances of the shared
 * transport (one limiter registry, one edition module; in the queue edition, one Redis connection
 * registry per process).
 * Usage: node test/support/loadWithN8nLoader.js <package dir> (the repository root or editions/queue)
 */
'use strict';
require('reflect-metadata');
const path = require('node:path');
const { PackageDirectoryLoader } = require('n8n-core');

/** The module named `suffix` somewhere below `mod` in the tree of modules it required. */
function findModule(mod, suffix, seen = new Set()) {
	if (!mod || seen.has(mod)) return undefined;
	seen.add(mod);
	if (mod.filename.endsWith(suffix)) return mod;
	for (const child of mod.children) {
		const found = findModule(child, suffix, seen);
		if (found) return found;
	}
	return undefined;
}

async function main() {
	const dir = path.resolve(process.argv[2]);
	const loader = new PackageDirectoryLoader(dir);
	await loader.loadAll();
	const nodeFiles = loader.packageJson.n8n.nodes.map((file) => path.join(dir, file));
	const shared = {};
	const queueEdition = require('node:fs').existsSync(path.join(dir, 'dist', 'queue'));
	const editionModule = queueEdition ? path.join('queue', 'limiter', 'connection.js') : path.join('limiter', 'edition.js');
	for (const suffix of [path.join('limiter', 'registry.js'), editionModule, path.join('transport', 'request.js')]) {
		const modules = nodeFiles.map((file) => findModule(require.cache[file], suffix));
		shared[suffix] = { foundInEveryNode: modules.every(Boolean), oneInstance: modules.every((mod) => mod === modules[0]) };
	}
	const distModules = Object.keys(require.cache).filter((file) => file.startsWith(path.join(dir, 'dist') + path.sep));
	process.stdout.write(
		`${JSON.stringify({
			packageName: loader.packageJson.name,
			nodeTypes: Object.keys(loader.nodeTypes).sort(),
			credentialTypes: Object.keys(loader.credentialTypes).sort(),
			isolated: !require('@n8n/backend-common').inTest,
			shared,
			distModules: distModules.length,
			distinctDistModules: new Set(distModules.map((file) => require('node:fs').realpathSync(file))).size,
		})}\n`,
	);
}

main().catch((error) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
