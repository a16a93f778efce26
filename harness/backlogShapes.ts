/**
 * The backlog shapes, written once and played on the in-memory model (triggerWorld.ts), on
 * the sandbox over HTTP (costs.node.test.ts) and in the bench (bench/triggerRows.ts `shape`): what
 * happened while the trigger was not polling, the events every shape must emit once, and the pages a
 * drain must read ("pages the rules need", below). All three events, Skip Customers Who Booked on.
 *
 * Pages the rules need: every page of the request list once, every page of the session list once, and
 * the session pages holding drafts once more when their Session Abandoned comes a delay after the
 * completions on the same pages (events go out oldest first and the state keeps no session's contents,
 * so a draft is read again when its event time is reached). A poll reads page 1 of each list every time
 * (new rows arrive there); those reads are counted as calls, not as pages.
 */

/** A customer nobody else shares (Skip Customers Who Booked must not link two of them). */
export interface ShapeCustomer {
	email: string;
	/** As both the draft and the request hold it. */
	phone: string;
}

/** What a shape can do to the world it plays on. */
export interface BacklogWorld {
	advance(ms: number): void;
	/** A customer leaves a draft (the contact step done): its session id. */
	draft(customer: ShapeCustomer): string;
	/** The draft's customer books: a booking request, and the session gets its request_id. */
	book(sessionId: string): void;
	/** A booking request without a draft. */
	direct(customer: ShapeCustomer): void;
}

export interface BacklogShape {
	name: 'bench' | 'completed' | 'retarget' | 'idleDrafts';
	label: string;
	abandonedAfterMinutes: number;
	/** Plays what happened while the trigger was not polling (after its first, baseline poll). */
	build(world: BacklogWorld): void;
	events: { abandoned: number; completed: number; created: number };
	/** Pages the rules need: the request list, the session list, and session pages read again (see above). */
	pages: { requests: number; sessions: number; again: number };
}

const MIN = 60_000;
let customers = 0;
/** A unique customer (e-mail and a phone number nobody else has). */
export function shapeCustomer(): ShapeCustomer {
	customers++;
	return { email: `shape-${customers}@example.com`, phone: `+1512${String(customers % 10_000_000).padStart(7, '0')}` };
}

export const SHAPES: BacklogShape[] = [
	{
		name: 'bench',
		label: 'bench backlog: 3 h down, 4,800 drafts (1 in 3 books), 4,800 direct requests',
		abandonedAfterMinutes: 30,
		build(world) {
			for (let i = 0; i < 4800; i++) {
				world.advance(Math.floor((3 * 60 * MIN) / 4800));
				const session = world.draft(shapeCustomer());
				if (i % 3 === 0) world.book(session);
				world.direct(shapeCustomer());
			}
			world.advance(31 * MIN);
		},
		events: { abandoned: 3200, completed: 1600, created: 6400 },
		// every session page holds drafts, judged a delay after the completions beside them
		pages: { requests: 64, sessions: 48, again: 48 },
	},
	{
		name: 'completed',
		label: 'queue 5c shape: 4,000 bookings through drafts, Abandoned After 1 minute',
		abandonedAfterMinutes: 1,
		build(world) {
			for (let i = 0; i < 4000; i++) {
				world.advance(200);
				world.book(world.draft(shapeCustomer()));
			}
			world.advance(2 * MIN);
		},
		events: { abandoned: 0, completed: 4000, created: 4000 },
		pages: { requests: 40, sessions: 40, again: 0 },
	},
	{
		name: 'retarget',
		label: 'retargeting backlog: 600 drafts, then 3,000 bookings; 300 of the drafts’ customers book through a new session',
		abandonedAfterMinutes: 1,
		build(world) {
			world.advance(5_000);
			const comeBack: ShapeCustomer[] = [];
			for (let i = 0; i < 600; i++) {
				world.advance(3);
				const customer = shapeCustomer();
				world.draft(customer);
				if (i % 2 === 0) comeBack.push(customer);
			}
			for (let i = 0; i < 3000; i++) {
				world.advance(3);
				world.book(world.draft(shapeCustomer()));
				if (i % 10 === 9) {
					world.advance(3);
					world.book(world.draft(comeBack[(i - 9) / 10]));
				}
			}
			world.advance(2 * MIN);
		},
		events: { abandoned: 300, completed: 3300, created: 3300 },
		// 3,900 sessions; the 600 drafts lie at the bottom, on 6 pages (read again a delay later)
		pages: { requests: 33, sessions: 39, again: 6 },
	},
	{
		name: 'idleDrafts',
		label: 'drafts idle below completed bookings: 1,000 drafts, then 2,000 bookings through drafts, activated 45 minutes later',
		abandonedAfterMinutes: 30,
		build(world) {
			world.advance(5_000);
			for (let i = 0; i < 1000; i++) {
				world.advance(300);
				world.draft(shapeCustomer());
			}
			for (let i = 0; i < 2000; i++) {
				world.advance(300);
				const session = world.draft(shapeCustomer());
				world.advance(300);
				world.book(session);
			}
			world.advance(45 * MIN);
		},
		events: { abandoned: 1000, completed: 2000, created: 2000 },
		// 3,000 sessions: the 1,000 drafts on the bottom 10 pages are read again for their abandonments
		pages: { requests: 20, sessions: 30, again: 10 },
	},
];

export const totalEvents = (shape: BacklogShape): number => shape.events.abandoned + shape.events.completed + shape.events.created;
export const pagesNeeded = (shape: BacklogShape): number => shape.pages.requests + shape.pages.sessions + shape.pages.again;

/** The bound: calls per page the rules need, over the drain (the quiet poll after it not counted). */
export const MAX_CALLS_PER_PAGE = 1.2;

/** The per-poll table printed by the test and the bench. */
export function drainTable(drain: { polls: Array<{ calls: number; events: number; reads: string[] }> }): string {
	return drain.polls.map((poll, i) => `  poll ${i + 1}: ${poll.calls} calls, ${poll.events} events: ${poll.reads.join(' ')}`).join('\n');
}
