/**
 * A fleet of sandbox servers, one per client, in a child process (fleetHost.ts): the API side of an
 * agency's clients, outside the process whose CPU the bench measures. Customer activity is played
 * there and its answers come back as the history the oracle judges.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

import type { Activity, CallCount, FleetClient, FleetCommand, FleetOptions, FleetReply, FleetSpec, Happened } from './protocol';

const ROOT = path.resolve(__dirname, '..', '..');

export class SandboxFleet {
	private nextId = 1;
	private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

	private constructor(
		private readonly child: ChildProcess,
		readonly clients: FleetClient[],
	) {}

	/** Starts the fleet's process and one sandbox per spec (seeding large workspaces takes seconds). */
	static async start(specs: FleetSpec[], options: FleetOptions = {}): Promise<SandboxFleet> {
		const child = spawn(process.execPath, [path.join(ROOT, 'scripts/ts-run.js'), path.join(__dirname, 'fleetHost.ts')], {
			cwd: ROOT,
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		});
		const fleet = new SandboxFleet(child, []);
		child.on('message', (reply: FleetReply) => fleet.settle(reply));
		child.on('exit', (code) => {
			for (const pending of fleet.waiting.values()) pending.reject(new Error(`sandbox fleet exited (${code})`));
			fleet.waiting.clear();
		});
		const clients = (await fleet.send({ op: 'start', specs, options })) as FleetClient[];
		fleet.clients.push(...clients);
		return fleet;
	}

	/** Plays customer activity in one client's workspace, in order; what the sandbox answered. */
	async play(client: number, activity: Activity[]): Promise<Happened[]> {
		return (await this.send({ op: 'play', client, activity })) as Happened[];
	}

	/** Moves every sandbox's clock; the clock's time after it (ms). */
	async advance(ms: number): Promise<number> {
		return (await this.send({ op: 'advance', ms })) as number;
	}

	/** The sandbox clock (ms). */
	async now(): Promise<number> {
		return (await this.send({ op: 'now' })) as number;
	}

	/** The fleet process's CPU so far (microseconds): the API side's cost of what happened between two reads. */
	async cpu(): Promise<number> {
		return (await this.send({ op: 'cpu' })) as number;
	}

	/** Calls each key of these clients made since the last count. */
	async calls(clients: number[]): Promise<Array<{ key: CallCount; second: CallCount }>> {
		return (await this.send({ op: 'calls', clients })) as Array<{ key: CallCount; second: CallCount }>;
	}

	async sizes(client: number): Promise<{ requests: number; sessions: number }> {
		return (await this.send({ op: 'sizes', client })) as { requests: number; sessions: number };
	}

	async close(): Promise<void> {
		if (this.child.exitCode !== null || !this.child.connected) return;
		const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
		await this.send({ op: 'close' }).catch(() => undefined);
		await exited;
	}

	private async send(command: FleetCommand): Promise<unknown> {
		const id = this.nextId++;
		return await new Promise((resolve, reject) => {
			this.waiting.set(id, { resolve, reject });
			this.child.send({ id, command });
		});
	}

	private settle(reply: FleetReply): void {
		const pending = this.waiting.get(reply.id);
		if (!pending) return;
		this.waiting.delete(reply.id);
		if (reply.error !== undefined) pending.reject(new Error(`sandbox fleet: ${reply.error}`));
		else pending.resolve(reply.result);
	}
}
