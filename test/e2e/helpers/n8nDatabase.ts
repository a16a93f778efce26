/**
 * n8n's own SQLite database (`<user folder>/.n8n/database.sqlite`, what `n8nEnv()` configures), read
 * and written from outside n8n as an operator restoring a backup would. It goes through n8n's own
 * sqlite3 driver on n8n's own Node (the driver is compiled for that Node), so the e2e tier needs
 * nothing beyond the n8n install; n8n 2.x keeps the database in WAL mode, so a second connection may
 * write while n8n runs (a busy timeout waits out n8n's own writes).
 */
import * as path from 'node:path';

import type { N8nInstall } from '../../../harness/n8n/install';
import { run } from '../../../harness/n8n/process';

/** Runs one statement in a child process: `all` prints the rows, `run` the number of rows it changed. */
const SCRIPT = `
const sqlite3 = require('node:module').createRequire(process.env.N8N_BIN)('sqlite3');
const db = new sqlite3.Database(process.env.DB_FILE, sqlite3.OPEN_READWRITE);
db.configure('busyTimeout', 15000);
const params = JSON.parse(process.env.SQL_PARAMS);
const done = (error, result) => {
	if (error) {
		process.stderr.write(error.message);
		process.exitCode = 1;
	} else process.stdout.write(JSON.stringify(result));
	db.close();
};
if (process.env.SQL_MODE === 'all') db.all(process.env.SQL, params, (error, rows) => done(error, rows));
else db.run(process.env.SQL, params, function (error) { done(error, error ? undefined : this.changes); });
`;

export class N8nDatabase {
	readonly file: string;

	constructor(
		private readonly install: N8nInstall,
		userFolder: string,
	) {
		this.file = path.join(userFolder, '.n8n', 'database.sqlite');
	}

	private async statement(mode: 'all' | 'run', sql: string, params: unknown[]): Promise<unknown> {
		const res = await run(this.install.node.nodeBin, ['-e', SCRIPT], {
			env: { PATH: process.env.PATH, N8N_BIN: this.install.n8nBin, DB_FILE: this.file, SQL: sql, SQL_PARAMS: JSON.stringify(params), SQL_MODE: mode },
			timeoutMs: 60_000,
		});
		if (res.code !== 0) throw new Error(`sqlite ${sql} failed (exit ${res.code ?? res.signal}): ${res.stderr.trim()}`);
		return JSON.parse(res.stdout) as unknown;
	}

	/** The rows of a query. */
	async rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
		return (await this.statement('all', sql, params)) as T[];
	}

	/** Runs a write; resolves with the number of rows it changed. */
	async write(sql: string, params: unknown[] = []): Promise<number> {
		return (await this.statement('run', sql, params)) as number;
	}

	/** A workflow's static data exactly as n8n stored it (its JSON text), or null. */
	async staticDataText(workflowId: string): Promise<string | null> {
		const [row] = await this.rows<{ staticData: string | null }>('SELECT staticData FROM workflow_entity WHERE id = ?', [workflowId]);
		if (!row) throw new Error(`no workflow ${workflowId} in ${this.file}`);
		return row.staticData;
	}

	/** Puts `text` back as the workflow's static data, as a restored backup or a lost save leaves it. */
	async restoreStaticData(workflowId: string, text: string): Promise<void> {
		const changed = await this.write('UPDATE workflow_entity SET staticData = ? WHERE id = ?', [text, workflowId]);
		if (changed !== 1) throw new Error(`restoring the static data of workflow ${workflowId} changed ${changed} rows`);
	}
}
