/**
 * Proves the real-n8n pipeline with a throwaway community package (helpers/toy-package.ts), so a
 * failure here is about the runtime/harness, not about the project's nodes:
 * npm pack -> install into a fresh user folder's .n8n/nodes -> n8n loads it -> credential import
 * -> workflow import -> `n8n execute` -> parsed items; then `n8n start` -> credential test and a
 * polling trigger's manual run through the REST API.
 */
import * as path from 'node:path';
import { installTarball, packPackage } from '../../harness/n8n/communityPackage';
import { makeUserFolder, type WorkflowImport } from '../../harness/n8n/workflows';
import { N8nCli } from '../../harness/n8n/cli';
import { N8nRest } from '../../harness/n8n/rest';
import { withN8nServer } from './helpers/server';
import { loadState, scratch } from './helpers/state';
import { startToyApi, TOY_CREDENTIAL, TOY_ITEMS, TOY_NODE, TOY_PACKAGE, TOY_TRIGGER, writeToyPackage, type ToyApi } from './helpers/toy-package';

const CRED_GOOD = { id: 'toyCredGood00001', name: 'Toy good key', type: TOY_CREDENTIAL };
const CRED_BAD = { id: 'toyCredBad000001', name: 'Toy wrong key', type: TOY_CREDENTIAL };

function actionWorkflow(id: string, credId: string): WorkflowImport {
	return {
		id,
		name: `toy action ${id}`,
		nodes: [
			{ id: 'n1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'n2',
				name: 'Toy',
				type: TOY_NODE,
				typeVersion: 1,
				position: [220, 0],
				parameters: { path: '/items' },
				credentials: { [TOY_CREDENTIAL]: { id: credId, name: 'toy' } },
			},
		],
		connections: { Start: { main: [[{ node: 'Toy', type: 'main', index: 0 }]] } },
	};
}

const TRIGGER_WF: WorkflowImport = {
	id: 'toyTrigWf0000001',
	name: 'toy trigger',
	nodes: [
		{
			id: 't1',
			name: 'Toy Trigger',
			type: TOY_TRIGGER,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
			credentials: { [TOY_CREDENTIAL]: { id: CRED_GOOD.id, name: CRED_GOOD.name } },
		},
	],
	connections: {},
};

describe('real n8n runtime (throwaway community package)', () => {
	const state = loadState();
	let api: ToyApi;
	let cli: N8nCli;
	let userFolder: string;

	beforeAll(async () => {
		api = await startToyApi();
		const src = writeToyPackage(scratch(state, 'toy-src'));
		const packed = await packPackage(src, scratch(state, 'toy-pack'));
		userFolder = makeUserFolder(state.workDir);
		const installed = await installTarball(userFolder, packed.tarball);
		expect(installed.dir).toBe(path.join(userFolder, '.n8n', 'nodes', 'node_modules', TOY_PACKAGE));
		cli = new N8nCli(state.install, userFolder);
		await cli.importCredentials([
			{ ...CRED_GOOD, data: { apiKey: api.goodKey, baseUrl: api.url } },
			{ ...CRED_BAD, data: { apiKey: 'toy_wrong_key', baseUrl: api.url } },
		]);
		await cli.importWorkflows([
			actionWorkflow('toyWfGood0000001', CRED_GOOD.id),
			actionWorkflow('toyWfBad00000001', CRED_BAD.id),
			TRIGGER_WF,
		]);
	});

	afterAll(async () => {
		await api?.close();
	});

	test('n8n execute runs the community node and returns its items', async () => {
		const run = await cli.execute('toyWfGood0000001');
		expect(run.ok).toBe(true);
		expect(run.exitCode).toBe(0);
		expect(run.items.Toy).toEqual(TOY_ITEMS);
		expect(api.hits).toContain(`GET /items Bearer ${api.goodKey}`);
	});

	test('a rejected key surfaces as a failed execution with the node error', async () => {
		const run = await cli.execute('toyWfBad00000001');
		expect(run.ok).toBe(false);
		expect(run.exitCode).not.toBe(0);
		expect(run.error?.name).toBe('NodeApiError');
		expect(String(run.error?.httpCode)).toBe('401');
		expect(run.error?.description).toBe('Invalid API key');
	});

	describe('with n8n start', () => {
		let rest: N8nRest;

		withN8nServer(
			() => ({ userFolder, install: state.install }),
			(client) => (rest = client),
		);

		test('the community package is loaded at start-up', async () => {
			const nodes = await rest.nodeTypeNames();
			expect(nodes).toEqual(expect.arrayContaining([TOY_NODE, TOY_TRIGGER]));
			expect(await rest.credentialTypeNames()).toContain(TOY_CREDENTIAL);
		});

		test('credential test: good key OK, wrong key Error', async () => {
			expect(await rest.testCredential(CRED_GOOD)).toEqual({ status: 'OK', message: 'Connection successful!' });
			const bad = await rest.testCredential(CRED_BAD);
			expect(bad.status).toBe('Error');
		});

		test('manual run of the polling trigger returns its sample', async () => {
			const run = await rest.runFromTrigger(TRIGGER_WF.id, 'Toy Trigger');
			expect(run.ok).toBe(true);
			expect(run.items['Toy Trigger']).toEqual([{ ...TOY_ITEMS[0], sample: true }]);
		});
	});
});
