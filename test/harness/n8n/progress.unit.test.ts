/**
 * The progress a first install prints (harness/n8n/progress.ts), read from the output of npm and of
 * the sqlite3 build: lines as npm 11 and node-gyp print them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { BuildProgress, duration, NativeBuildProgress, NpmInstallProgress, startProgress, StartProgress } from '../../../harness/n8n/progress';

describe('npm install --loglevel=http', () => {
	let dir: string;
	beforeEach(() => {
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'install-progress-'));
	});
	afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
	const unpacked = (folder: string) => {
		fs.mkdirSync(path.join(dir, 'node_modules', folder), { recursive: true });
		fs.writeFileSync(path.join(dir, 'node_modules', folder, 'package.json'), '{}');
	};

	test('package documents while resolving, then the packages unpacked on disk, of the expected number', () => {
		const progress = new NpmInstallProgress(dir, 2353);
		expect(progress.describe()).toBe('resolving the dependency tree, 0 package documents read');
		progress.onLine('npm http fetch GET 200 https://registry.npmjs.org/n8n 412ms (cache miss)');
		progress.onLine('npm http fetch GET 200 https://registry.npmjs.org/@n8n%2fconfig 55ms (cache miss)');
		progress.onLine('npm http fetch GET 200 https://registry.npmjs.org/n8n 3ms (cache hit)');
		progress.onLine('npm warn deprecated inflight@1.0.6: This module is not supported');
		expect(progress.describe()).toBe('resolving the dependency tree, 2 package documents read');
		// the tarballs are requested all at once; what is on disk says how far the install is
		progress.onLine('npm http cache @n8n/config@https://registry.npmjs.org/@n8n/config/-/config-1.2.3.tgz 1ms (cache hit)');
		progress.onLine('npm http fetch GET 200 https://registry.npmjs.org/chalk/-/chalk-4.1.2.tgz 819ms (cache miss)');
		expect(progress.describe()).toBe('downloading and unpacking, 0 of about 2,353 packages on disk');
		unpacked('chalk');
		unpacked('@n8n/config');
		unpacked('chalk/node_modules/ansi-styles');
		fs.mkdirSync(path.join(dir, 'node_modules', 'still-empty'));
		fs.mkdirSync(path.join(dir, 'node_modules', '.bin'));
		expect(progress.packages).toBe(3);
		expect(progress.describe()).toBe('downloading and unpacking, 3 of about 2,353 packages on disk');
		expect(new NpmInstallProgress(dir).describe()).not.toMatch(/of about/);
	});
});

describe('npm rebuild sqlite3 --foreground-scripts', () => {
	test('the file being compiled, how many before it, then the link', () => {
		const build = new NativeBuildProgress();
		expect(build.describe()).toMatch(/^preparing/);
		build.onLine('  CC(target) Release/obj.target/sqlite3/gyp/sqlite-autoconf-3440200/sqlite3.o');
		expect(build.describe()).toBe('compiling sqlite3.c, the SQLite library (most of the build)');
		build.onLine('  CXX(target) Release/obj.target/node_sqlite3/src/backup.o');
		build.onLine('  CXX(target) Release/obj.target/node_sqlite3/src/statement.o');
		expect(build.describe()).toBe('compiling statement; 2 source files compiled before it');
		expect(new NativeBuildProgress().describe()).toMatch(/^preparing/);
		build.onLine('  SOLINK_MODULE(target) Release/obj.target/node_sqlite3.node');
		expect(build.describe()).toBe('linking node_sqlite3.node; 2 source files compiled before it');
	});
});

describe("the demo's build and n8n's start", () => {
	test('npm run build: tsc first (it prints nothing), then the gulp task running and how many are done', () => {
		const build = new BuildProgress(true);
		expect(build.describe()).toMatch(/^tsc is type-checking/);
		build.onLine('[18:40:09] Using gulpfile /repo/gulpfile.js');
		build.onLine("[18:40:09] Starting 'build'...");
		build.onLine("[18:40:09] Starting 'clean'...");
		build.onLine("[18:40:09] Finished 'clean' after 15 ms");
		build.onLine("[18:40:09] Starting 'compile:cloud'...");
		expect(build.describe()).toBe('gulp: compile:cloud (esbuild bundles dist/ and editions/queue/dist/); 1 of its tasks done');
		expect(new BuildProgress(false).describe()).toBe('gulp is loading');
	});

	test("n8n's start: its last line, without colours, shortened", () => {
		const start = new StartProgress();
		expect(start.describe()).toBe('n8n has printed nothing yet');
		start.onLine('\u001b[32mInitializing n8n process\u001b[39m');
		start.onLine('   ');
		expect(start.describe()).toBe('n8n\'s last line: "Initializing n8n process"');
		start.onLine('x'.repeat(150));
		expect(start.describe()).toBe(`n8n's last line: "${'x'.repeat(97)}..."`);
	});
});

test('a step reports at its interval with the time so far, and stops', () => {
	jest.useFakeTimers();
	try {
		const lines: string[] = [];
		let done = 0;
		const progress = startProgress((line) => lines.push(line), 'installing n8n@2.40.7', () => `downloading ${done}`, 15_000);
		jest.advanceTimersByTime(14_999);
		expect(lines).toEqual([]);
		done = 10;
		jest.advanceTimersByTime(1);
		done = 20;
		jest.advanceTimersByTime(75_000);
		expect(lines).toEqual([
			'installing n8n@2.40.7: downloading 10 (15 s so far)',
			'installing n8n@2.40.7: downloading 20 (30 s so far)',
			'installing n8n@2.40.7: downloading 20 (45 s so far)',
			'installing n8n@2.40.7: downloading 20 (1 min 00 s so far)',
			'installing n8n@2.40.7: downloading 20 (1 min 15 s so far)',
			'installing n8n@2.40.7: downloading 20 (1 min 30 s so far)',
		]);
		expect(progress.stop()).toBe(90_000);
		jest.advanceTimersByTime(60_000);
		expect(lines).toHaveLength(6);
		expect(duration(725_000)).toBe('12 min 05 s');
	} finally {
		jest.useRealTimers();
	}
});
