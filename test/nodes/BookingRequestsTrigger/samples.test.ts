import { pickSamples } from '../../../nodes/BookingRequestsTrigger/samples';
import { MIN, T0, iso, makeRequest, makeSession, makeSettings } from '../../support/triggerWorld';

describe('samples for "Fetch Test Event"', () => {
	const now = T0 + 120 * MIN;
	const active = makeSession({ updated_at: iso(now - 5 * MIN) });
	const idle = makeSession({ updated_at: iso(now - 45 * MIN) });
	const completed = makeSession({ updated_at: iso(now - 50 * MIN), request_id: '11111111-1111-4111-8111-111111111111' });
	const request = makeRequest({ created_at: iso(now - MIN) });

	it('the newest matching item of each selected event, shaped like a real event', () => {
		const samples = pickSamples([active, idle, completed], [request], now, makeSettings());
		expect(samples.map((sample) => [sample.event, (sample.session ?? sample.request)!.id])).toEqual([
			['session.abandoned', idle.id],
			['session.completed', completed.id],
			['request.created', request.id],
		]);
		expect(samples[0].eventId).toBe(`session.abandoned:${idle.id}:${Date.parse(idle.updated_at!)}`);
		expect(samples[1].eventId).toBe(`session.completed:${completed.id}:${completed.request_id}`);
	});

	it('only the selected events; an open session stands in when none is idle yet; nothing when a list is empty', () => {
		const settings = makeSettings({ events: { sessionCompleted: false, requestCreated: false } });
		expect(pickSamples([active], [], now, settings).map((sample) => sample.session!.id)).toEqual([active.id]);
		expect(pickSamples([], [], now, makeSettings())).toEqual([]);
	});
});
