#!/usr/bin/env node
// Packs both editions and checks what n8n will install (n8n installs community packages without
// devDependencies):
// - n8n-nodes-booking-requests (the repository root, the n8n Cloud edition): no runtime dependencies,
//   the n8n entries present, Bottleneck bundled once into dist/vendor/ with its timers through
//   n8n-workflow's sleep and without its Redis parts; no ioredis, no queue-edition code;
// - n8n-nodes-booking-requests-queue (editions/queue, built by the same `npm run build`): the same,
//   plus ioredis and Bottleneck's Redis datastore (with the Redis 7 patch), and the queue edition's
//   limiter module in place of the Cloud one.
// - both: the credential type `bookingRequestsApi` with the same common fields; only the queue
//   edition's adds the Redis fields (Share Rate Limit Across n8n Processes, Redis URL).
// Prints each tarball's size and file list.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const problems = [];

function pack(dir) {
	const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pack-'));
	const [info] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
	execFileSync('tar', ['-xzf', path.join(out, info.filename), '-C', out]);
	return { info, dir: path.join(out, 'package') };
}

function jsFilesOf(dir) {
	const found = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) found.push(...jsFilesOf(full));
		else if (entry.name.endsWith('.js')) found.push(full);
	}
	return found;
}

function checkEdition(label, dir, expect) {
	const { info, dir: unpacked } = pack(dir);
	const say = (problem) => problems.push(`${label}: ${problem}`);
	const pkg = JSON.parse(fs.readFileSync(path.join(unpacked, 'package.json'), 'utf8'));
	if (pkg.name !== expect.name) say(`package name is ${pkg.name}, expected ${expect.name}`);
	if (pkg.dependencies && Object.keys(pkg.dependencies).length > 0) say(`dependencies is not empty: ${Object.keys(pkg.dependencies)}`);
	if (pkg.n8n.strict !== expect.strict) say(`n8n.strict is ${pkg.n8n.strict}, expected ${expect.strict}`);
	for (const file of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
		if (!fs.existsSync(path.join(unpacked, file))) say(`missing ${file}`);
	}
	for (const file of ['LICENSE', 'README.md']) if (!fs.existsSync(path.join(unpacked, file))) say(`missing ${file}`);
	// One copy of every module at run time: the libraries are bundled once into dist/vendor/ and nothing
	// requires them by package name (n8n would not find them).
	const jsFiles = jsFilesOf(path.join(unpacked, 'dist'));
	for (const file of jsFiles) {
		const bare = /require\(["'](bottleneck|ioredis)(\/[^"']*)?["']\)/.exec(fs.readFileSync(file, 'utf8'));
		if (bare) say(`${path.relative(unpacked, file)} requires ${bare[1]} by package name`);
	}
	const read = (relative) => (fs.existsSync(path.join(unpacked, relative)) ? fs.readFileSync(path.join(unpacked, relative), 'utf8') : '');
	const bottleneck = read('dist/vendor/bottleneck.js');
	if (!bottleneck.includes('Bottleneck')) say('dist/vendor/bottleneck.js missing or not Bottleneck');
	if (!bottleneck.includes('require("n8n-workflow")')) say("dist/vendor/bottleneck.js: the patch (timers through n8n-workflow's sleep) is missing");
	const registry = read('dist/nodes/shared/transport/limiter/registry.js');
	// The credential type: one name in both editions, the same common fields; the edition's own fields after them.
	const credentialFile = path.join(unpacked, 'dist/credentials/BookingRequestsApi.credentials.js');
	let credentialFields = [];
	if (fs.existsSync(credentialFile)) {
		const { BookingRequestsApi } = require(credentialFile);
		const credential = new BookingRequestsApi();
		if (credential.name !== 'bookingRequestsApi') say(`the credential type is ${credential.name}, expected bookingRequestsApi`);
		credentialFields = credential.properties.map((property) => property.name);
	}
	expect.check({ say, bottleneck, ioredis: read('dist/vendor/ioredis.js'), registry, credentialFields, files: info.files.map((f) => f.path) });
	const files = info.files.map((f) => `${f.path} (${(f.size / 1024).toFixed(1)} kB)`);
	console.log(`${info.filename}: ${info.entryCount} files, ${(info.size / 1024).toFixed(0)} kB packed, ${(info.unpackedSize / 1024).toFixed(0)} kB unpacked, ${jsFiles.length} modules`);
	if (process.argv.includes('--list')) console.log(files.map((f) => `  ${f}`).join('\n'));
}

/** The credential's fields in both editions (the queue edition adds its Redis fields after them). */
const CREDENTIAL_COMMON_FIELDS = ['notice', 'apiKey', 'formatNotice', 'baseUrl', 'baseUrlSchemeNotice', 'baseUrlPathNotice'];

checkEdition('Cloud edition (repository root)', root, {
	name: 'n8n-nodes-booking-requests',
	strict: true,
	check({ say, bottleneck, ioredis, registry, credentialFields, files }) {
		if (ioredis) say('dist/vendor/ioredis.js must not be in the Cloud edition');
		if (credentialFields.join(',') !== CREDENTIAL_COMMON_FIELDS.join(',')) say(`the credential's fields are ${credentialFields}, expected only ${CREDENTIAL_COMMON_FIELDS} (no Redis fields in the Cloud edition)`);
		if (bottleneck.includes('IORedisConnection.prototype') || bottleneck.includes('evalsha')) say("dist/vendor/bottleneck.js holds Bottleneck's Redis parts");
		if (!bottleneck.includes('is not part of the n8n Cloud edition')) say('dist/vendor/bottleneck.js: the stub of the Redis parts is missing');
		if (!registry.includes('require("./edition")')) say('the limiter registry does not use the Cloud edition module');
		if (files.some((file) => file.startsWith('dist/queue/'))) say('queue-edition code in the Cloud edition');
	},
});
checkEdition('queue edition (editions/queue)', path.join(root, 'editions', 'queue'), {
	name: 'n8n-nodes-booking-requests-queue',
	strict: false,
	check({ say, bottleneck, ioredis, registry, credentialFields }) {
		const queueFields = [...CREDENTIAL_COMMON_FIELDS, 'shareRateLimit', 'redisUrl', 'redisUrlNotice'];
		if (credentialFields.join(',') !== queueFields.join(',')) say(`the credential's fields are ${credentialFields}, expected ${queueFields}`);
		if (!/Redis/.test(ioredis) || !ioredis.includes('sentinel')) say('dist/vendor/ioredis.js missing or not ioredis');
		if (!bottleneck.includes('IORedisConnection')) say("dist/vendor/bottleneck.js lacks Bottleneck's Redis parts");
		if (!bottleneck.includes('replace(/^ERR /')) say('dist/vendor/bottleneck.js: Bottleneck Redis 7 patch missing');
		if (!registry.includes('require("../../../../queue/edition.js")')) say('the limiter registry does not use queue/edition');
	},
});
if (problems.length) {
	console.error(problems.join('\n'));
	process.exit(1);
}
console.log('pack check: ok (both editions: no dependencies, nodes and credentials present, one credential type (Redis fields in the queue edition only), libraries bundled once; Cloud: Bottleneck without Redis, timers through sleep; queue: ioredis + Bottleneck clustering, Redis 7 patch)');
