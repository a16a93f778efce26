/**
 * Both editions installed in one n8n (what a user who installs the Cloud edition and then the queue
 * edition gets): n8n loads both without complaint, both packages' nodes are there, the credential
 * type exists under one name with the same common fields (only the queue edition's has the Redis
 * fields), and one saved credential serves the nodes of both packages. A workflow moves between
 * editions by its node types' package prefix alone. And each edition alone in its n8n: a credential
 * saved with the other edition's fields works (what a user moving between editions brings along).
 */
import { installTarball } from '../../harness/n8n/communityPackage';
import { N8nCli } from '../../harness/n8n/cli';
import type { N8nRest } from '../../harness/n8n/rest';
import { makeUserFolder, type WorkflowImport } from '../../harness/n8n/workflows';
import { startSandbox, type Sandbox } from '../../sandbox';
import { withN8nServer } from './helpers/server';
import { loadState } from './helpers/state';

const CLOUD = 'n8n-nodes-booking-requests';
const QUEUE = 'n8n-nodes-booking-requests-queue';
const CRED_TYPE = 'bookingRequestsApi';
const CRED = { id: 'brCredBoth000001', name: 'Booking Requests (both editions)' };
/** The credential's fields in both editions, and the ones only the queue edition has. */
const COMMON_FIELDS = ['notice', 'apiKey', 'formatNotice', 'baseUrl', 'baseUrlSchemeNotice', 'baseUrlPathNotice'];
const QUEUE_ONLY_FIELDS = ['shareRateLimit', 'redisUrl', 'redisUrlNotice'];

/** Manual Trigger -> Booking Requests (of `pkg`) -> Get Many forms, limit 3. */
function formsWorkflow(id: string, pkg: string): WorkflowImport {
	return {
		id,
		name: `forms with ${pkg}`,
		nodes: [
			{ id: 'm1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'b1',
				name: 'Booking Requests',
				type: `${pkg}.bookingRequests`,
				typeVersion: 1,
				position: [220, 0],
				parameters: { resource: 'bookingForm', operation: 'getAll', returnAll: false, limit: 3 },
				credentials: { [CRED_TYPE]: CRED },
			},
		],
		connections: { Start: { main: [[{ node: 'Booking Requests', type: 'main', index: 0 }]] } },
	};
}

/** The same workflow for the other edition: only the node types' package prefix changes. */
function moved(workflow: WorkflowImport, id: string, from: string, to: string): WorkflowImport {
	return JSON.parse(JSON.stringify({ ...workflow, id, name: `${workflow.name} (moved)` }).split(`"${from}.`).join(`"${to}.`)) as WorkflowImport;
}

describe('both editions installed in one n8n', () => {
	const state = loadState();
	let sandbox: Sandbox;
	let cli: N8nCli;
	let userFolder: string;
	const cloudWorkflow = formsWorkflow('brBothCloud00001', CLOUD);
	const movedWorkflow = moved(cloudWorkflow, 'brBothMoved00001', CLOUD, QUEUE);

	beforeAll(async () => {
		if (!('tarball' in state.pack)) throw new Error(`the Cloud edition could not be built/packed:\n${state.pack.error}`);
		if (!('tarball' in state.queuePack)) throw new Error(`the queue edition could not be built/packed:\n${state.queuePack.error}`);
		sandbox = await startSandbox({ port: 0, seed: 7, sizes: { forms: 5 } });
		userFolder = makeUserFolder(state.workDir);
		expect((await installTarball(userFolder, state.pack.tarball)).name).toBe(CLOUD);
		expect((await installTarball(userFolder, state.queuePack.tarball)).name).toBe(QUEUE);
		cli = new N8nCli(state.install, userFolder);
		await cli.importCredentials([{ ...CRED, type: CRED_TYPE, data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } }]);
		await cli.importWorkflows([cloudWorkflow, movedWorkflow]);
	});

	afterAll(async () => {
		await sandbox?.close();
	});

	test('one saved credential runs the nodes of both packages; the moved workflow gives the same items', async () => {
		const cloud = await cli.execute(cloudWorkflow.id);
		const queue = await cli.execute(movedWorkflow.id);
		expect(cloud.ok).toBe(true);
		expect(queue.ok).toBe(true);
		expect(cloud.items['Booking Requests']).toHaveLength(3);
		expect(queue.items['Booking Requests']).toEqual(cloud.items['Booking Requests']);
		expect(movedWorkflow.nodes[1].type).toBe(`${QUEUE}.bookingRequests`);
	});

	describe('with n8n start (what the editor sees)', () => {
		let rest: N8nRest;
		withN8nServer(
			() => ({ userFolder, install: state.install }),
			(client) => (rest = client),
		);

		test('both packages\' nodes are loaded, the credential type is one name, and its Test works', async () => {
			const nodes = await rest.nodeTypeNames();
			for (const pkg of [CLOUD, QUEUE]) expect(nodes).toEqual(expect.arrayContaining([`${pkg}.bookingRequests`, `${pkg}.bookingRequestsTrigger`]));
			// n8n lists each package's definition under the one name and uses the one loaded last: they are
			// the same (apart from which package's nodes n8n says support it, and where each icon is served).
			const definitions = (await rest.credentialTypes()).filter((type) => type.name === CRED_TYPE);
			// eslint-disable-next-line no-console
			console.log(`[both editions] ${definitions.length} definition(s) of ${CRED_TYPE}, supported nodes: ${JSON.stringify(definitions.map((d) => d.supportedNodes))}`);
			expect(definitions.length).toBeGreaterThanOrEqual(1);
			// the queue edition's adds its Redis fields after the common ones (the Cloud edition's has none)
			const withoutNodes = definitions.map(({ supportedNodes: _nodes, iconUrl: _icon, properties, ...rest }) => ({
				...rest,
				properties: ((properties ?? []) as Array<{ name: string }>).filter((property) => !QUEUE_ONLY_FIELDS.includes(property.name)),
			}));
			for (const definition of withoutNodes) expect(definition).toEqual(withoutNodes[0]);
			// (n8n adds fields of its own after a credential's: allowedHttpRequestDomains, allowedDomains)
			expect(withoutNodes[0].properties.map((property) => property.name).slice(0, COMMON_FIELDS.length)).toEqual(COMMON_FIELDS);
			expect(await rest.testCredential({ ...CRED, type: CRED_TYPE })).toEqual({ status: 'OK', message: 'Connection successful!' });
		});
	});

	describe('a credential carries over between editions (each edition alone in its n8n)', () => {
		/** A fresh n8n user folder with one edition, the credential as `data`, and the forms workflow of that edition. */
		async function aloneWith(tarball: string, pkg: string, id: string, data: Record<string, unknown>): Promise<{ cli: N8nCli; workflow: WorkflowImport }> {
			const folder = makeUserFolder(state.workDir);
			expect((await installTarball(folder, tarball)).name).toBe(pkg);
			const alone = new N8nCli(state.install, folder);
			await alone.importCredentials([{ ...CRED, type: CRED_TYPE, data }]);
			const workflow = formsWorkflow(id, pkg);
			await alone.importWorkflows([workflow]);
			return { cli: alone, workflow };
		}

		test('saved with the queue edition (sharing through a Redis that is not there): the Cloud edition runs with it and never uses the Redis', async () => {
			if (!('tarball' in state.pack)) throw new Error('no Cloud tarball');
			// nothing listens on port 1: a Cloud edition that used the Redis URL would fail or stall
			const saved = { apiKey: sandbox.keys.demo, baseUrl: sandbox.url, shareRateLimit: true, redisUrl: 'redis://:s3cret@127.0.0.1:1/0' };
			const { cli: cloudOnly, workflow } = await aloneWith(state.pack.tarball, CLOUD, 'brCarryCloud0001', saved);
			const run = await cloudOnly.execute(workflow.id);
			expect(run.error).toBeUndefined();
			expect(run.items['Booking Requests']).toHaveLength(3);
		});

		test('saved with the Cloud edition (key and Base URL only): the queue edition runs with it, not shared (the toggle\'s default)', async () => {
			if (!('tarball' in state.queuePack)) throw new Error('no queue tarball');
			const saved = { apiKey: sandbox.keys.demo, baseUrl: sandbox.url };
			const { cli: queueOnly, workflow } = await aloneWith(state.queuePack.tarball, QUEUE, 'brCarryQueue0001', saved);
			const run = await queueOnly.execute(workflow.id);
			expect(run.error).toBeUndefined();
			expect(run.items['Booking Requests']).toHaveLength(3);
		});
	});
});
