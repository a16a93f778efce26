/**
 * A tiny throwaway community package (plain CommonJS, no build step), used to prove the whole
 * "real n8n" pipeline independently of the project's own nodes: install into .n8n/nodes, credential
 * import (+ encryption), `n8n execute` of an action node, credential test (test.request), and a
 * polling trigger's manual run. It requires `n8n-workflow` (a peer dependency, like ours), which
 * must resolve from n8n's own install.
 *
 * The toy API it talks to (startToyApi) answers:
 *   GET /ping   -> 200 {ok:true} with `Authorization: Bearer <good key>`, else 401
 *   GET /items  -> 200 {items:[...]} with the good key, else 401
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';

export const TOY_PACKAGE = 'n8n-nodes-e2e-toy';
export const TOY_NODE = `${TOY_PACKAGE}.toy`;
export const TOY_TRIGGER = `${TOY_PACKAGE}.toyTrigger`;
export const TOY_CREDENTIAL = 'toyApi';

const files: Record<string, string> = {
	'package.json': JSON.stringify(
		{
			name: TOY_PACKAGE,
			version: '0.0.1',
			description: 'throwaway community package for the e2e runtime check',
			license: 'MIT',
			keywords: ['n8n-community-node-package'],
			files: ['dist'],
			n8n: {
				n8nNodesApiVersion: 1,
				credentials: ['dist/credentials/ToyApi.credentials.js'],
				nodes: ['dist/nodes/Toy/Toy.node.js', 'dist/nodes/ToyTrigger/ToyTrigger.node.js'],
			},
			peerDependencies: { 'n8n-workflow': '*' },
			devDependencies: { 'n8n-workflow': '*' },
		},
		null,
		2,
	),
	'dist/credentials/ToyApi.credentials.js': `
'use strict';
class ToyApi {
	constructor() {
		this.name = 'toyApi';
		this.displayName = 'Toy API';
		this.properties = [
			{ displayName: 'API Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
			{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
		];
		this.authenticate = { type: 'generic', properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } } };
		this.test = { request: { baseURL: '={{$credentials.baseUrl}}', url: '/ping' } };
	}
}
module.exports = { ToyApi };
`,
	'dist/nodes/Toy/Toy.node.js': `
'use strict';
const { NodeApiError, NodeConnectionTypes } = require('n8n-workflow');
class Toy {
	constructor() {
		this.description = {
			displayName: 'Toy',
			name: 'toy',
			group: ['transform'],
			version: 1,
			description: 'e2e toy action',
			defaults: { name: 'Toy' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'toyApi', required: true }],
			properties: [{ displayName: 'Path', name: 'path', type: 'string', default: '/items' }],
		};
	}
	async execute() {
		const creds = await this.getCredentials('toyApi');
		const p = this.getNodeParameter('path', 0);
		let body;
		try {
			body = await this.helpers.httpRequestWithAuthentication.call(this, 'toyApi', { method: 'GET', url: creds.baseUrl + p, json: true });
		} catch (error) {
			throw new NodeApiError(this.getNode(), error);
		}
		return [this.helpers.returnJsonArray(body.items)];
	}
}
module.exports = { Toy };
`,
	'dist/nodes/ToyTrigger/ToyTrigger.node.js': `
'use strict';
const { NodeConnectionTypes } = require('n8n-workflow');
class ToyTrigger {
	constructor() {
		this.description = {
			displayName: 'Toy Trigger',
			name: 'toyTrigger',
			group: ['trigger'],
			version: 1,
			description: 'e2e toy polling trigger',
			defaults: { name: 'Toy Trigger' },
			polling: true,
			inputs: [],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'toyApi', required: true }],
			properties: [],
		};
	}
	async poll() {
		const creds = await this.getCredentials('toyApi');
		const body = await this.helpers.httpRequestWithAuthentication.call(this, 'toyApi', { method: 'GET', url: creds.baseUrl + '/items', json: true });
		if (this.getMode() === 'manual') return [this.helpers.returnJsonArray([{ ...body.items[0], sample: true }])];
		return body.items.length ? [this.helpers.returnJsonArray(body.items)] : null;
	}
}
module.exports = { ToyTrigger };
`,
};

/** Writes the toy package sources into dir (ready for `npm pack`). */
export function writeToyPackage(dir: string): string {
	for (const [rel, content] of Object.entries(files)) {
		const file = path.join(dir, rel);
		fs.mkdirSync(path.dirname(file), { recursive: true });
		fs.writeFileSync(file, content.trimStart());
	}
	return dir;
}

export const TOY_ITEMS = [
	{ id: 'toy-1', name: 'first' },
	{ id: 'toy-2', name: 'second' },
];

export interface ToyApi {
	url: string;
	goodKey: string;
	hits: string[];
	close(): Promise<void>;
}

export async function startToyApi(goodKey = 'toy_good_key'): Promise<ToyApi> {
	const hits: string[] = [];
	const server = http.createServer((req, res) => {
		hits.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`);
		const send = (status: number, body: unknown) => {
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		if (req.headers.authorization !== `Bearer ${goodKey}`) {
			send(401, { error: 'unauthorized', message: 'Invalid API key' });
			return;
		}
		if (req.url === '/ping') send(200, { ok: true });
		else if (req.url === '/items') send(200, { items: TOY_ITEMS });
		else send(404, { error: 'not_found', message: 'Not found' });
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as import('node:net').AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		goodKey,
		hits,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
