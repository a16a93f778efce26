/**
 * The agency bench's traffic plan (harness/agency/traffic.ts): each round's activity, the steps a
 * draft needs a round later, and the requests never changed twice (what the oracle relies on).
 */
import type { Happened } from '../../harness/agency/protocol';
import { ClientTraffic, contactOf } from '../../harness/agency/traffic';

const MIX = { left: 2, completeNext: 1, bookElsewhereNext: 1, placeholders: 1, direct: 1, changes: 2 };

/** What the sandbox would answer: ids in order, each draft with its contact. */
function answer(activity: ReturnType<ClientTraffic['activity']>, round: number): Happened[] {
	return activity.map((entry, i): Happened => {
		const id = `${round}-${i}`;
		switch (entry.op) {
			case 'draft':
				return { op: 'draft', sessionId: `s${id}`, at: i, contact: entry.contact };
			case 'complete':
				return { op: 'complete', sessionId: 'sessionId' in entry ? entry.sessionId : '?', requestId: `r${id}`, at: i };
			case 'bookWithoutDraft':
				return { op: 'bookWithoutDraft', sessionId: `s${id}`, requestId: `r${id}`, at: i, contact: entry.contact };
			case 'request':
				return { op: 'request', requestId: `r${id}`, at: i, contact: entry.contact };
			case 'changeRequest':
				return { op: 'changeRequest', requestId: `old${entry.rank}`, at: i, rank: entry.rank };
			default:
				return { op: 'advance', at: i };
		}
	});
}

test('a round: new customers only, and the drafts that need a step next round', () => {
	const traffic = new ClientTraffic('t', MIX, 500);
	const first = traffic.activity(1, false);
	const ops = first.map((entry) => entry.op);
	expect(ops.filter((op) => op === 'draft')).toHaveLength(4);
	expect(ops.filter((op) => op === 'changeRequest')).toHaveLength(2);
	const contacts = first.flatMap((entry) => ('contact' in entry ? [entry.contact.email] : []));
	expect(new Set(contacts).size).toBe(contacts.length);
	for (const entry of first) if (entry.op === 'changeRequest') expect(entry.rank).toBeLessThan(250);

	const happened = answer(first, 1);
	traffic.played(happened, false);
	const second = traffic.activity(2, false);
	// the third draft completes, the fourth's customer books without a draft
	expect(second[0]).toEqual({ op: 'complete', sessionId: 's1-2' });
	expect(second[1]).toEqual({ op: 'bookWithoutDraft', contact: (happened[3] as Extract<Happened, { op: 'draft' }>).contact });
	// requests made or changed during the run are never changed (again)
	const changes = second.filter((entry) => entry.op === 'changeRequest');
	const touched = happened.flatMap((entry) => ('requestId' in entry ? [entry.requestId] : []));
	expect(touched).toEqual(['r1-4', 'r1-5', 'old169', 'old44']);
	expect(changes).toHaveLength(2);
	for (const change of changes) expect(change.op === 'changeRequest' && [...change.avoid].sort()).toEqual([...touched].sort());
});

test('the last round starts no draft that needs a later step', () => {
	const traffic = new ClientTraffic('t', MIX, 500);
	traffic.played(answer(traffic.activity(1, false), 1), false);
	const last = traffic.activity(2, true);
	expect(last.filter((entry) => entry.op === 'draft')).toHaveLength(MIX.left);
	expect(last.filter((entry) => entry.op === 'complete')).toHaveLength(1);
	traffic.played(answer(last, 2), true);
	expect(traffic.activity(3, true).filter((entry) => entry.op === 'complete' || entry.op === 'bookWithoutDraft')).toHaveLength(MIX.placeholders);
});

test('contacts: unique per tag and number, phones in international form', () => {
	expect(contactOf('a', 1)).toEqual({ email: 'ca-1@agency.example', phone: '+12000000001' });
	expect(contactOf('a', 2).phone).not.toBe(contactOf('a', 1).phone);
});
