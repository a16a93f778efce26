/**
 * e2e global setup: makes sure the cached n8n (and its Node) exist (a cold install takes minutes;
 * later runs reuse the cache in seconds), then builds and packs this repository into a scratch dir.
 * E2E_N8N_VERSION picks the n8n: unset = 2.41.1 (Node 24), `1.x` or `1.123.81` = the last 1.x line
 * (the machine's Node 20, legacy expression engine), or any exact version (see runtime.ts).
 * E2E_SKIP_BUILD=1 packs the existing dist/ without `npm run build`.
 * Also the global setup of the editor browser test and of queue mode (jest.config.js: projects e2e, ui, e2e-queue).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { envOverride } from '../../harness/env';
import { packPackage } from '../../harness/n8n/communityPackage';
import { ensureN8n, resolveN8nVersion } from '../../harness/n8n/install';
import { STATE_ENV, type E2eState } from './helpers/state';

export default async function globalSetup(): Promise<void> {
	const repoDir = path.resolve(__dirname, '..', '..');
	const timings: Record<string, number> = {};
	let t0 = Date.now();
	const version = resolveN8nVersion(envOverride('E2E_N8N_VERSION'));
	process.stderr.write(`\n[e2e] n8n ${version} (E2E_N8N_VERSION=${envOverride('E2E_N8N_VERSION') ?? ''})\n`);
	const install = await ensureN8n(version);
	timings.ensureN8nSeconds = (Date.now() - t0) / 1000;

	const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'booking-requests-e2e-'));
	let pack: E2eState['pack'];
	t0 = Date.now();
	try {
		pack = await packPackage(repoDir, path.join(workDir, 'pack'), {
			build: envOverride('E2E_SKIP_BUILD') !== '1',
			log: (m) => process.stderr.write(`[e2e] ${m}\n`),
		});
	} catch (err) {
		pack = { error: err instanceof Error ? err.message : String(err) };
		process.stderr.write(`[e2e] could not build/pack the package; its tests will fail:\n${pack.error}\n`);
	}
	// The queue edition was built by the same `npm run build` (both editions); it is packed from its folder.
	let queuePack: E2eState['queuePack'];
	try {
		queuePack = 'tarball' in pack ? await packPackage(path.join(repoDir, 'editions', 'queue'), path.join(workDir, 'pack-queue')) : pack;
	} catch (err) {
		queuePack = { error: err instanceof Error ? err.message : String(err) };
		process.stderr.write(`[e2e] could not pack the queue edition; its tests will fail:\n${queuePack.error}\n`);
	}
	timings.buildAndPackSeconds = (Date.now() - t0) / 1000;

	const state: E2eState = { install, workDir, repoDir, pack, queuePack, timings };
	const stateFile = path.join(workDir, 'state.json');
	fs.writeFileSync(stateFile, JSON.stringify(state, null, 2));
	process.env[STATE_ENV] = stateFile;
	process.stderr.write(
		`[e2e] n8n ${install.version} on node ${install.node.version}` +
			`${Object.keys(install.env ?? {}).length ? ` (${Object.entries(install.env ?? {}).map(([k, v]) => `${k}=${v}`).join(' ')})` : ''}` +
			` ready in ${timings.ensureN8nSeconds.toFixed(1)} s; ` +
			`packages: ${'tarball' in pack ? path.basename(pack.tarball) : 'NOT AVAILABLE'}, ${'tarball' in queuePack ? path.basename(queuePack.tarball) : 'queue edition NOT AVAILABLE'}\n`,
	);
}
