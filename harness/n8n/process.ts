/**
 * Child processes for the test support code: run a command and collect its output, kill a process
 * group, a free loopback port. Always an async spawn: the caller may host an HTTP server (the
 * sandbox API) that the child talks to, and a spawnSync would block it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';

export interface RunResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** Environment without the npm_* variables of an enclosing `npm run` (they would leak config). */
export function cleanEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [k, v] of Object.entries(base)) {
		if (/^npm_/i.test(k)) continue;
		env[k] = v;
	}
	return env;
}

export interface RunOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	timeoutMs?: number;
	echo?: boolean;
	/** Each complete line the command prints (stdout and stderr), as it comes: progress of a long step. */
	onLine?: (line: string) => void;
}

/** Calls `onLine` for each complete line of a stream's text, keeping a partial last line for the next chunk. */
export function lineSplitter(onLine: ((line: string) => void) | undefined): (text: string) => void {
	let rest = '';
	return (text) => {
		if (!onLine) return;
		const lines = (rest + text).split('\n');
		rest = lines.pop() ?? '';
		for (const line of lines) onLine(line);
	};
}

export function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, {
			cwd: opts.cwd,
			env: opts.env ?? process.env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout!.setEncoding('utf8');
		child.stderr!.setEncoding('utf8');
		const outLines = lineSplitter(opts.onLine);
		const errLines = lineSplitter(opts.onLine);
		child.stdout!.on('data', (d: string) => {
			stdout += d;
			outLines(d);
			if (opts.echo) process.stderr.write(d);
		});
		child.stderr!.on('data', (d: string) => {
			stderr += d;
			errLines(d);
			if (opts.echo) process.stderr.write(d);
		});
		let timer: NodeJS.Timeout | undefined;
		if (opts.timeoutMs) {
			timer = setTimeout(() => {
				stderr += `\n[killed after ${opts.timeoutMs} ms]`;
				killTree(child, 'SIGKILL');
			}, opts.timeoutMs);
		}
		child.on('error', (err) => {
			if (timer) clearTimeout(timer);
			reject(err);
		});
		child.on('close', (code, signal) => {
			if (timer) clearTimeout(timer);
			resolve({ code, signal, stdout, stderr });
		});
	});
}

export async function runOrThrow(what: string, cmd: string, args: string[], opts: RunOptions): Promise<RunResult> {
	const res = await run(cmd, args, opts);
	if (res.code !== 0) {
		const tail = (res.stderr + '\n' + res.stdout).trim().split('\n').slice(-40).join('\n');
		throw new Error(`${what} failed (exit ${res.code ?? res.signal}): ${cmd} ${args.join(' ')}\n${tail}`);
	}
	return res;
}

export function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		// children are started detached (own process group) where we need to kill their subtree
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			/* already gone */
		}
	}
}


export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
	// Two calls in a row may get the same port back from the kernel (the first one is closed again at
	// once): n8n then found its task broker port taken by its own HTTP server (a CI rehearsal failed
	// so). A port handed out once in this process is not handed out again.
	for (let attempt = 0; attempt < 50; attempt++) {
		const port = await anyFreePort();
		if (!handedOut.has(port)) {
			handedOut.add(port);
			return port;
		}
	}
	throw new Error('no free port that was not handed out before');
}

const handedOut = new Set<number>();

async function anyFreePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address() as net.AddressInfo;
			srv.close(() => resolve(port));
		});
	});
}
