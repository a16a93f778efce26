// What a new user meets in the sandbox in their first hour with the demo (issue 40, "the first
// hour"): the control routes make what docs/sandbox.md says, and nothing more.

import { startSandbox, type BookingRequest, type Sandbox } from '../../sandbox/index';
import { control } from './helpers';

let sb: Sandbox;
beforeAll(async () => {
	sb = await startSandbox({ rateLimit: false, recent: true });
});
afterAll(() => sb.close());

describe('POST /__sandbox/requests', () => {
	const ada = { first_name: 'Ada', last_name: 'Moss', email: 'ada@example.com' };

	it('a pending or cancelled request has no completed_at (Request Updated would show a completion in `previous`)', async () => {
		for (const status of ['pending', 'cancelled']) {
			const res = await control(sb, 'POST', '/__sandbox/requests', { ...ada, status });
			expect(res.status).toBe(200);
			expect(res.data).toMatchObject({ ...ada, status, completed_at: null });
		}
	});

	it('a request without a status is a fresh submission: complete, with its completion', async () => {
		const res = await control(sb, 'POST', '/__sandbox/requests', ada);
		const request = res.data as BookingRequest;
		expect(request.status).toBe('complete');
		expect(Date.parse(request.completed_at as string)).toBeGreaterThanOrEqual(Date.parse(request.created_at as string));
	});

	it('a completion the caller gives is kept, whatever the status', async () => {
		const completedAt = '2026-03-01T10:00:00.000Z';
		const res = await control(sb, 'POST', '/__sandbox/requests', { ...ada, status: 'pending', completed_at: completedAt });
		expect(res.data).toMatchObject({ status: 'pending', completed_at: completedAt });
	});
});
