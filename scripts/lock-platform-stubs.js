#!/usr/bin/env node
// This machine's npm registry lacks the non-Linux/x64 builds of some optional platform packages
// (e.g. @unrs/resolver-binding-darwin-arm64, pulled in by n8n's eslint tooling). `npm install` then
// leaves them out of package-lock.json, and `npm ci` refuses the lock ("Missing: … from lock file").
// This adds a lock entry for each missing optional dependency, with the os/cpu its name states, so
// npm ci skips it on this platform without fetching it. Run it after any `npm install`.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.resolve(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

function platformOf(name) {
	const os = ['android', 'darwin', 'freebsd', 'linux', 'openharmony', 'win32', 'sunos', 'aix', 'netbsd', 'openbsd'].find((o) =>
		new RegExp(`-${o}-`).test(name),
	);
	const cpu = ['arm64', 'arm', 'x64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'wasm32', 'mips64el'].find((c) =>
		new RegExp(`-${c}(-|$)`).test(name),
	);
	const libc = /-(musl|musleabihf)(-|$)/.test(name) ? 'musl' : /-(gnu|gnueabihf)(-|$)/.test(name) ? 'glibc' : undefined;
	return { os, cpu, libc };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
	if (!entry.optionalDependencies) continue;
	const base = location ? `${location}/node_modules/` : 'node_modules/';
	for (const [dep, version] of Object.entries(entry.optionalDependencies)) {
		const nested = `${base}${dep}`;
		const hoisted = `node_modules/${dep}`;
		if (packages[nested] || packages[hoisted]) continue;
		const { os, cpu, libc } = platformOf(dep);
		if (!os && !cpu) continue; // not a platform build: leave it to npm
		const stub = { version: String(version).replace(/^[\^~]/, ''), optional: true };
		if (entry.dev) stub.dev = true;
		if (cpu) stub.cpu = [cpu];
		if (os) stub.os = [os];
		if (libc) stub.libc = [libc];
		packages[hoisted] = stub;
		added++;
	}
}
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platform-stubs: added ${added} entr${added === 1 ? 'y' : 'ies'}`);
