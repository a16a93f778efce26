/**
 * A discrete-event simulation of the pacing policy (nodes/shared/transport/limiter/pacing.ts and
 * retryRule.ts) against a strict server, on a fake clock: no timers, runs in milliseconds.
 *
 * - The server accepts a request when it arrives at least `minGapMs` after the last accepted one
 *   (rejected requests do not move the window), like the sandbox.
 * - A paced client makes `calls` calls one after the other (a Return All); each attempt is sent at the
 *   policy's earliest send time, arrives `e` ms later (n8n's helper + the way there) and is answered
 *   `q` ms after arriving; a 429 is retried per the retry rule (Retry-After: 1 s).
 * - Clients in the same `group` share one KeyState and one turn (the Redis shared limiter: one request
 *   in flight for the group, FIFO); clients in different groups know nothing of each other.
 * - A neighbour sends on its own schedule (every `periodMs`) and never retries: another application
 *   using the key without any coordination.
 */
import {
	INITIAL_KEY_STATE,
	PACING,
	afterAnswer,
	earliestSendAt,
	roundTripLowerBound,
	type KeyState,
	type PacingPolicy,
	type RoundTrips,
	type Verdict,
} from '../../nodes/shared/transport/limiter/pacing';
import { RETRY_RULES, retryDecision, type RetryRules } from '../../nodes/shared/transport/limiter/retryRule';
import { mulberry32 } from '../../sandbox/seed';

export type Rng = () => number;

/** A small seeded generator (the sandbox's mulberry32), so every simulation is reproducible. */
export function seeded(seed: number): Rng {
	return mulberry32(seed);
}

export const uniform = (rng: Rng, min: number, max: number): number => min + rng() * (max - min);

/** Pre-arrival delay `e` and post-arrival delay `q` of one attempt (attempt = 0-based over the client's life). */
export type Delays = (attempt: number, rng: Rng) => { e: number; q: number };

/**
 * The sandbox's latency model (all of it before the rate check), with n8n's helper as measured in
 * process on this machine: e = 3–7 ms + latency (+75–90 ms on a process's first call), q = 2–7 ms.
 */
export function sandboxDelays(latency: (attempt: number, rng: Rng) => number, firstCallExtra: [number, number] = [75, 90]): Delays {
	return (attempt, rng) => ({
		e: uniform(rng, 3, 7) + latency(attempt, rng) + (attempt === 0 ? uniform(rng, firstCallExtra[0], firstCallExtra[1]) : 0),
		q: uniform(rng, 2, 7),
	});
}

/** A real network: the round trip split in two halves that vary independently (the harder case for a lower bound). */
export function splitDelays(oneWay: (rng: Rng) => number): Delays {
	return (attempt, rng) => ({
		e: uniform(rng, 3, 7) + oneWay(rng) + (attempt === 0 ? uniform(rng, 75, 90) : 0),
		q: oneWay(rng) + uniform(rng, 2, 7),
	});
}

export interface ClientSpec {
	name: string;
	calls: number;
	delays: Delays;
	/** Clients of one group share a KeyState and a turn (Redis mode). Default: its own name. */
	group?: string;
	startAt?: number;
	/** Process-level state carried in (a warm limiter); default none. */
	samples?: RoundTrips;
}

export interface NeighbourSpec {
	name: string;
	periodMs: number;
	startAt: number;
	stopAt: number;
	/** Uniform jitter added to each send, ms. */
	jitterMs?: number;
	/** Its own network delay to the server. */
	delayMs?: number;
}

export interface Arrival {
	at: number;
	who: string;
	accepted: boolean;
	sentAt?: number;
}

export interface ClientResult {
	name: string;
	attempts: number;
	accepted: number;
	rateLimited: number;
	verdicts: Verdict[];
	firstArrival: number;
	lastArrival: number;
	doneAt: number;
	failed?: string;
	/** (last arrival − first arrival) / (calls − 1): the bench's seconds per page, in ms. */
	msPerCall: number;
	/** Gaps between this client's consecutive accepted arrivals. */
	gaps: number[];
}

export interface NeighbourResult {
	name: string;
	sent: number;
	accepted: number;
}

export interface Simulation {
	arrivals: Arrival[];
	clients: Record<string, ClientResult>;
	neighbours: Record<string, NeighbourResult>;
	/** Group key states at the end. */
	groups: Record<string, KeyState>;
	/** Server-side minimum gap between accepted arrivals (any sender). */
	minAcceptedGap: number;
}

export interface SimulationOptions {
	clients: ClientSpec[];
	neighbours?: NeighbourSpec[];
	seed?: number;
	minGapMs?: number;
	policy?: PacingPolicy;
	rules?: RetryRules;
	/** Safety stop of the simulation, ms of simulated time. */
	until?: number;
}

interface Event {
	at: number;
	seq: number;
	run: () => void;
}

/** A binary heap of events by time, then by scheduling order. */
class EventQueue {
	private readonly heap: Event[] = [];

	private before(a: Event, b: Event): boolean {
		return a.at < b.at || (a.at === b.at && a.seq < b.seq);
	}

	push(event: Event): void {
		const heap = this.heap;
		heap.push(event);
		for (let i = heap.length - 1; i > 0; ) {
			const parent = (i - 1) >> 1;
			if (!this.before(heap[i], heap[parent])) break;
			[heap[i], heap[parent]] = [heap[parent], heap[i]];
			i = parent;
		}
	}

	pop(): Event | undefined {
		const heap = this.heap;
		const top = heap[0];
		const last = heap.pop();
		if (heap.length > 0 && last) {
			heap[0] = last;
			for (let i = 0; ; ) {
				const left = 2 * i + 1;
				const right = left + 1;
				let best = i;
				if (left < heap.length && this.before(heap[left], heap[best])) best = left;
				if (right < heap.length && this.before(heap[right], heap[best])) best = right;
				if (best === i) break;
				[heap[i], heap[best]] = [heap[best], heap[i]];
				i = best;
			}
		}
		return top;
	}
}

export function simulate(options: SimulationOptions): Simulation {
	const rng = seeded(options.seed ?? 1);
	const minGap = options.minGapMs ?? 1000;
	const policy = options.policy ?? { ...PACING, minGapMs: minGap };
	const rules = options.rules ?? RETRY_RULES;
	const until = options.until ?? 3_600_000;
	const events = new EventQueue();
	let seq = 0;
	const at = (time: number, run: () => void) => {
		events.push({ at: time, seq: seq++, run });
	};

	// The server.
	const arrivals: Arrival[] = [];
	let lastAccepted: number | undefined;
	const arrive = (time: number, who: string, sentAt?: number): boolean => {
		const accepted = lastAccepted === undefined || time - lastAccepted >= minGap;
		if (accepted) lastAccepted = time;
		arrivals.push({ at: time, who, accepted, sentAt });
		return accepted;
	};

	// Groups (shared key state + turn).
	interface Client {
		spec: ClientSpec;
		samples: RoundTrips;
		attempt: number;
		done: number;
		callStartedAt: number;
		serverFailures: number;
		result: ClientResult;
	}
	interface Group {
		key: KeyState;
		busy: boolean;
		queue: Client[];
	}
	const groups = new Map<string, Group>();
	const groupOf = (client: Client): Group => {
		const name = client.spec.group ?? client.spec.name;
		let group = groups.get(name);
		if (!group) {
			group = { key: { ...INITIAL_KEY_STATE }, busy: false, queue: [] };
			groups.set(name, group);
		}
		return group;
	};

	const tryStart = (group: Group, now: number) => {
		if (group.busy || group.queue.length === 0) return;
		const client = group.queue.shift() as Client;
		group.busy = true;
		const lowerBound = roundTripLowerBound(client.samples, now, policy);
		const sendAt = Math.max(now, earliestSendAt(group.key, lowerBound, rng(), policy));
		at(sendAt, () => send(client, group, sendAt));
	};

	const ready = (client: Client, now: number) => {
		const group = groupOf(client);
		group.queue.push(client);
		tryStart(group, now);
	};

	const send = (client: Client, group: Group, sentAt: number) => {
		const { e, q } = client.spec.delays(client.attempt++, rng);
		client.result.attempts++;
		const arrival = sentAt + e;
		at(arrival, () => {
			const accepted = arrive(arrival, client.spec.name, sentAt);
			if (client.result.firstArrival < 0) client.result.firstArrival = arrival;
			client.result.lastArrival = arrival;
			const answeredAt = arrival + q;
			at(answeredAt, () => answer(client, group, sentAt, answeredAt, accepted));
		});
	};

	const answer = (client: Client, group: Group, sentAt: number, answeredAt: number, accepted: boolean) => {
		const next = afterAnswer(group.key, client.samples, { kind: accepted ? 'accepted' : 'rateLimited', sentAt, answeredAt, retryAfterMs: 1000 }, policy);
		group.key = next.key;
		client.samples = next.samples;
		if (next.verdict) client.result.verdicts.push(next.verdict);
		group.busy = false;
		if (accepted) {
			client.result.accepted++;
			client.done++;
			if (client.done >= client.spec.calls) client.result.doneAt = answeredAt;
			else {
				client.callStartedAt = answeredAt;
				ready(client, answeredAt);
			}
		} else {
			client.result.rateLimited++;
			const decision = retryDecision(
				{ kind: 'rateLimited' },
				{ now: answeredAt, callStartedAt: client.callStartedAt, keyLastAcceptedAt: group.key.lastAcceptedAt, serverFailures: client.serverFailures },
				rules,
			);
			if (decision.retry) {
				const waitMs = decision.waitMs;
				if (waitMs > 0) at(answeredAt + waitMs, () => ready(client, answeredAt + waitMs));
				else ready(client, answeredAt);
			} else {
				client.result.failed = decision.reason;
				client.result.doneAt = answeredAt;
			}
		}
		tryStart(group, answeredAt);
	};

	const clients: Client[] = options.clients.map((spec) => ({
		spec,
		samples: spec.samples ?? [],
		attempt: 0,
		done: 0,
		callStartedAt: spec.startAt ?? 0,
		serverFailures: 0,
		result: {
			name: spec.name,
			attempts: 0,
			accepted: 0,
			rateLimited: 0,
			verdicts: [],
			firstArrival: -1,
			lastArrival: -1,
			doneAt: -1,
			msPerCall: NaN,
			gaps: [],
		},
	}));
	for (const client of clients) at(client.spec.startAt ?? 0, () => ready(client, client.spec.startAt ?? 0));

	// Neighbours send on their schedule for as long as a client is still working (or until they stop).
	const working = () => clients.some((client) => client.result.doneAt < 0);
	const neighbours = (options.neighbours ?? []).map((spec) => ({ spec, result: { name: spec.name, sent: 0, accepted: 0 } }));
	for (const { spec, result } of neighbours) {
		const schedule = (t: number) => {
			if (t >= spec.stopAt) return;
			const arrival = t + (spec.jitterMs ? rng() * spec.jitterMs : 0) + (spec.delayMs ?? 0);
			at(arrival, () => {
				result.sent++;
				if (arrive(arrival, spec.name)) result.accepted++;
				if (working()) schedule(t + spec.periodMs);
			});
		};
		schedule(spec.startAt);
	}

	for (let event = events.pop(); event && event.at <= until; event = events.pop()) event.run();

	const acceptedAll = arrivals.filter((arrival) => arrival.accepted);
	let minAcceptedGap = Infinity;
	for (let i = 1; i < acceptedAll.length; i++) minAcceptedGap = Math.min(minAcceptedGap, acceptedAll[i].at - acceptedAll[i - 1].at);

	const clientResults: Record<string, ClientResult> = {};
	for (const client of clients) {
		const r = client.result;
		r.msPerCall = client.spec.calls > 1 ? (r.lastArrival - r.firstArrival) / (client.spec.calls - 1) : NaN;
		const mine = acceptedAll.filter((arrival) => arrival.who === client.spec.name);
		r.gaps = mine.slice(1).map((arrival, i) => arrival.at - mine[i].at);
		clientResults[client.spec.name] = r;
	}
	return {
		arrivals,
		clients: clientResults,
		neighbours: Object.fromEntries(neighbours.map(({ result }) => [result.name, result])),
		groups: Object.fromEntries([...groups].map(([name, group]) => [name, group.key])),
		minAcceptedGap,
	};
}

export const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;
