import { createHarness } from '../../harness/inProcessN8n';
import type { Harness } from '../../harness/inProcessN8n';
import type { Sandbox, SandboxOptions } from '../../sandbox';
import { startSandbox } from '../../sandbox';

/**
 * The set-up most suites share: one sandbox per file, a harness with the demo key, and before each
 * test no faults, an empty request log and the demo credentials again.
 */
export function withSandbox(options: SandboxOptions, use: (sandbox: Sandbox, harness: Harness) => void): void {
	let sandbox: Sandbox;
	let harness: Harness;
	beforeAll(async () => {
		sandbox = await startSandbox(options);
		harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
		use(sandbox, harness);
	});
	afterAll(async () => await sandbox.close());
	beforeEach(() => {
		sandbox.setFaults({});
		sandbox.clearLog();
		harness.credentials = { apiKey: sandbox.keys.demo, baseUrl: sandbox.url };
	});
}
