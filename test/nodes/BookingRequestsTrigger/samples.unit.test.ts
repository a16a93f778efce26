import { pickSamples } from '../../../nodes/BookingRequestsTrigger/events';
import { SAMPLES_PER_EVENT } from '../../../nodes/BookingRequestsTrigger/output/samples';
import { MIN, T0, iso, makeRequest, makeSession, makeSettings } from '../../support/triggerWorld';

describe('samples for "Fetch Test Event"', () => {
	const now = T0 + 120 * MIN;
	const noContact = { data: { zip: '78701' } };
	const nameOnly = { data: { contact: { firstname: 'Nomail', phone: '+15550000001' } } };

	it('up to 3 per selected event, shaped like real events', () => {
		const active = makeSession({ updated_at: iso(now - 5 * MIN) });
		const idle = makeSession({ updated_at: iso(now - 45 * MIN) });
		const completed = makeSession({ updated_at: iso(now - 50 * MIN), request_id: '11111111-1111-4111-8111-111111111111' });
		const request = makeRequest({ created_at: iso(now - MIN) });
		const samples = pickSamples([active, idle, completed], [request], now, makeSettings());
		expect(samples.map((sample) => [sample.event, (sample.session ?? sample.request)!.id])).toEqual([
			['session.abandoned', idle.id],
			['session.abandoned', active.id],
			['session.completed', completed.id],
			['request.created', request.id],
		]);
		expect(samples[0].eventId).toBe(`session.abandoned:${idle.id}:${Date.parse(idle.updated_at!)}`);
		expect(samples[2].eventId).toBe(`session.completed:${completed.id}:${completed.request_id}`);
	});

	it('abandoned: those with an e-mail first, then idle before still active, then the newest', () => {
		const sessions = [
			makeSession({ ...noContact, updated_at: iso(now - 40 * MIN) }),
			makeSession({ ...nameOnly, updated_at: iso(now - 41 * MIN) }),
			makeSession({ updated_at: iso(now - 2 * MIN) }), // e-mail, still active
			makeSession({ updated_at: iso(now - 50 * MIN) }), // e-mail, idle
			makeSession({ updated_at: iso(now - 60 * MIN) }), // e-mail, idle, older
		];
		const ids = pickSamples(sessions, [], now, makeSettings({ events: { sessionCompleted: false, requestCreated: false } })).map((s) => s.session!.id);
		expect(ids).toEqual([sessions[3].id, sessions[4].id, sessions[2].id]);
	});

	it('completed: drafts with contact details before bookings made without a saved draft', () => {
		const placeholder = makeSession({ data: {}, step: 'confirm', request_id: '22222222-2222-4222-8222-222222222222', updated_at: iso(now - MIN) });
		const drafted = makeSession({ request_id: '33333333-3333-4333-8333-333333333333', updated_at: iso(now - 9 * MIN) });
		const ids = pickSamples([placeholder, drafted], [], now, makeSettings({ events: { sessionAbandoned: false, requestCreated: false } })).map(
			(s) => s.session!.id,
		);
		expect(ids).toEqual([drafted.id, placeholder.id]);
	});

	it(`at most ${SAMPLES_PER_EVENT} per event; requests newest first as listed`, () => {
		const requests = Array.from({ length: 5 }, (_, i) => makeRequest({ created_at: iso(now - i * MIN) }));
		const samples = pickSamples([], requests, now, makeSettings());
		expect(samples.map((s) => s.request!.id)).toEqual(requests.slice(0, SAMPLES_PER_EVENT).map((r) => r.id));
	});

	it('only the selected events; an open session stands in when none is idle yet; nothing when a list is empty', () => {
		const active = makeSession({ updated_at: iso(now - 5 * MIN) });
		const settings = makeSettings({ events: { sessionCompleted: false, requestCreated: false } });
		expect(pickSamples([active], [], now, settings).map((sample) => sample.session!.id)).toEqual([active.id]);
		expect(pickSamples([], [], now, makeSettings())).toEqual([]);
	});
});
