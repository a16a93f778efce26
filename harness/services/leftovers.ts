/**
 * Services a test run starts outside its own process tree's lifetime (a PostgreSQL cluster, a
 * redis-server, n8n process groups) are recorded here, one small JSON file each, so that a run that
 * crashed (jest killed, the machine's OOM killer, Ctrl+C twice) does not leave them behind for ever:
 * the next run's `sweepLeftovers()` ends the processes of every record whose owner is gone and
 * removes their data directories. A normal run removes its records itself when it stops a service.
 *
 * Only what a record names is touched, and only after checking that the pid is still the same process
 * (its start time in `/proc/<pid>/stat`) running the expected command, so a reused pid is never killed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface LeftoverRecord {
	/** What it is, for the log: `postgres`, `redis-server`, `n8n worker`... */
	kind: string;
	/** The test process that started it. */
	ownerPid: number;
	/** `/proc/<ownerPid>/stat` start time, so a reused owner pid does not count as alive. */
	ownerStart: string;
	/** The process to end; with `group`, its whole process group (it was spawned detached). */
	pid: number;
	/** `/proc/<pid>/stat` start time when it was recorded. */
	pidStart: string;
	group: boolean;
	/** A string its command line must contain, or it is not ours any more. */
	cmdlineIncludes: string;
	/** Removed after the process is gone. */
	removeDirs: string[];
}

export const LEFTOVERS_DIR = path.join(os.tmpdir(), 'n8n-nodes-booking-requests-services');

/** `/proc/<pid>/stat` start time of a live process; undefined when there is none (or only a zombie). */
function procStart(pid: number): string | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		// fields after the command name in parentheses: 3 (state) and 22 (starttime)
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return fields[0] === 'Z' || fields[0] === 'X' ? undefined : fields[19];
	} catch {
		return undefined;
	}
}

function cmdline(pid: number): string | undefined {
	try {
		return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
	} catch {
		return undefined;
	}
}

/** Records a service; returns the function that forgets it (call it once the service is stopped). */
export function recordLeftover(entry: Omit<LeftoverRecord, 'ownerPid' | 'ownerStart' | 'pidStart'>): () => void {
	fs.mkdirSync(LEFTOVERS_DIR, { recursive: true });
	const record: LeftoverRecord = { ...entry, pidStart: procStart(entry.pid) ?? '', ownerPid: process.pid, ownerStart: procStart(process.pid) ?? '' };
	const file = path.join(LEFTOVERS_DIR, `${process.pid}-${entry.pid}-${entry.kind.replace(/\W+/g, '_')}.json`);
	fs.writeFileSync(file, JSON.stringify(record, null, 2));
	return () => fs.rmSync(file, { force: true });
}

function ownerAlive(record: LeftoverRecord): boolean {
	return procStart(record.ownerPid) === record.ownerStart && record.ownerStart !== '';
}

/** Ends what earlier, crashed runs left running. Returns what it cleaned, for the log. */
export function sweepLeftovers(): string[] {
	if (!fs.existsSync(LEFTOVERS_DIR)) return [];
	const cleaned: string[] = [];
	for (const name of fs.readdirSync(LEFTOVERS_DIR)) {
		if (!name.endsWith('.json')) continue;
		const file = path.join(LEFTOVERS_DIR, name);
		let record: LeftoverRecord;
		try {
			record = JSON.parse(fs.readFileSync(file, 'utf8')) as LeftoverRecord;
		} catch {
			fs.rmSync(file, { force: true });
			continue;
		}
		if (ownerAlive(record)) continue; // a run in progress (another worktree, another suite)
		const same = record.pidStart !== '' && procStart(record.pid) === record.pidStart;
		if (same && cmdline(record.pid)?.includes(record.cmdlineIncludes)) {
			try {
				process.kill(record.group ? -record.pid : record.pid, 'SIGKILL');
			} catch {
				/* already gone */
			}
			cleaned.push(`${record.kind} (pid ${record.pid})`);
		}
		for (const dir of record.removeDirs) fs.rmSync(dir, { recursive: true, force: true });
		fs.rmSync(file, { force: true });
	}
	return cleaned;
}
