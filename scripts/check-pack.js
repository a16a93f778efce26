#!/usr/bin/env node
// Packs the package and checks what n8n will install: no runtime dependencies, the n8n entries
// present, and Bottleneck bundled into dist/ (n8n installs community packages without devDependencies).
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
for (const file of pkg.n8n.nodes) {
	const code = fs.readFileSync(path.join(out, 'package', file), 'utf8');
	if (!code.includes('Bottleneck')) problems.push(`${file} does not bundle Bottleneck`);
	if (/require\(["']bottleneck["']\)/.test(code)) problems.push(`${file} requires bottleneck at run time`);
	if (!code.includes('IORedisConnection') || /require\(["']ioredis["']\)/.test(code)) problems.push(`${file} does not bundle ioredis`);
	if (!code.includes('replace(/^ERR /')) problems.push(`${file}: Bottleneck Redis 7 patch missing`);
}
const files = packed[0].files.map((f) => f.path);
console.log(`${packed[0].filename}: ${files.length} files, ${(packed[0].size / 1024).toFixed(0)} kB packed`);
if (problems.length) {
	console.error(problems.join('\n'));
	process.exit(1);
}
console.log('pack check: ok (no dependencies, nodes and credentials present, Bottleneck + ioredis bundled, Redis 7 patch applied)');
