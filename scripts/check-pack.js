#!/usr/bin/env node
// Packs the package and checks what n8n will install: no runtime dependencies, the n8n entries
// present, and Bottleneck + ioredis bundled once into dist/vendor/ (n8n installs community packages
// without devDependencies).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pack-'));
const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: root, encoding: 'utf8' }));
const tarball = path.join(out, packed[0].filename);
execFileSync('tar', ['-xzf', tarball, '-C', out]);
const pkg = JSON.parse(fs.readFileSync(path.join(out, 'package', 'package.json'), 'utf8'));
const problems = [];
if (pkg.dependencies && Object.keys(pkg.dependencies).length > 0) problems.push(`dependencies is not empty: ${Object.keys(pkg.dependencies)}`);
for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
	if (!fs.existsSync(path.join(out, 'package', file))) problems.push(`missing ${file}`);
}
// One copy of every module at run time: our files are separate modules, the libraries are bundled
// once into dist/vendor/ and nothing requires them by package name (n8n would not find them).
const jsFiles = [];
const walk = (dir) => {
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) walk(full);
		else if (entry.name.endsWith('.js')) jsFiles.push(full);
	}
};
walk(path.join(out, 'package', 'dist'));
for (const file of jsFiles) {
	const code = fs.readFileSync(file, 'utf8');
	const bare = /require\(["'](bottleneck|ioredis)(\/[^"']*)?["']\)/.exec(code);
	if (bare) problems.push(`${path.relative(out, file)} requires ${bare[1]} by package name`);
}
const vendorDir = path.join(out, 'package', 'dist', 'vendor');
const bottleneck = fs.existsSync(path.join(vendorDir, 'bottleneck.js')) ? fs.readFileSync(path.join(vendorDir, 'bottleneck.js'), 'utf8') : '';
const ioredis = fs.existsSync(path.join(vendorDir, 'ioredis.js')) ? fs.readFileSync(path.join(vendorDir, 'ioredis.js'), 'utf8') : '';
if (!bottleneck.includes('IORedisConnection')) problems.push('dist/vendor/bottleneck.js missing or not Bottleneck');
if (!bottleneck.includes('replace(/^ERR /')) problems.push('dist/vendor/bottleneck.js: Bottleneck Redis 7 patch missing');
if (!/Redis/.test(ioredis) || !ioredis.includes('sentinel')) problems.push('dist/vendor/ioredis.js missing or not ioredis');
const files = packed[0].files.map((f) => f.path);
console.log(`${packed[0].filename}: ${files.length} files, ${(packed[0].size / 1024).toFixed(0)} kB packed`);
if (problems.length) {
	console.error(problems.join('\n'));
	process.exit(1);
}
console.log(`pack check: ok (no dependencies, nodes and credentials present, ${jsFiles.length} modules, Bottleneck + ioredis bundled once in dist/vendor, Redis 7 patch applied)`);
