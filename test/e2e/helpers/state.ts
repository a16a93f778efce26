/**
 * State handed from the e2e global setup to the test files (a JSON file whose path is in
 * BOOKING_E2E_STATE): the cached n8n install, a scratch dir, and the packed project tarball (or
 * why packing failed, so the package's tests fail with that reason while the runtime tests run).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { envOverride } from '../../../harness/env';
import type { N8nInstall } from '../../../harness/n8n/install';

export interface E2eState {
	install: N8nInstall;
	workDir: string;
	repoDir: string;
	/** The n8n Cloud edition: the package at the repository root. */
	pack: { tarball: string; name: string; version: string } | { error: string };
	/** The queue edition (editions/queue, built by the same `npm run build`): what the queue-mode suite installs. */
	queuePack: { tarball: string; name: string; version: string } | { error: string };
	timings: Record<string, number>;
}

export const STATE_ENV = 'BOOKING_E2E_STATE';

export function loadState(): E2eState {
	const file = envOverride(STATE_ENV);
	if (!file || !fs.existsSync(file)) {
		throw new Error(`${STATE_ENV} is not set: run the e2e suite with  npm run test:e2e (or JEST_PROJECTS=e2e npx jest --runInBand <file>)`);
	}
	return JSON.parse(fs.readFileSync(file, 'utf8')) as E2eState;
}

/** A fresh scratch directory below the run's workDir. */
export function scratch(state: E2eState, name: string): string {
	const dir = fs.mkdtempSync(path.join(state.workDir, `${name}-`));
	return dir;
}
