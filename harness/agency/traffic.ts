/**
 * What an agency's clients' customers do between two polls: the activity of each round, planned per
 * client (pure; played in the client's sandbox by the fleet). Every customer is new and unique
 * (e-mail and phone) unless a rule needs the same one again, and every change is made once, so that
 * what must fire is unambiguous (oracle.ts):
 * - drafts left (Session Abandoned, 30 minutes later);
 * - drafts completed a round later (Session Completed and New Request, no abandonment);
 * - drafts whose customer books without a draft a round later (Skip Customers Who Booked: no
 *   Session Abandoned; the booking is Session Completed and New Request);
 * - bookings without a draft, requests without a session (New Request);
 * - a lead status changed on one of the newest requests, in the newer half of the watched range
 *   (Request Updated), never on a request made during the run.
 * Drafts that need a later step are started in every traffic round but the last.
 */
import type { Activity, Contact, Happened } from './protocol';

/** A customer nobody else in the workspace shares: `tag` keeps runs and clients apart. */
export function contactOf(tag: string, n: number): Contact {
	return { email: `c${tag}-${n}@agency.example`, phone: `+1${2_000_000_000 + n}` };
}

export interface RoundMix {
	/** Drafts left for good. */
	left: number;
	/** Drafts completed in the next round. */
	completeNext: number;
	/** Drafts whose customer books without a draft in the next round. */
	bookElsewhereNext: number;
	/** Bookings without a draft by new customers. */
	placeholders: number;
	/** Requests without a session. */
	direct: number;
	/** Lead status changes on requests of the newer half of the watched range. */
	changes: number;
}

export class ClientTraffic {
	private customers = 0;
	private toComplete: string[] = [];
	private toBookElsewhere: Contact[] = [];
	/** Requests changed or made during the run: never changed (again). */
	private readonly untouchable = new Set<string>();

	constructor(
		private readonly tag: string,
		private readonly mix: RoundMix,
		/** Watch the Newest of the client's trigger: changes land in its newer half. */
		private readonly watchNewest: number,
	) {}

	/** The activity before poll round `round` (1-based); `last`: no draft that needs a later step. */
	activity(round: number, last: boolean): Activity[] {
		const out: Activity[] = [];
		for (const sessionId of this.toComplete) out.push({ op: 'complete', sessionId });
		for (const contact of this.toBookElsewhere) out.push({ op: 'bookWithoutDraft', contact });
		this.toComplete = [];
		this.toBookElsewhere = [];
		const next = () => contactOf(this.tag, ++this.customers);
		for (let i = 0; i < this.mix.left; i++) out.push({ op: 'draft', contact: next() });
		if (!last) {
			for (let i = 0; i < this.mix.completeNext + this.mix.bookElsewhereNext; i++) out.push({ op: 'draft', contact: next() });
		}
		for (let i = 0; i < this.mix.placeholders; i++) out.push({ op: 'bookWithoutDraft', contact: next() });
		for (let i = 0; i < this.mix.direct; i++) out.push({ op: 'request', contact: next() });
		const span = Math.max(1, Math.floor(this.watchNewest / 2));
		for (let i = 0; i < this.mix.changes; i++) {
			// spread over the newer half, a different place every round
			const rank = (round * 7919 + i * Math.floor(span / Math.max(1, this.mix.changes))) % span;
			out.push({ op: 'changeRequest', rank, avoid: [...this.untouchable] });
		}
		return out;
	}

	/** What the sandbox answered to `activity(round, last)`: the drafts that need a later step, the requests not to change. */
	played(happened: Happened[], last: boolean): void {
		const drafts = happened.filter((entry) => entry.op === 'draft').map((entry) => entry as Extract<Happened, { op: 'draft' }>);
		if (!last) {
			const later = drafts.slice(this.mix.left);
			this.toComplete = later.slice(0, this.mix.completeNext).map((draft) => draft.sessionId);
			this.toBookElsewhere = later.slice(this.mix.completeNext).map((draft) => draft.contact);
		}
		for (const entry of happened) {
			if ('requestId' in entry) this.untouchable.add(entry.requestId);
		}
	}
}
