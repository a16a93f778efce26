/**
 * Days of booking activity played on the sandbox, oldest first, up to the sandbox clock's now: for
 * the bench's Include Booking Request rows and the funnel report's end-to-end test. Customers start
 * drafts at an even pace over `days`, on the forms in turn, with a marketing source in turn (or none);
 * a share completes theirs minutes later (the request is created then), a share books without a
 * draft (a placeholder session), and staff enter requests that have no session. Before it, `history`
 * requests from before the widget (no session). The same options give the same shape.
 */
import type { Sandbox, Session } from '../sandbox';

export interface BookingActivityOptions {
	/** Drafts started (placeholder sessions are counted in). */
	sessions: number;
	/** Days the activity spans, ending at the sandbox clock's now (default 30). */
	days?: number;
	/** Share of the sessions that complete a draft (default 0.25). */
	completed?: number;
	/** Share of the sessions that are placeholders: bookings without a draft (default 0.05). */
	placeholders?: number;
	/** Requests without a session, as a share of the sessions (default 0.1). */
	direct?: number;
	/** Requests from before the activity, without a session (default 0). */
	history?: number;
	/** `utm_source` of the drafts, in turn; null: no attribution (default google, facebook, newsletter, none). */
	utmSources?: Array<string | null>;
}

export interface BookingActivity {
	/** The sessions made, in the order they started. */
	sessions: Session[];
	/** Ids of the sessions that completed (drafts and placeholders). */
	completed: Set<string>;
}

const MINUTE = 60_000;

/** Spreads `share` of `n` slots evenly: whether slot `i` is one of them. */
const spread = (i: number, n: number, share: number): boolean => Math.floor((i + 1) * share) > Math.floor(i * share) && i < n;

export function playBookingActivity(sandbox: Sandbox, options: BookingActivityOptions): BookingActivity {
	const days = options.days ?? 30;
	const completedShare = options.completed ?? 0.25;
	const placeholderShare = options.placeholders ?? 0.05;
	const directShare = options.direct ?? 0.1;
	const sources = options.utmSources ?? ['google', 'facebook', 'newsletter', null];
	const forms = sandbox.workspace().forms;
	const end = sandbox.clock.now();
	const start = end - days * 24 * 60 * MINUTE;
	const pace = (end - start) / Math.max(1, options.sessions);

	type Event = { at: number; run: () => void };
	const events: Event[] = [];
	const sessions: Session[] = [];
	const completed = new Set<string>();
	for (let i = 0; i < (options.history ?? 0); i++) {
		const at = start - (i + 1) * 37 * MINUTE;
		events.push({ at, run: () => void sandbox.addRequest({ created_at: new Date(at).toISOString() }) });
	}
	for (let i = 0; i < options.sessions; i++) {
		const at = start + i * pace;
		const formId = forms[i % forms.length].id;
		if (spread(i, options.sessions, placeholderShare)) {
			events.push({
				at,
				run: () => {
					const { session } = sandbox.bookWithoutDraft({ formId });
					sessions.push(session);
					completed.add(session.id);
				},
			});
			continue;
		}
		const source = sources[i % sources.length];
		const completes = spread(i, options.sessions, completedShare / (1 - placeholderShare));
		const after = (2 + ((i * 7) % 43)) * MINUTE;
		let session: Session | undefined;
		events.push({
			at,
			run: () => {
				session = sandbox.startSession({ formId, attribution: source === null ? null : { utm_source: source, utm_medium: source === 'google' ? 'cpc' : 'social' } });
				sessions.push(session);
			},
		});
		if (completes && at + after < end) {
			events.push({
				at: at + after,
				run: () => {
					sandbox.completeSession((session as Session).id);
					completed.add((session as Session).id);
				},
			});
		} else {
			events.push({ at: at + after / 2, run: () => void sandbox.saveSession((session as Session).id) });
		}
	}
	for (let i = 0; i < Math.round(options.sessions * directShare); i++) {
		events.push({ at: start + (i + 0.5) * (pace / directShare), run: () => void sandbox.addRequest({ form_id: forms[i % forms.length].id }) });
	}
	events.sort((a, b) => a.at - b.at);
	// the clock is moved to each event's time, then back to where it was
	let moved = 0;
	try {
		for (const event of events) {
			const step = event.at - sandbox.clock.now();
			sandbox.clock.advance(step);
			moved += step;
			event.run();
		}
	} finally {
		sandbox.clock.advance(-moved);
	}
	return { sessions, completed };
}
