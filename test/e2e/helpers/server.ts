import { N8nRest } from '../../../harness/n8n/rest';
import type { N8nInstall } from '../../../harness/n8n/install';
import type { N8nServer } from '../../../harness/n8n/server';
import { startN8n } from '../../../harness/n8n/server';

/**
 * `n8n start` for the tests of one describe block, with the owner account set up so the REST API
 * (what the editor uses) answers; stopped after the block. `where` is read when the block starts,
 * so it may name a user folder made in an outer beforeAll.
 */
export function withN8nServer(
	where: () => { userFolder: string; install: N8nInstall },
	use: (rest: N8nRest) => void,
): void {
	let server: N8nServer | undefined;
	beforeAll(async () => {
		const { userFolder, install } = where();
		server = await startN8n({ userFolder, install });
		const rest = new N8nRest(server.url, install);
		await rest.setupOwner();
		use(rest);
	});
	afterAll(async () => {
		await server?.stop();
	});
}
