#!/usr/bin/env node
// Entry of the package.json "sandbox" script (`npm run sandbox -- --port 4010`): runs cli.ts
// through the repository's esbuild loader (scripts/ts-run.js), with no build step.
'use strict';
const path = require('node:path');

process.argv = [process.argv[0], path.join(__dirname, '..', 'scripts', 'ts-run.js'), path.join(__dirname, 'cli.ts'), ...process.argv.slice(2)];
require('../scripts/ts-run.js');
