// Sandbox.deleteRequest: a request a session names can be gone (Get request then answers 404, as the
// contract says for an id that does not exist). The contract has no delete; the sandbox does it so
// that tests can reach the 404 path of Include Booking Request.

import { startSandbox, type Sandbox } from '../../sandbox/index';
import { api, pageAll } from './helpers';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false, sizes: { requests: 150, sessions: 100 } });
});
afterAll(() => sb.close());

describe('deleteRequest', () => {
	it("removes the request from its workspace: Get request 404 not_found, the list no longer holds it, the session keeps its request_id", async () => {
		const session = sb.workspace().sessions.find((s) => s.request_id !== null)!;
		const id = session.request_id as string;
		expect((await api(sb, `/api/v1/requests/${id}`)).status).toBe(200);
		const before = await pageAll(sb, '/api/v1/requests', 100);

		const deleted = sb.deleteRequest(id);
		expect(deleted.id).toBe(id);

		const get = await api(sb, `/api/v1/requests/${id}`);
		expect(get.status).toBe(404);
		expect(get.data.error).toBe('not_found');
		const after = await pageAll<{ id: string }>(sb, '/api/v1/requests', 100);
		expect(after.items.map((r) => r.id)).toEqual(before.items.map((r) => (r as { id: string }).id).filter((other) => other !== id));
		expect(after.totals[0]).toBe(before.totals[0] - 1);
		expect(sb.workspace().sessions.find((s) => s.id === session.id)?.request_id).toBe(id);
	});

	it('an unknown id, or one deleted already, is an error', () => {
		const id = sb.workspace().requests[0].id;
		sb.deleteRequest(id);
		expect(() => sb.deleteRequest(id)).toThrow(/unknown request/);
		expect(() => sb.deleteRequest('00000000-0000-4000-8000-000000000000')).toThrow(/unknown request/);
	});

	it("another workspace's request is deleted from that workspace only", async () => {
		const other = sb.workspace(sb.keys.other).requests[0];
		const demoCount = sb.workspace().requests.length;
		sb.deleteRequest(other.id);
		expect(sb.workspace(sb.keys.other).requests.some((r) => r.id === other.id)).toBe(false);
		expect(sb.workspace().requests).toHaveLength(demoCount);
		expect((await api(sb, `/api/v1/requests/${other.id}`, { key: sb.keys.other })).status).toBe(404);
	});
});
