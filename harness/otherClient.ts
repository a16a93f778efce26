/**
 * Another client on the same API key, without any coordination (the customer's dashboard, another
 * integration): a GET every `periodMs` from its own HTTP client, never retried. Its requests carry
 * `?other_client=1` so that the sandbox log tells them apart. Used by the shared-key tests and the bench.
 */
import axios from 'axios';

import type { RequestLogEntry, Sandbox } from '../sandbox';

export interface OtherClient {
	/** Its calls as it saw them (status 0: no answer). */
	sent: Array<{ at: number; status: number }>;
	stop(): void;
	/** Resolves `delayMs` after its next accepted call: the key has just been used by someone else. */
	afterNextAccepted(delayMs: number): Promise<void>;
}

export function isOtherClient(entry: RequestLogEntry): boolean {
	return entry.query.other_client === '1';
}

/** Its calls that reached the server between two arrival times (inclusive), and how many were accepted. */
export function otherClientCalls(log: RequestLogEntry[], from: number, to: number): { calls: number; accepted: number } {
	const mine = log.filter((entry) => isOtherClient(entry) && entry.at >= from && entry.at <= to);
	return { calls: mine.length, accepted: mine.filter((entry) => entry.status === 200).length };
}

export function startOtherClient(sandbox: Sandbox, key: string, periodMs = 2000): OtherClient {
	const sent: OtherClient['sent'] = [];
	let stopped = false;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const tick = () => {
		if (stopped) return;
		const at = Date.now();
		axios
			.get(`${sandbox.url}/api/v1/forms`, { headers: { Authorization: `Bearer ${key}` }, params: { other_client: 1 }, validateStatus: () => true, timeout: 10_000 })
			.then((response) => sent.push({ at, status: response.status }))
			.catch(() => sent.push({ at, status: 0 }));
		timer = setTimeout(tick, periodMs);
	};
	tick();
	return {
		sent,
		stop() {
			stopped = true;
			clearTimeout(timer);
		},
		async afterNextAccepted(delayMs) {
			const seen = sent.filter((call) => call.status === 200).length;
			while (sent.filter((call) => call.status === 200).length === seen) await new Promise((resolve) => setTimeout(resolve, 5));
			await new Promise((resolve) => setTimeout(resolve, delayMs));
		},
	};
}
