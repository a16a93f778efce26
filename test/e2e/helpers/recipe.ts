/**
 * A recipe of examples/ in a real n8n, as an agency sets it up: a fresh user folder with the packed
 * package, one credential for the sandbox's demo key, the example imported, n8n started with its
 * owner set up (the REST API answers). `recipe.stop()` stops n8n.
 */
import * as path from 'node:path';

import { installTarball } from '../../../harness/n8n/communityPackage';
import { N8nCli } from '../../../harness/n8n/cli';
import { N8nRest } from '../../../harness/n8n/rest';
import { startN8n } from '../../../harness/n8n/server';
import { loadExampleWorkflows, makeUserFolder, type ExampleWorkflow } from '../../../harness/n8n/workflows';
import type { Sandbox } from '../../../sandbox';
import type { E2eState } from './state';

export interface Recipe {
	example: ExampleWorkflow;
	rest: N8nRest;
	stop(): Promise<void>;
}

export async function startRecipe(state: E2eState, sandbox: Sandbox, file: string, credential: { id: string; name: string }): Promise<Recipe> {
	if (!('tarball' in state.pack)) throw new Error(`the package could not be built/packed:\n${state.pack.error}`);
	const userFolder = makeUserFolder(state.workDir, `${path.basename(file, '.json')}-`);
	await installTarball(userFolder, state.pack.tarball);
	const cli = new N8nCli(state.install, userFolder);
	await cli.importCredentials([{ ...credential, type: 'bookingRequestsApi', data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } }]);
	const example = loadExampleWorkflows(path.join(state.repoDir, 'examples'), credential).find((e) => e.file === file);
	if (!example) throw new Error(`examples/${file} is missing`);
	await cli.importWorkflows([example.workflow]);
	const server = await startN8n({ userFolder, install: state.install });
	const rest = new N8nRest(server.url, state.install);
	await rest.setupOwner();
	return { example, rest, stop: async () => await server.stop() };
}
