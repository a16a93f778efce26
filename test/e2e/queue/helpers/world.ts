/**
 * One queue-mode world per test file: a throw-away PostgreSQL cluster, a redis-server, the sandbox API
 * (in this process, real 1 request/s limit) and n8n 2.x (2.41.1) in queue mode (main + 2 workers,
 * `--concurrency 5`) with the packed package in every process's user folder. Credentials and
 * workflows are imported and published before main starts. Everything is stopped after the file, and
 * what a crashed earlier run left running is ended first (harness/services/leftovers.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { startSandbox, type Sandbox, type SandboxSizes } from '../../../../sandbox';
import { QueueModeN8n } from '../../../../harness/n8n/queueMode';
import type { CredentialImport, WorkflowImport } from '../../../../harness/n8n/workflows';
import { sweepLeftovers } from '../../../../harness/services/leftovers';
import { startPostgres, type PostgresServer } from '../../../../harness/services/postgres';
import { startQueueRedis, type QueueRedis } from '../../../../harness/services/redis';
import { loadState, scratch, type E2eState } from '../../helpers/state';

export interface QueueWorld {
	state: E2eState;
	sandbox: Sandbox;
	postgres: PostgresServer;
	redis: QueueRedis;
	n8n: QueueModeN8n;
	/** Figures of the file's scenarios, printed after the file (and written to the run's work dir). */
	report: Record<string, unknown>;
	log(message: string): void;
}

export interface QueueWorldSetup {
	name: string;
	sandbox: { sizes: SandboxSizes; seed?: number };
	credentials(world: QueueWorld): CredentialImport[];
	workflows(world: QueueWorld): WorkflowImport[];
	/** Workflows to activate (published before main starts). */
	publish: string[];
	/** Environment of every n8n process. */
	env?: NodeJS.ProcessEnv;
}

export function withQueueWorld(setup: QueueWorldSetup): QueueWorld {
	const t0 = Date.now();
	const world = {
		report: {},
		log: (message: string) => process.stderr.write(`[queue ${setup.name} +${((Date.now() - t0) / 1000).toFixed(1)} s] ${message}\n`),
	} as unknown as QueueWorld;

	beforeAll(async () => {
		const swept = sweepLeftovers();
		if (swept.length > 0) world.log(`ended what an earlier run left running: ${swept.join(', ')}`);
		world.state = loadState();
		if (!world.state.install.version.startsWith('2.')) throw new Error(`queue mode is tested with n8n 2.x (2.41.1), not ${world.state.install.version} (unset E2E_N8N_VERSION)`);
		// Queue mode runs the queue edition (the one with the Redis-shared limiter).
		const pack = world.state.queuePack;
		if (!('tarball' in pack)) throw new Error(`the queue edition could not be built/packed:\n${pack.error}`);

		world.postgres = await startPostgres();
		world.redis = await startQueueRedis();
		world.sandbox = await startSandbox({ port: 0, seed: setup.sandbox.seed ?? 42, sizes: setup.sandbox.sizes });
		world.log(`PostgreSQL ${world.postgres.version} on ${world.postgres.port}, Redis ${world.redis.version} on ${world.redis.port}, sandbox ${world.sandbox.url}`);

		world.n8n = await QueueModeN8n.prepare({
			install: world.state.install,
			tarball: pack.tarball,
			root: scratch(world.state, `queue-${setup.name}`),
			postgres: world.postgres,
			redis: world.redis,
			workers: 2,
			concurrency: 5,
			env: setup.env,
		});
		await world.n8n.cli.importCredentials(setup.credentials(world));
		await world.n8n.cli.importWorkflows(setup.workflows(world));
		await world.n8n.publish(setup.publish);
		world.log('imported and published; starting main and 2 workers');
		await world.n8n.start();
		world.log(`n8n main ${world.n8n.mainUrl}, workers ready`);
	});

	afterAll(async () => {
		// every step even if one fails: nothing may be left running
		const steps: Array<[string, () => Promise<void> | undefined]> = [
			['n8n', () => world.n8n?.stop()],
			['redis', () => world.redis?.stop()],
			['postgres', () => world.postgres?.stop()],
			['sandbox', () => world.sandbox?.close()],
		];
		const errors: string[] = [];
		for (const [what, step] of steps) {
			try {
				await step();
			} catch (error) {
				errors.push(`${what}: ${(error as Error).message}`);
			}
		}
		if (Object.keys(world.report).length > 0) {
			const text = JSON.stringify(world.report, null, 2);
			console.log(`Queue-mode figures (${setup.name}):\n${text}`);
			if (world.state) fs.writeFileSync(path.join(world.state.workDir, `queue-${setup.name}-figures.json`), text);
		}
		if (errors.length > 0) throw new Error(`stopping the queue-mode world failed: ${errors.join('; ')}`);
	});

	return world;
}

/** A credential/workflow id: at most 16 characters. */
export function shortId(prefix: string): string {
	return `${prefix}${'0'.repeat(16)}`.slice(0, 16);
}
