/**
 * n8n in queue mode: one main (`n8n start`: editor, REST, webhooks, schedules and poll triggers) and N
 * workers (`n8n worker --concurrency=C`: they run the executions), sharing a PostgreSQL database and a
 * Redis (n8n's Bull queue), as a production install runs it.
 *
 * Each process has its own user folder with the packed package installed the way n8n installs a
 * community package (`.n8n/nodes/node_modules/<package>`, ./communityPackage.ts): every process that
 * runs a node of the package needs it — main for the trigger's polls, the "Test" of a credential and
 * list look-ups, workers for the executions. They share one N8N_ENCRYPTION_KEY (credentials are
 * encrypted in the shared database), and each has its own ports: main its HTTP port, every worker its
 * health check port (QUEUE_HEALTH_CHECK_*), every process its task runner broker port (./server.ts
 * picks a free one). Every process runs in its own process group: stop() ends the group with SIGTERM,
 * kill() with SIGKILL (`kill -9`, as a crash); both are recorded for the next run's sweep
 * (../services/leftovers.ts).
 *
 * n8n 2.x facts this relies on (seen on 2.40.7 and 2.41.1; see /work/shared/n8n-notes.md and n8n's own code):
 *  - CLI commands (import, publish) run the database migrations themselves; `import:workflow` ignores
 *    `active`, `publish:workflow --id=X` (one id per call) activates before `n8n start`.
 *  - A worker logs `Worker started execution <id> (job <n>)`; `execution_entity` does not record the
 *    worker, so where an execution ran is read from the workers' logs (workerOf()).
 *  - Bull is set up with `maxStalledCount: 0`: a job whose worker died is failed once its lock
 *    (QUEUE_WORKER_LOCK_DURATION, 60 s) expired and a live worker ran its stalled-job check
 *    (QUEUE_WORKER_STALLED_INTERVAL, 30 s). Main, which waits for the job, then records the execution
 *    as `error` ("This execution failed to be processed too many times…", MaxStalledCountError).
 *    Executions no main waits for (main restarted) are marked `crashed` by main's queue recovery (at
 *    start, then every N8N_EXECUTIONS_QUEUE_RECOVERY_INTERVAL minutes, 180).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { PostgresServer } from '../services/postgres';
import { recordLeftover } from '../services/leftovers';
import type { QueueRedis } from '../services/redis';
import { N8nCli } from './cli';
import { installTarball } from './communityPackage';
import type { N8nInstall } from './install';
import { freePort } from './process';
import { N8nRest } from './rest';
import { startN8n, type N8nServer } from './server';

export interface QueueModeOptions {
	install: N8nInstall;
	/** The packed package (`npm pack` output), installed into every process's user folder. */
	tarball: string;
	/** Parent directory of the user folders. */
	root: string;
	postgres: PostgresServer;
	redis: QueueRedis;
	workers?: number;
	concurrency?: number;
	/** Extra environment of every process (main, workers and CLI calls). */
	env?: NodeJS.ProcessEnv;
}

/** A running n8n process of the cluster, with the output of its earlier lives (after a kill and restart). */
export interface QueueProcess {
	role: 'main' | 'worker';
	index: number;
	userFolder: string;
	server?: N8nServer;
	/** Output of the earlier, ended processes in this slot, then the running one's. */
	output(): string;
}

const WORKER_STARTED = /Worker started execution (\d+) \(job (\d+)\)/g;

export class QueueModeN8n {
	readonly main: QueueProcess;
	readonly workers: QueueProcess[];
	readonly cli: N8nCli;
	/** The environment every process shares (database, queue, encryption key, quiet and offline). */
	readonly env: NodeJS.ProcessEnv;
	readonly concurrency: number;
	private mainPort = 0;
	private readonly pastOutput = new Map<QueueProcess, string>();
	private readonly forget = new Map<QueueProcess, () => void>();

	private constructor(private readonly opts: QueueModeOptions) {
		this.concurrency = opts.concurrency ?? 5;
		this.env = {
			...opts.postgres.n8nEnv(),
			...opts.redis.n8nEnv(),
			EXECUTIONS_MODE: 'queue',
			N8N_ENCRYPTION_KEY: `queue-e2e-${path.basename(opts.root)}`,
			N8N_DISABLED_MODULES: 'mcp-registry',
			...opts.env,
		};
		const slot = (role: 'main' | 'worker', index: number): QueueProcess => {
			const userFolder = path.join(opts.root, role === 'main' ? 'main' : `worker-${index + 1}`);
			const proc: QueueProcess = {
				role,
				index,
				userFolder,
				output: () => (this.pastOutput.get(proc) ?? '') + (proc.server?.output() ?? ''),
			};
			return proc;
		};
		this.main = slot('main', 0);
		this.workers = Array.from({ length: opts.workers ?? 2 }, (_, i) => slot('worker', i));
		this.cli = new N8nCli(opts.install, this.main.userFolder, this.env);
	}

	/** User folders with the package installed; nothing is started. */
	static async prepare(opts: QueueModeOptions): Promise<QueueModeN8n> {
		const cluster = new QueueModeN8n(opts);
		for (const proc of [cluster.main, ...cluster.workers]) {
			fs.mkdirSync(proc.userFolder, { recursive: true });
			await installTarball(proc.userFolder, opts.tarball);
		}
		return cluster;
	}

	get mainUrl(): string {
		if (!this.main.server) throw new Error('n8n main is not running');
		return this.main.server.url;
	}

	/** `n8n publish:workflow --id=X` for each id, in parallel (before main starts: main activates them at start). */
	async publish(workflowIds: string[]): Promise<void> {
		await Promise.all(
			workflowIds.map(async (id) => {
				const res = await this.cli.run(['publish:workflow', `--id=${id}`]);
				if (res.code !== 0) throw new Error(`n8n publish:workflow --id=${id} failed:\n${(res.stdout + res.stderr).slice(-3000)}`);
			}),
		);
	}

	/** Main (first: it registers the webhooks and triggers), then the workers in parallel. */
	async start(env: NodeJS.ProcessEnv = {}): Promise<void> {
		await this.startMain(env);
		await Promise.all(this.workers.map(async (worker) => await this.startWorker(worker.index, env)));
	}

	async startMain(env: NodeJS.ProcessEnv = {}): Promise<N8nServer> {
		// the same port after a restart: webhook URLs and REST clients stay valid
		this.mainPort ||= await freePort();
		return await this.launch(this.main, {
			port: this.mainPort,
			env: { ...this.env, ...env },
		});
	}

	async startWorker(index: number, env: NodeJS.ProcessEnv = {}): Promise<N8nServer> {
		const worker = this.workers[index];
		const healthPort = await freePort();
		return await this.launch(worker, {
			port: healthPort,
			command: ['worker', `--concurrency=${this.concurrency}`],
			readyPaths: ['/healthz', '/healthz/readiness'],
			env: {
				...this.env,
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				...env,
			},
		});
	}

	private async launch(
		proc: QueueProcess,
		options: { port: number; env: NodeJS.ProcessEnv; command?: string[]; readyPaths?: string[] },
	): Promise<N8nServer> {
		if (proc.server) throw new Error(`${proc.role} ${proc.index + 1} is already running`);
		const server = await startN8n({ userFolder: proc.userFolder, install: this.opts.install, ...options });
		proc.server = server;
		this.forget.set(
			proc,
			recordLeftover({ kind: `n8n ${proc.role}`, pid: server.pid, group: true, cmdlineIncludes: 'n8n', removeDirs: [] }),
		);
		return server;
	}

	private retire(proc: QueueProcess): void {
		if (!proc.server) return;
		this.pastOutput.set(proc, proc.output());
		proc.server = undefined;
		this.forget.get(proc)?.();
		this.forget.delete(proc);
	}

	/** `kill -9` of the process group (a crash: no shutdown, no job hand-back). */
	async kill(proc: QueueProcess): Promise<void> {
		await proc.server?.kill();
		this.retire(proc);
	}

	/** Graceful stop (SIGTERM, n8n's shutdown; SIGKILL after 15 s). */
	async stopProcess(proc: QueueProcess): Promise<void> {
		await proc.server?.stop();
		this.retire(proc);
	}

	/** Stops every process: workers first (they finish or hand back their jobs), then main. */
	async stop(): Promise<void> {
		await Promise.all(this.workers.map(async (worker) => await this.stopProcess(worker)));
		await this.stopProcess(this.main);
	}

	/** A REST client logged in as the owner (created on first use). */
	async rest(): Promise<N8nRest> {
		const rest = new N8nRest(this.mainUrl, this.opts.install);
		await rest.setupOwner();
		return rest;
	}

	/** Execution id -> index of the worker that started it (from the workers' logs, all their lives). */
	executionsByWorker(): Map<string, number> {
		const byExecution = new Map<string, number>();
		for (const worker of this.workers) {
			for (const match of worker.output().matchAll(WORKER_STARTED)) byExecution.set(match[1], worker.index);
		}
		return byExecution;
	}

	/** The worker that started an execution, or undefined (not started by any worker). */
	workerOf(executionId: string): number | undefined {
		return this.executionsByWorker().get(String(executionId));
	}

}
