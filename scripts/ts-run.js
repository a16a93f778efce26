#!/usr/bin/env node
// Runs a TypeScript tool (sandbox, demo, bench) with no build step: esbuild transpiles each
// .ts file as Node requires it. Usage: node scripts/ts-run.js path/to/tool.ts [args...]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { transformSync } = require('esbuild');

require.extensions['.ts'] = function compileTs(module, filename) {
	const source = fs.readFileSync(filename, 'utf8');
	const { code } = transformSync(source, {
		loader: 'ts',
		format: 'cjs',
		target: 'node20',
		sourcemap: 'inline',
		sourcefile: filename,
	});
	module._compile(code, filename);
};

// Node tries extensions in registration order: put .ts before .json so that `X.node` resolves to the
// node's X.node.ts and not to its codex file X.node.json.
for (const ext of ['.json', '.node']) {
	const handler = require.extensions[ext];
	delete require.extensions[ext];
	require.extensions[ext] = handler;
}

const [, , entry, ...rest] = process.argv;
if (!entry) {
	console.error('usage: node scripts/ts-run.js <file.ts> [args...]');
	process.exit(2);
}
process.argv = [process.argv[0], path.resolve(entry), ...rest];
require(path.resolve(entry));
