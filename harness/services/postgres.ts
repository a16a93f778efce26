/**
 * A throw-away PostgreSQL cluster for a test: Debian's server binaries (`apt-get install -y
 * postgresql`, found in /usr/lib/postgresql/<version>/bin, or PG_BIN_DIR), a fresh data directory in
 * the OS temp dir, a free loopback port, a database and a password-protected role for n8n. Nothing is
 * shared with a system cluster; stop() ends the server and deletes the directory.
 *
 * PostgreSQL refuses to run as root, and CI runs as root: then initdb and the server run as the
 * `postgres` user (`runuser -u postgres --`) on a directory owned by it. The server runs in the
 * foreground as a child of this process, in its own process group (so one signal reaches every
 * backend), and is recorded with ./leftovers.ts so that a crashed run's cluster is ended by the next.
 * Durability is off (fsync, synchronous_commit, full_page_writes): the data lives only for the test.
 *
 * E2E_POSTGRES_URL (e.g. a CI service container: `postgres://postgres:postgres@127.0.0.1:5432/postgres`)
 * uses that existing server instead: the URL's role must be allowed to create roles and databases.
 * Each startPostgres() then creates its own password-protected role and database there (random
 * suffixes, so test files never share a database) and stop() drops both. Only `psql` is needed
 * (PG_BIN_DIR, the Debian server binaries' directory, or `psql` on PATH). Unset: the throw-away cluster.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { envOverride } from '../env';
import { freePort, run, sleep } from '../n8n/process';
import { recordLeftover } from './leftovers';
import { PREREQUISITES, installLine, postgresBinDir } from './prerequisites';

export interface PostgresServer {
	host: string;
	port: number;
	database: string;
	user: string;
	password: string;
	/** e.g. `15.14` */
	version: string;
	dataDir: string;
	/** The DB_* variables every n8n process (and n8n CLI call) needs. */
	n8nEnv(): Record<string, string>;
	/** Runs SQL with psql as the n8n role; returns psql's unaligned, tuples-only output. */
	sql(statement: string): Promise<string>;
	/** The rows of a SELECT, as JSON (the statement is wrapped in `json_agg`). */
	rows<T = Record<string, unknown>>(select: string): Promise<T[]>;
	stop(): Promise<void>;
}

/** The server binaries (PG_BIN_DIR, else Debian's newest): found where the test scripts' check looks. */
export { postgresBinDir };

const isRoot = (): boolean => process.getuid?.() === 0;

/** `cmd args` as the postgres user when this process is root (initdb and the server refuse root). */
function asServerUser(cmd: string, args: string[]): [string, string[]] {
	return isRoot() ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

function chownToPostgres(dir: string): void {
	if (!isRoot()) return;
	const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
	const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
	if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as (apt-get install -y postgresql creates it)');
	const walk = (p: string) => {
		fs.chownSync(p, uid, gid);
		if (fs.statSync(p).isDirectory()) for (const entry of fs.readdirSync(p)) walk(path.join(p, entry));
	};
	walk(dir);
}

/** An existing PostgreSQL server to use instead of a throw-away cluster (see the file's comment). */
export const EXTERNAL_POSTGRES_ENV = 'E2E_POSTGRES_URL';

/** psql: from PG_BIN_DIR / the Debian server binaries when present, else the one on PATH. */
function psqlBin(): string {
	const bin = postgresBinDir();
	return bin && fs.existsSync(path.join(bin, 'psql')) ? path.join(bin, 'psql') : 'psql';
}

/** Runs one statement with psql over TCP; returns its unaligned, tuples-only output. */
async function psqlOver(
	conn: { host: string; port: number },
	role: string,
	pass: string,
	db: string,
	statement: string,
	psql = psqlBin(),
): Promise<string> {
	const res = await run(psql, ['-X', '-v', 'ON_ERROR_STOP=1', '-h', conn.host, '-p', String(conn.port), '-U', role, '-d', db, '-At', '-c', statement], {
		env: { ...process.env, PGPASSWORD: pass, PGCONNECT_TIMEOUT: '5' },
		timeoutMs: 60_000,
	});
	if (res.code !== 0) throw new Error(`psql failed (${res.code}): ${res.stderr.trim()}\n  ${statement.slice(0, 300)}`);
	return res.stdout;
}

function serverHandle(
	conn: { host: string; port: number },
	fields: { database: string; user: string; password: string; version: string; dataDir: string },
	stop: () => Promise<void>,
): PostgresServer {
	const sql = (statement: string) => psqlOver(conn, fields.user, fields.password, fields.database, statement);
	return {
		host: conn.host,
		port: conn.port,
		...fields,
		n8nEnv: () => ({
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: conn.host,
			DB_POSTGRESDB_PORT: String(conn.port),
			DB_POSTGRESDB_DATABASE: fields.database,
			DB_POSTGRESDB_USER: fields.user,
			DB_POSTGRESDB_PASSWORD: fields.password,
		}),
		sql,
		async rows<T>(select: string): Promise<T[]> {
			const text = (await sql(`SELECT coalesce(json_agg(q), '[]'::json) FROM (${select}) q`)).trim();
			return JSON.parse(text) as T[];
		},
		stop,
	};
}

/** A role and a database of their own on the server E2E_POSTGRES_URL names; stop() drops them. */
async function startExternalPostgres(url: string, opts: StartPostgresOptions): Promise<PostgresServer> {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new Error(`${EXTERNAL_POSTGRES_ENV} is not a URL (expected postgres://user:password@host:port/database)`);
	}
	const conn = { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 5432) };
	const admin = decodeURIComponent(parsed.username || 'postgres');
	const adminPassword = decodeURIComponent(parsed.password);
	const adminDb = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'postgres';
	const asAdmin = (statement: string) => psqlOver(conn, admin, adminPassword, adminDb, statement);
	const where = `${conn.host}:${conn.port} (${EXTERNAL_POSTGRES_ENV})`;

	const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
	for (;;) {
		try {
			await asAdmin('select 1');
			break;
		} catch (error) {
			if (Date.now() > deadline) throw new Error(`PostgreSQL at ${where} does not accept connections as ${admin}: ${(error as Error).message}`);
			await sleep(500);
		}
	}
	const suffix = randomBytes(4).toString('hex');
	const database = `${opts.database ?? 'n8n'}_${suffix}`;
	const user = `${opts.user ?? 'n8n'}_${suffix}`;
	const password = randomBytes(12).toString('hex');
	await asAdmin(`CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
	await asAdmin(`CREATE DATABASE ${database} OWNER ${user}`);

	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		// n8n is stopped first; FORCE (PostgreSQL 13+) ends sessions a killed process left behind
		await asAdmin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(async () => await asAdmin(`DROP DATABASE IF EXISTS ${database}`));
		await asAdmin(`DROP ROLE IF EXISTS ${user}`);
	};
	try {
		const version = (await psqlOver(conn, user, password, database, 'show server_version')).trim().split(' ')[0];
		return serverHandle(conn, { database, user, password, version, dataDir: '' }, stop);
	} catch (error) {
		await stop().catch(() => undefined);
		throw error;
	}
}

export interface StartPostgresOptions {
	database?: string;
	user?: string;
	/** Max wait for the server to accept connections. */
	timeoutMs?: number;
}

export async function startPostgres(opts: StartPostgresOptions = {}): Promise<PostgresServer> {
	const external = envOverride(EXTERNAL_POSTGRES_ENV);
	if (external) return await startExternalPostgres(external, opts);
	const bin = postgresBinDir();
	if (!bin) throw new Error(`PostgreSQL server binaries not found (${installLine(PREREQUISITES.postgresql)}, or set PG_BIN_DIR)`);
	const database = opts.database ?? 'n8n';
	const user = opts.user ?? 'n8n';
	const password = randomBytes(12).toString('hex');
	const superPassword = randomBytes(12).toString('hex');
	const host = '127.0.0.1';
	const port = await freePort();

	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'booking-requests-pg-'));
	fs.chmodSync(dir, 0o755);
	const dataDir = path.join(dir, 'data');
	const socketDir = path.join(dir, 'socket');
	fs.mkdirSync(socketDir);
	const pwFile = path.join(dir, 'superuser-password');
	fs.writeFileSync(pwFile, `${superPassword}\n`);
	chownToPostgres(dir);

	const [initCmd, initArgs] = asServerUser(path.join(bin, 'initdb'), [
		'-D', dataDir,
		'-U', 'postgres',
		'--pwfile', pwFile,
		'--auth-local', 'trust',
		'--auth-host', 'scram-sha-256',
		'-E', 'UTF8',
		'--locale', 'C',
		'--no-sync',
	]);
	const init = await run(initCmd, initArgs, { timeoutMs: 120_000 });
	fs.rmSync(pwFile, { force: true });
	if (init.code !== 0) {
		fs.rmSync(dir, { recursive: true, force: true });
		throw new Error(`initdb failed (${init.code}):\n${(init.stdout + init.stderr).slice(-3000)}`);
	}

	const [serverCmd, serverArgs] = asServerUser(path.join(bin, 'postgres'), [
		'-D', dataDir,
		'-p', String(port),
		'-k', socketDir,
		'-c', `listen_addresses=${host}`,
		'-c', 'fsync=off',
		'-c', 'synchronous_commit=off',
		'-c', 'full_page_writes=off',
		'-c', 'max_connections=200',
	]);
	const child: ChildProcess = spawn(serverCmd, serverArgs, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	let out = '';
	child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
	child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const forget = recordLeftover({ kind: 'postgres', pid: child.pid!, group: true, cmdlineIncludes: dataDir, removeDirs: [dir] });
	const killGroup = (signal: NodeJS.Signals) => {
		try {
			process.kill(-child.pid!, signal);
		} catch {
			/* gone */
		}
	};
	const onExit = () => {
		killGroup('SIGKILL');
		fs.rmSync(dir, { recursive: true, force: true });
		forget();
	};
	process.once('exit', onExit);

	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		process.removeListener('exit', onExit);
		if (child.exitCode === null && child.signalCode === null) {
			killGroup('SIGINT'); // "fast" shutdown: ends the sessions, no checkpoint wait needed
			const timer = setTimeout(() => killGroup('SIGKILL'), 10_000);
			await exited;
			clearTimeout(timer);
			// backends of the group that outlived the postmaster
			killGroup('SIGKILL');
		}
		fs.rmSync(dir, { recursive: true, force: true });
		forget();
	};

	const psql = path.join(bin, 'psql');
	const psqlAs = (role: string, pass: string, db: string, statement: string): Promise<string> =>
		psqlOver({ host, port }, role, pass, db, statement, psql);

	const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
	for (;;) {
		if (child.exitCode !== null || child.signalCode !== null) {
			await stop();
			throw new Error(`postgres exited (${child.exitCode ?? child.signalCode}):\n${out.slice(-3000)}`);
		}
		try {
			await psqlAs('postgres', superPassword, 'postgres', 'select 1');
			break;
		} catch (error) {
			if (Date.now() > deadline) {
				await stop();
				throw new Error(`postgres did not accept connections on ${host}:${port}: ${(error as Error).message}\n${out.slice(-3000)}`);
			}
			await sleep(100);
		}
	}
	try {
		await psqlAs('postgres', superPassword, 'postgres', `CREATE ROLE ${user} LOGIN PASSWORD '${password}'`);
		await psqlAs('postgres', superPassword, 'postgres', `CREATE DATABASE ${database} OWNER ${user}`);
	} catch (error) {
		await stop();
		throw error;
	}
	const version = (await psqlAs(user, password, database, 'show server_version')).trim().split(' ')[0];

	return serverHandle({ host, port }, { database, user, password, version, dataDir }, stop);
}
