/**
 * Driving a real n8n: a fresh user folder, credential/workflow import, `n8n execute` with parsed
 * run data, and a small REST client for a running `n8n start` (owner set-up, credential test,
 * manual run of a workflow from a chosen trigger - the only way n8n runs a polling trigger once).
 *
 * n8n facts (2.x: seen on 2.40.7 and 2.41.1) this relies on:
 *  - `import:credentials --input=file.json`: an ARRAY of {id, name, type, data}; when `data` is an
 *    object (decrypted) n8n encrypts it with the user folder's key (.n8n/config). Credentials and
 *    workflows without --userId/--projectId go to the instance owner's personal project.
 *  - `import:workflow --input=file.json`: an array (or one object) of workflows; ids must be at
 *    most 16 chars (n8n 1.x rejects longer ids and then never saves static data).
 *  - `execute --id X --rawOutput`: starts only from a Manual Trigger (or Execute Workflow
 *    Trigger) node; prints `JSON.stringify(IRun, null, 2)` through the logger (so N8N_LOG_LEVEL
 *    must be info), mixed with other log lines on stdout. On failure it prints the same JSON after
 *    "Execution was NOT successful" and exits non-zero. parseExecuteOutput() cuts the JSON out.
 *  - A polling trigger runs its poll() once only in mode 'manual' (WorkflowExecute.executePollNode);
 *    the CLI runs in mode 'cli', where a poll node just passes input through. Manual mode is what
 *    the editor's "Fetch test event" uses: POST /rest/workflows/:id/run {triggerToStartFrom:{name}}.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { N8nInstall } from './install';
import type { RunResult } from './process';
import { runN8n } from './server';
import { parseExecuteOutput, type CredentialImport, type ExecutionResult, type WorkflowImport } from './workflows';


function assertOk(what: string, res: RunResult, mustContain?: RegExp): void {
	if (res.code !== 0 || (mustContain && !mustContain.test(res.stdout + res.stderr))) {
		throw new Error(`${what} failed (exit ${res.code ?? res.signal}):\n${(res.stdout + '\n' + res.stderr).trim().split('\n').slice(-30).join('\n')}`);
	}
}

export class N8nCli {
	constructor(
		readonly install: N8nInstall,
		readonly userFolder: string,
		readonly env: NodeJS.ProcessEnv = {},
	) {}

	run(args: string[], timeoutMs?: number): Promise<RunResult> {
		return runN8n(args, { userFolder: this.userFolder, env: this.env, install: this.install, timeoutMs });
	}

	private writeTemp(name: string, data: unknown): string {
		const dir = path.join(this.userFolder, 'imports');
		fs.mkdirSync(dir, { recursive: true });
		const file = path.join(dir, `${Date.now()}-${Math.random().toString(36).slice(2)}-${name}`);
		fs.writeFileSync(file, JSON.stringify(data, null, 2));
		return file;
	}

	async importCredentials(creds: CredentialImport[]): Promise<void> {
		const file = this.writeTemp('credentials.json', creds);
		assertOk('n8n import:credentials', await this.run(['import:credentials', `--input=${file}`]), /Successfully imported/);
	}

	async importWorkflows(workflows: WorkflowImport[]): Promise<void> {
		const file = this.writeTemp(
			'workflows.json',
			workflows.map((w) => ({ active: false, settings: {}, ...w })),
		);
		assertOk('n8n import:workflow', await this.run(['import:workflow', `--input=${file}`]), /Successfully imported/);
	}

	/** `n8n execute --id <id> --rawOutput`, parsed. Never throws on a failed execution. */
	async execute(workflowId: string, timeoutMs?: number): Promise<ExecutionResult> {
		const res = await this.run(['execute', `--id=${workflowId}`, '--rawOutput'], timeoutMs);
		return parseExecuteOutput(res);
	}
}

