/**
 * The editions (harness/editions.ts) in a test file: `withQueueEdition()` runs its tests on the queue
 * edition's limiters and restores the built (Cloud) one after.
 */
import { useBuiltEdition, useQueueEdition } from '../../harness/editions';

export { CLOUD_DIST, QUEUE_DIST, QUEUE_PACKAGE_DIR, ROOT, useBuiltEdition, useQueueEdition } from '../../harness/editions';

/** In a describe block or test file: the queue edition for its tests, the built (Cloud) one after. */
export function withQueueEdition(): void {
	beforeAll(useQueueEdition);
	afterAll(useBuiltEdition);
}
