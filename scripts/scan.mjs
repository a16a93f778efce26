#!/usr/bin/env node
// `npm run scan`: n8n's community-package scanner (@n8n/scan-community-package, pinned in
// devDependencies), its offline legs exactly as its CLI runs them after the provenance check
// (scanner.mjs `analyzePackageByName`): ESLint with the scanner's own config over
//   1. the source tree, with the scanner's SOURCE_FILE_PATTERNS (package.json, {nodes,credentials}/**), and
//   2. the packed tarball (`npm pack` of the repository root, unpacked), its .js files and package.json.
// The online legs (npm provenance, fetching the attested GitHub source) need a published version:
// see RELEASING.md. Needs a build (dist/) first.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
if (!fs.existsSync(path.join(root, 'dist'))) {
	console.error('dist/ is missing: run `npm run build` first');
	process.exit(1);
}

function report(label, result) {
	console.log(`${result.passed ? '✅' : '❌'} ${label}: ${result.passed ? 'pass' : `FAIL (${result.message})`}`);
	if (result.details) console.log(result.details);
	return result.passed;
}

const source = await analyzePackage(root, SOURCE_FILE_PATTERNS);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-'));
const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
const tarball = path.join(work, packed[0].filename);
const unpacked = path.join(work, `${pkg.name}-${pkg.version}`);
fs.mkdirSync(unpacked);
execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
const tarballResult = await analyzePackage(unpacked, ['**/*.js', 'package.json']);

console.log(`n8n scanner (@n8n/scan-community-package) on ${pkg.name}@${pkg.version}`);
const ok = [report(`source (${SOURCE_FILE_PATTERNS.join(', ')})`, source), report(`tarball ${packed[0].filename} (${packed[0].entryCount} files: **/*.js, package.json)`, tarballResult)].every(Boolean);
fs.rmSync(work, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
