/**
 * The agency bench's CPU meter (harness/agency/cpuMeter.ts): work done in one account's continuations
 * is charged to that account while another account's task waits, and every microsecond of the
 * process's CPU between start and stop is in an account or unattributed. Compares CPU amounts of a
 * fixed work (hashing) against waiting; no duration is asserted.
 */
import { createHash } from 'node:crypto';

import { account, CpuMeter } from '../../harness/agency/cpuMeter';

const tick = async () => await new Promise((resolve) => setTimeout(resolve, 1));

function hashAway(times: number): string {
	let digest = 'seed';
	for (let i = 0; i < times; i++) digest = createHash('sha256').update(digest).digest('hex');
	return digest;
}

test('each account is charged its own work, across awaits, while the others wait', async () => {
	const meter = new CpuMeter();
	const busy = account('busy');
	const waiting = account('waiting');
	meter.start();
	await Promise.all([
		meter.charge(busy, async () => {
			for (let i = 0; i < 5; i++) {
				await tick();
				hashAway(20_000);
			}
		}),
		meter.charge(waiting, async () => {
			for (let i = 0; i < 5; i++) await tick();
		}),
	]);
	const total = meter.stop();
	// The hashing is charged to the account that did it: a meter that charged it to the account current
	// when a timer fired would give `waiting` the larger share. (No tighter ratio: what the waiting
	// account's timers and a GC between them cost depends on the machine's load.)
	expect(busy.micros).toBeGreaterThan(waiting.micros);
	expect(busy.micros + waiting.micros + meter.unattributed).toBe(total);
});
