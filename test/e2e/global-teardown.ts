/** Removes the run's scratch dir (user folders, tarballs) unless E2E_KEEP=1. */
import * as fs from 'node:fs';
import { envOverride } from '../../harness/env';
import { STATE_ENV, type E2eState } from './helpers/state';

export default async function globalTeardown(): Promise<void> {
	const file = envOverride(STATE_ENV);
	if (!file || !fs.existsSync(file)) return;
	const state = JSON.parse(fs.readFileSync(file, 'utf8')) as E2eState;
	if (envOverride('E2E_KEEP') === '1') {
		process.stderr.write(`[e2e] kept ${state.workDir}\n`);
		return;
	}
	fs.rmSync(state.workDir, { recursive: true, force: true });
}
