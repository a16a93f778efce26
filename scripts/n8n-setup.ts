/**
 * Installs (once) the Node 24 runtime and n8n into the cache and prints where they are.
 * Usage: node scripts/ts-run.js scripts/n8n-setup.ts [--n8n-version 2.40.7]
 */
import { cacheDir, DEFAULT_N8N_VERSION, ensureN8n } from '../harness/n8n/install';

async function main(): Promise<void> {
	const i = process.argv.indexOf('--n8n-version');
	const version = i > 0 ? process.argv[i + 1] : DEFAULT_N8N_VERSION;
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
