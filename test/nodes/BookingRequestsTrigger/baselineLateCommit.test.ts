/**
 * A completion made right after the trigger's first (baseline) poll and committed late: stamped before
 * that poll read page 1, visible after it (queue e2e 5b creates its round A so, and the sandbox's
 * default stamps each write up to 2 s before it becomes visible). The first poll reads page 1 on down
 * to EDGE_WINDOW_MS below its read and remembers those rows, so the next poll reports the late ones.
 * Over loopback HTTP to the sandbox, the node in n8n-core's real PollContext.
 */
import type { IDataObject } from 'n8n-workflow';

import { createHarness } from '../../../harness/inProcessN8n';
import type { PollState } from '../../../harness/inProcessN8n';
import { startSandbox } from '../../../sandbox';
import type { Sandbox } from '../../../sandbox';

jest.setTimeout(120_000);

let sandbox: Sandbox;
afterEach(async () => await sandbox?.close());

test('bookings completed within 2 s after the baseline poll, each committed 1.5 to 2 s late: every session.completed and request.created once', async () => {
	// The upper part of the default's range (0 to 2 s), so that every write of the round is stamped
	// before the baseline read page 1 (with the default's draws only some are).
	sandbox = await startSandbox({ minGapMs: 200, choices: { commitLagMs: [1_500, 2_000] } });
	const harness = createHarness({ apiKey: sandbox.keys.demo, baseUrl: sandbox.url });
	const parameters = { events: ['sessionAbandoned', 'sessionCompleted', 'requestCreated'], abandonedAfterMinutes: 30, simplify: false };
	const state: PollState = { staticData: {} };
	expect(await harness.poll(parameters, state, 'trigger', { typeVersion: 1.1 })).toBeNull();
	// Round A, right after the baseline poll (the sandbox's clock has not moved).
	const expected: string[] = [];
	for (let i = 0; i < 5; i++) {
		const { session, request } = sandbox.completeSession(sandbox.startSession({ contact: { email: `round-a-${i}@example.com`, phone: `+1512555010${i}` } }).id);
		expected.push(`session.completed:${session.id}:${request.id}`, `request.created:${request.id}`);
	}
	sandbox.clock.advance(60_000);
	const result = await harness.poll(parameters, state, 'trigger', { typeVersion: 1.1 });
	const ids = (result?.[0] ?? []).map((item) => String((item.json as IDataObject).event_id));
	expect([...ids].sort()).toEqual([...expected].sort());
	sandbox.clock.advance(60_000);
	expect(await harness.poll(parameters, state, 'trigger', { typeVersion: 1.1 })).toBeNull();
});
