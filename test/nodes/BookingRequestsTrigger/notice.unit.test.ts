/**
 * The trigger's notices name every selected event, and only those: for each selection of Events, the
 * editor (n8n-workflow's own displayParameter, as the node panel uses it) shows the notice every event
 * shares and one per selected event (composed: not one per combination of events).
 */
import { NodeHelpers, type INode, type INodeProperties } from 'n8n-workflow';

import { BookingRequestsTrigger } from '../../../nodes/BookingRequestsTrigger/BookingRequestsTrigger.node';
import { EVENT_KINDS } from '../../../nodes/BookingRequestsTrigger/events';

const description = new BookingRequestsTrigger().description;
const notices = description.properties.filter((property) => property.type === 'notice');
/** Every registered event (events/index.ts), by its value in the Events parameter: its name as the Events parameter lists it. */
const NAMES: Record<string, string> = Object.fromEntries(EVENT_KINDS.map((kind) => [kind.value, kind.words.name]));
const EVENTS = EVENT_KINDS.map((kind) => kind.value as string);

/** The notices the editor shows for these events, in a trigger of this version. */
function shown(events: string[], typeVersion = 1.1): INodeProperties[] {
	const node: INode = { id: 'n', name: 'Booking Requests Trigger', type: 'n8n-nodes-booking-requests.bookingRequestsTrigger', typeVersion, position: [0, 0], parameters: { events } };
	return notices.filter((notice) => NodeHelpers.displayParameter({ events }, notice, node, description));
}

const selections = Array.from({ length: 2 ** EVENTS.length }, (_, i) => EVENTS.filter((_event, bit) => i & (1 << bit)));

const SHARED = /^Checks for news at the interval under "Poll Times"\./;

test.each(selections.filter((events) => events.length > 0).map((events) => [events.map((event) => NAMES[event]).join(' + '), events] as const))(
	'%s: the shared notice and one per selected event, naming each selected event once and no other',
	(_label, events) => {
		for (const typeVersion of [1, 1.1]) {
			const visible = shown([...events], typeVersion);
			expect(visible).toHaveLength(1 + events.length);
			expect(visible.filter((notice) => SHARED.test(notice.displayName))).toHaveLength(1);
			for (const event of EVENTS) expect(visible.filter((notice) => notice.displayName.includes(`(${NAMES[event]})`))).toHaveLength(events.includes(event) ? 1 : 0);
			// the order of selection does not matter
			expect(shown([...events].reverse(), typeVersion)).toEqual(visible);
		}
	},
);

test('no event selected (while the user changes them): no notice', () => {
	expect(shown([])).toEqual([]);
});

test('New Request + Request Updated (the CRM recipe) names the changes too; the shared notice says when events start and what Fetch Test Event does', () => {
	expect(shown(['requestCreated', 'requestUpdated']).map((notice) => notice.displayName)).toEqual([
		expect.stringMatching(/^Checks for news at the interval under "Poll Times"\. Only what happens after you publish the workflow \(n8n 1\.x: activate\) is sent/),
		'Starts the workflow once for each new booking request (New Request).',
		'Starts the workflow once for each change to a booking request (Request Updated).',
	]);
	// one notice per event and the shared one: a fifth event adds one notice, not sixteen
	expect(notices).toHaveLength(EVENTS.length + 1);
	expect(notices.filter((notice) => /"Fetch Test Event" shows up to 3 recent examples of each event/.test(notice.displayName))).toHaveLength(1);
});
