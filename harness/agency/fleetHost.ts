/**
 * The sandbox fleet's process (started by fleet.ts): one sandbox server per client — its own port,
 * seeded workspace and keys, the rate limit of each key — and the customer activity the bench asks
 * for, played at the sandbox clock. The sandbox holds one workspace per server (plus its "other"),
 * so a fleet of servers stands in for one API with a workspace per client; each client's Base URL
 * differs, which changes nothing the node keeps per key (its limiter is per Base URL and key).
 */
import { hashKey, sortRequests, startSandbox } from '../../sandbox';
import type { RequestLogEntry, Sandbox } from '../../sandbox';
import type { Activity, CallCount, FleetClient, FleetCommand, FleetReply, FleetRequest, Happened } from './protocol';

const sandboxes: Sandbox[] = [];

function play(sandbox: Sandbox, activity: Activity, earlier: Happened[]): Happened {
	switch (activity.op) {
		case 'draft': {
			const session = sandbox.startSession({ contact: { ...activity.contact } });
			return { op: 'draft', sessionId: session.id, at: Date.parse(session.updated_at as string), contact: activity.contact };
		}
		case 'complete': {
			const draft = 'ofActivity' in activity ? earlier[activity.ofActivity] : undefined;
			const id = 'sessionId' in activity ? activity.sessionId : draft?.op === 'draft' ? draft.sessionId : undefined;
			if (id === undefined) throw new Error('complete: no draft to complete');
			const { session, request } = sandbox.completeSession(id);
			return { op: 'complete', sessionId: session.id, requestId: request.id, at: Date.parse(request.created_at) };
		}
		case 'bookWithoutDraft': {
			const { session, request } = sandbox.bookWithoutDraft({ contact: { ...activity.contact } });
			return { op: 'bookWithoutDraft', sessionId: session.id, requestId: request.id, at: Date.parse(request.created_at), contact: activity.contact };
		}
		case 'request': {
			const request = sandbox.addRequest({ email: activity.contact.email, phone: activity.contact.phone });
			return { op: 'request', requestId: request.id, at: Date.parse(request.created_at), contact: activity.contact };
		}
		case 'changeRequest': {
			const list = sortRequests(sandbox.workspace().requests);
			const avoid = new Set(activity.avoid);
			let rank = activity.rank;
			while (rank < list.length && avoid.has(list[rank].id)) rank++;
			if (rank >= list.length) throw new Error(`no request to change at rank ${activity.rank} or below`);
			const changed = sandbox.updateRequest(list[rank].id, { lead_status: `bench-${rank}-${list[rank].id.slice(0, 4)}` });
			return { op: 'changeRequest', requestId: changed.id, at: Date.parse(changed.updated_at as string), rank };
		}
		case 'advance':
			sandbox.clock.advance(activity.ms);
			return { op: 'advance', at: sandbox.clock.now() };
	}
}

function countOf(entries: RequestLogEntry[]): CallCount {
	const count: CallCount = { sessionPages: 0, requestPages: 0, formPages: 0, requestIds: [], other: 0, rateLimited: 0, errors: 0 };
	for (const entry of entries) {
		if (entry.status === 429 && !entry.fault) count.rateLimited++;
		else if (entry.status >= 400 || entry.status === 0) count.errors++;
		else if (entry.path === '/api/v1/abandoned-sessions') count.sessionPages++;
		else if (entry.path === '/api/v1/requests') count.requestPages++;
		else if (entry.path === '/api/v1/forms') count.formPages++;
		else if (entry.path.startsWith('/api/v1/requests/')) count.requestIds.push(decodeURIComponent(entry.path.slice('/api/v1/requests/'.length)));
		else count.other++;
	}
	return count;
}

/** The calls of each key of a client since the last count (the log is cleared). */
function calls(sandbox: Sandbox): { key: CallCount; second: CallCount } {
	const log = [...sandbox.log];
	sandbox.clearLog();
	const of = (key: string) => countOf(log.filter((entry) => entry.keyHash === hashKey(key)));
	return { key: of(sandbox.keys.demo), second: of(sandbox.keys.second) };
}

async function run(command: FleetCommand): Promise<unknown> {
	switch (command.op) {
		case 'start': {
			for (const spec of command.specs) {
				sandboxes.push(await startSandbox({ seed: spec.seed, sizes: spec.sizes, minGapMs: command.options.minGapMs, quiet: true, ...(command.options.commitLagMs !== undefined ? { choices: { commitLagMs: command.options.commitLagMs } } : {}) }));
			}
			return sandboxes.map((sandbox): FleetClient => ({ url: sandbox.url, key: sandbox.keys.demo, secondKey: sandbox.keys.second }));
		}
		case 'play': {
			const happened: Happened[] = [];
			for (const activity of command.activity) happened.push(play(sandboxes[command.client], activity, happened));
			return happened;
		}
		case 'advance':
			for (const sandbox of sandboxes) sandbox.clock.advance(command.ms);
			return sandboxes[0]?.clock.now();
		case 'now':
			return sandboxes[0]?.clock.now();
		case 'cpu': {
			const usage = process.cpuUsage();
			return usage.user + usage.system;
		}
		case 'calls':
			return command.clients.map((client) => calls(sandboxes[client]));
		case 'sizes': {
			const ws = sandboxes[command.client].workspace();
			return { requests: ws.requests.length, sessions: ws.sessions.length };
		}
		case 'close':
			await Promise.all(sandboxes.map(async (sandbox) => await sandbox.close()));
			setImmediate(() => process.exit(0));
			return null;
	}
}

process.on('message', (message: FleetRequest) => {
	run(message.command).then(
		(result) => process.send?.({ id: message.id, result } satisfies FleetReply),
		(error: unknown) => process.send?.({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies FleetReply),
	);
});
process.on('disconnect', () => process.exit(0));
