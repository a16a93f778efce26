/**
 * The two editions built from this source (gulpfile.js): the n8n Cloud edition in dist/ (the package
 * at the repository root) and the queue edition in editions/queue/ (adds the Redis-shared limiter).
 * Runs of the Redis-shared limiter use the queue edition: built (QUEUE_DIST) or from source
 * (`useQueueEdition()`, which makes the source registry use queue/edition.ts as the queue build does).
 */
import path from 'node:path';

import { setEditionForTests } from './limiterSettings';
import { EDITION as QUEUE_EDITION } from '../queue/edition';

export const ROOT = path.resolve(__dirname, '..');
export const CLOUD_DIST = path.join(ROOT, 'dist');
export const QUEUE_PACKAGE_DIR = path.join(ROOT, 'editions/queue');
export const QUEUE_DIST = path.join(QUEUE_PACKAGE_DIR, 'dist');

/** Source runs of this process use the queue edition's limiters (until `useBuiltEdition()`). */
export function useQueueEdition(): void {
	setEditionForTests(QUEUE_EDITION);
}

export function useBuiltEdition(): void {
	setEditionForTests();
}
