/**
 * Installs (once) the Node 24 runtime and n8n into the cache and prints where they are.
 * Usage: node scripts/ts-run.js scripts/n8n-setup.ts [--n8n-version 2.41.1 | 1.x]
 * (the version as E2E_N8N_VERSION takes it: an exact one, or `1.x` for the tested 1.x line; default the tested 2.x)
 */
import { cacheDir, ensureN8n, resolveN8nVersion } from '../harness/n8n/install';

async function main(): Promise<void> {
	const i = process.argv.indexOf('--n8n-version');
	const version = resolveN8nVersion(i > 0 ? process.argv[i + 1] : undefined);
	const t0 = Date.now();
	const install = await ensureN8n(version);
	const secs = ((Date.now() - t0) / 1000).toFixed(1);
	process.stdout.write(
		[
			`cache:  ${cacheDir()}`,
			`node:   ${install.node.version} (${install.node.source}) ${install.node.nodeBin}`,
			`n8n:    ${install.version} ${install.n8nBin}`,
			`ready in ${secs} s`,
			'',
		].join('\n'),
	);
}

main().catch((err) => {
	process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
	process.exit(1);
});
