/**
 * A new API key for a published trigger, in n8n's real PollContext against the
 * sandbox over loopback. Before: a new key changed the state's fingerprint, so the trigger started
 * afresh — the requests created while the old key was revoked never arrived, and customers reminded
 * under a cooldown were reminded again. Now: a key that can read a request the state knows (Get
 * request: 200) continues the state; a key of another workspace (404) starts afresh from now.
 */
import { createHash } from 'node:crypto';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { keyIdOf } from '../../../nodes/shared/transport/keyId';

import { createHarness } from '../../../harness/inProcessN8n';
import { hashKey, startSandbox } from '../../../sandbox';
import type { Sandbox } from '../../../sandbox';
import { TriggerRun } from './trigger';
import { captureN8nLog, type N8nLogCapture } from '../../support/n8nLog';
import { pacing429s } from '../../support/pacing429';

jest.setTimeout(120_000);

const MIN = 60_000;
const PARAMETERS: INodeParameters = {
	events: ['sessionAbandoned', 'requestCreated'],
	abandonedAfterMinutes: 30,
	skipIfBooked: true,
	options: { customerCooldownDays: 7 },
};

let sandbox: Sandbox;
let n8nLog: N8nLogCapture;
beforeEach(async () => {
	sandbox = await startSandbox({ sizes: { forms: 2, requests: 20, sessions: 10 } });
	n8nLog = captureN8nLog();
});
afterEach(async () => {
	n8nLog.restore();
	expect(pacing429s(sandbox.log, hashKey(sandbox.keys.demo))).toEqual([]);
	await sandbox.close();
});

/** What the trigger tells n8n's log when it starts afresh after a key change. */
const afresh = () => n8nLog.messages('info').filter((message) => message.includes('the API key changed'));

/** The same trigger (its static data) polling with another key. */
function withKey(run: TriggerRun | undefined, apiKey: string): TriggerRun {
	const next = new TriggerRun(createHarness({ apiKey, baseUrl: sandbox.url }), sandbox, PARAMETERS);
	if (run) next.state = run.state;
	return next;
}

const ofEvent = (items: IDataObject[] | null, event: string) => (items ?? []).filter((item) => item.event === event);
const contact = (i: number) => ({ firstname: `Bo${i}`, lastname: 'Rotation', email: `bo${i}@example.com`, phone: `+1512555${String(i).padStart(4, '0')}` });

describe('a new API key', () => {
	test('of the same workspace continues: what was created while the old key was revoked arrives once, and the cooldown still holds', async () => {
		let run = withKey(undefined, sandbox.keys.demo);
		await run.poll(); // published: the first poll remembers where things stand
		const bo = sandbox.startSession({ contact: contact(1) });
		sandbox.saveSession(bo.id, { step: 'address', data: { ...bo.data } });
		sandbox.clock.advance(31 * MIN);
		expect(ofEvent((await run.poll()).items, 'session.abandoned').map((item) => item.id)).toEqual([bo.id]);

		// The key leaks and is revoked: polls fail with 401 and change nothing.
		sandbox.revokeKey(sandbox.keys.demo);
		const gap = Array.from({ length: 5 }, () => sandbox.addRequest({}).id);
		const again = sandbox.startSession({ contact: contact(1) }); // Bo leaves a second draft
		sandbox.saveSession(again.id, { step: 'address', data: { ...again.data } });
		sandbox.clock.advance(31 * MIN);
		await expect(run.poll()).rejects.toThrow(/401|rejected/i);
		const stateWhileRevoked = JSON.stringify(run.state.staticData);
		await expect(run.poll()).rejects.toThrow(/401|rejected/i);
		expect(JSON.stringify(run.state.staticData)).toBe(stateWhileRevoked);

		// A new key of the same workspace is pasted into the credential.
		run = withKey(run, sandbox.keys.second);
		const poll = await run.poll();
		expect(ofEvent(poll.items, 'request.created').map((item) => item.id).sort()).toEqual([...gap].sort());
		// Bo was reminded an hour ago: the 7-day cooldown still holds after the rotation.
		expect(ofEvent(poll.items, 'session.abandoned')).toEqual([]);
		// One Get request told that the new key reads the same workspace.
		expect(poll.byPath['/api/v1/requests/{id}']).toBe(1);
		expect((await run.poll()).items).toBeNull();
		expect(afresh()).toEqual([]);
	});

	test('of another workspace starts afresh from now: nothing of its history, nothing of the first workspace again', async () => {
		let run = withKey(undefined, sandbox.keys.demo);
		await run.poll();
		sandbox.addRequest({});
		await run.poll();
		const before = JSON.stringify(run.state.staticData);
		expect(before).not.toContain(sandbox.keys.demo);

		run = withKey(run, sandbox.keys.other);
		const first = await run.poll();
		expect(first.items).toBeNull(); // its existing requests are history
		expect(first.calls).toBeGreaterThan(1); // the Get request that answered 404, then the first reads
		expect(afresh()).toEqual(['Booking Requests Trigger: the API key changed and belongs to another workspace; starting afresh from now.']);
		const created = sandbox.addRequest({ key: sandbox.keys.other });
		const next = await run.poll();
		expect(ofEvent(next.items, 'request.created').map((item) => item.id)).toEqual([created.id]);
	});

	test('the state names the key only by its key id, and a state written before this version is continued by its own key', async () => {
		const run = withKey(undefined, sandbox.keys.demo);
		await run.poll();
		const stored = run.stored!;
		expect(stored.key).toMatch(/^[A-Za-z0-9_-]{6,32}$/);
		expect(JSON.stringify(run.state.staticData)).not.toContain(sandbox.keys.demo);
		expect(typeof stored.ref).toBe('string');

		// As 0.1 wrote it: the fingerprint covered the key id, and no `key` field.
		const legacy = createHash('sha256')
			.update(JSON.stringify([['sessionAbandoned', 'requestCreated'], '', sandbox.url, keyIdOf(sandbox.keys.demo)]))
			.digest('hex')
			.slice(0, 16);
		const node = run.state.staticData['node:Booking Requests Trigger'] as IDataObject;
		const { key: _key, ...older } = node.bookingRequestsTrigger as IDataObject;
		node.bookingRequestsTrigger = { ...older, fp: legacy };
		const created = sandbox.addRequest({});
		expect(ofEvent((await run.poll()).items, 'request.created').map((item) => item.id)).toEqual([created.id]);
		expect(run.stored!.key).toBe(stored.key);
	});
});
