/**
 * Progress of the one-off installs of install.ts. A first run takes minutes (n8n is about 2,350 npm
 * packages, then sqlite3 is compiled), so a long step says every PROGRESS_EVERY_MS what it is doing,
 * how far it has come and how long it has taken, read from the output of the command it runs and
 * from what it has written to disk.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

export const PROGRESS_EVERY_MS = 15_000;

type Logger = (msg: string) => void;

/** "45 s", "2 min 05 s". */
export function duration(ms: number): string {
	const seconds = Math.round(ms / 1000);
	if (seconds < 60) return `${seconds} s`;
	return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/**
 * Reports `detail()` under `step` every `everyMs` until stopped; `stop()` answers the step's duration.
 * The timer does not keep the process alive.
 */
export function startProgress(log: Logger, step: string, detail: () => string, everyMs = PROGRESS_EVERY_MS): { stop(): number } {
	const started = Date.now();
	const timer = setInterval(() => log(`${step}: ${detail()} (${duration(Date.now() - started)} so far)`), everyMs);
	timer.unref();
	return {
		stop() {
			clearInterval(timer);
			return Date.now() - started;
		},
	};
}

/**
 * The packages unpacked under `nodeModules` so far: folders (scoped ones too, nested node_modules
 * too) that hold a package.json. A few thousand existence checks: cheap enough for every report.
 */
export function packagesOnDisk(nodeModules: string): number {
	let count = 0;
	const visit = (dir: string) => {
		let entries: fs.Dirent[];
		try {
			entries = fs.readdirSync(dir, { withFileTypes: true });
		} catch {
			return;
		}
		for (const entry of entries) {
			if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
			const folder = path.join(dir, entry.name);
			if (entry.name.startsWith('@')) {
				visit(folder);
				continue;
			}
			if (fs.existsSync(path.join(folder, 'package.json'))) count++;
			visit(path.join(folder, 'node_modules'));
		}
	};
	visit(nodeModules);
	return count;
}

/**
 * What an `npm install --loglevel=http` in `dir` has done: while it resolves the dependency tree, the
 * package documents it read (`npm http fetch GET 200 <registry>/<name>`, from its log lines); then the
 * packages unpacked on disk (its tarball requests come all at once, the download and the unpacking
 * take minutes after them).
 */
export class NpmInstallProgress {
	private readonly documents = new Set<string>();
	private tarballs = 0;

	/** @param expectedPackages how many packages the install has, when known (e.g. 2,363 for n8n 2.41.1) */
	constructor(
		private readonly dir: string,
		private readonly expectedPackages?: number,
	) {}

	onLine = (line: string): void => {
		const match = /^npm http (?:fetch [A-Z]+ \d+|cache) (\S+)/.exec(line.trim());
		if (!match) return;
		if (/\.tgz(\?|\s|$)/.test(match[1])) this.tarballs++;
		else this.documents.add(match[1]);
	};

	/** The packages on disk. */
	get packages(): number {
		return packagesOnDisk(path.join(this.dir, 'node_modules'));
	}

	describe(): string {
		if (this.tarballs === 0) return `resolving the dependency tree, ${this.documents.size.toLocaleString('en-US')} package documents read`;
		const of = this.expectedPackages ? ` of about ${this.expectedPackages.toLocaleString('en-US')}` : '';
		return `downloading and unpacking, ${this.packages.toLocaleString('en-US')}${of} packages on disk`;
	}
}

/**
 * What a native module's build (`npm rebuild <module> --foreground-scripts`: prebuild-install, then
 * node-gyp) is doing, from its output: each compiled source file is one line of make's output
 * (`CC(target) …/sqlite3.o`, `CXX(target) …/statement.o`), the link is `SOLINK_MODULE(target)`.
 */
export class NativeBuildProgress {
	private compiled = 0;
	private current = 'preparing (prebuilt binary looked up, sources unpacked)';

	onLine = (line: string): void => {
		const match = /^\s*(CC|CXX|SOLINK_MODULE|LINK)\(target\)\s+(\S+)/.exec(line);
		if (!match) return;
		const file = match[2].split('/').pop() ?? match[2];
		if (match[1] === 'SOLINK_MODULE' || match[1] === 'LINK') {
			this.current = `linking ${file}`;
			return;
		}
		this.compiled++;
		this.current = file === 'sqlite3.o' ? 'compiling sqlite3.c, the SQLite library (most of the build)' : `compiling ${file.replace(/\.o$/, '')}`;
	};

	describe(): string {
		const before = this.compiled - 1;
		return before > 0 ? `${this.current}; ${before} source file${before === 1 ? '' : 's'} compiled before it` : this.current;
	}
}

/**
 * What building this package is doing, from its output: `npm run build` type-checks with tsc first
 * (silent, most of the step), then gulp prints `Starting '<task>'...` for each of its tasks;
 * `gulp build` alone starts at the tasks.
 */
export class BuildProgress {
	private task?: string;
	private finished = 0;

	/** @param typeCheck whether the build starts with tsc's type check (`npm run build`) */
	constructor(private readonly typeCheck: boolean) {}

	onLine = (line: string): void => {
		const match = /(Starting|Finished) '([^']+)'/.exec(line);
		if (!match || match[2] === 'build') return;
		if (match[1] === 'Starting') this.task = match[2];
		else this.finished++;
	};

	describe(): string {
		if (this.task) return `gulp: ${this.task} (esbuild bundles dist/ and editions/queue/dist/); ${this.finished} of its tasks done`;
		return this.typeCheck ? 'tsc is type-checking every source, test and tool file (most of this step; it prints nothing)' : 'gulp is loading';
	}
}

/** What a starting n8n is doing: the last line it printed (its database migrations, nodes loaded, server up). */
export class StartProgress {
	private last = '';

	onLine = (line: string): void => {
		// eslint-disable-next-line no-control-regex
		const text = line.replace(/\u001b\[[0-9;]*m/g, '').trim();
		if (text) this.last = text;
	};

	describe(): string {
		if (!this.last) return 'n8n has printed nothing yet';
		return `n8n's last line: "${this.last.length > 100 ? `${this.last.slice(0, 97)}...` : this.last}"`;
	}
}
