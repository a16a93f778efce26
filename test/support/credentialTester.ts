/**
 * The credential's Test button as n8n runs a declarative `test` (n8n 2.40.7 and 2.41.1,
 * packages/cli/src/services/credentials-tester.service.ts `runRequestTest`; 2.41.1 also answers the
 * node's getDecrypted with the data under test, as the harness's credentials helper here does): the test request becomes
 * the routing of a throw-away node, run by n8n-core's own RoutingNode in a real ExecuteContext with the
 * credential's `authenticate` applied; then the same verdict: a `responseCode` rule for an HTTP error,
 * the error's `cause.code` for a network failure, `responseSuccessBody` rules on the body, else OK.
 * The end-to-end suite checks the same answers in a real n8n.
 */
import { ExecuteContext, RoutingNode } from 'n8n-core';
import type { ICredentialsDecrypted, ICredentialTestRequest, INode, INodeCredentialTestResult, INodeType, INodeTypes } from 'n8n-workflow';
import { createEmptyRunExecutionData, Workflow } from 'n8n-workflow';

import { BookingRequestsApi } from '../../credentials/BookingRequestsApi.credentials';
import { createHarness, type TestCredentials } from '../../harness/inProcessN8n';

const PROBE_TYPE = 'test.credentialProbe';

function get(value: unknown, key: string): unknown {
	return key.split('.').reduce<unknown>((at, part) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined), value);
}

export async function pressTest(data: TestCredentials): Promise<INodeCredentialTestResult> {
	const credential = new BookingRequestsApi();
	const testRequest = credential.test as ICredentialTestRequest;
	const harness = createHarness(data);
	const probe: INodeType = {
		description: {
			displayName: 'Temp',
			name: PROBE_TYPE,
			group: ['transform'],
			version: 1,
			description: '',
			defaults: { name: 'Temp-Node' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: credential.name, required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: testRequest.request }, default: '' }],
		},
	};
	const nodeTypes: INodeTypes = {
		getByName: () => probe,
		getByNameAndVersion: () => probe,
		getKnownTypes: () => ({}),
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: PROBE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credential.name]: { id: 'c1', name: 'My Booking Requests' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const context = new ExecuteContext(
		workflow,
		node,
		harness.additionalData,
		'internal',
		createEmptyRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const decrypted: ICredentialsDecrypted = { id: 'c1', name: 'My Booking Requests', type: credential.name, data: { ...data } };
	let response;
	try {
		response = await new RoutingNode(context, probe, decrypted).runNode();
	} catch (error) {
		const failure = error as Error & { cause?: { response?: { status: number; statusText?: string }; code?: string } };
		if (failure.cause?.response) {
			const { status, statusText } = failure.cause.response;
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === status) return { status: 'Error', message: rule.properties.message };
			}
			if (status < 199 || status > 299) return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
		} else if (failure.cause?.code) {
			return { status: 'Error', message: failure.cause.code };
		}
		return { status: 'Error', message: String(failure.message) };
	}
	for (const rule of testRequest.rules ?? []) {
		if (rule.type === 'responseSuccessBody' && get(response?.[0]?.[0]?.json, rule.properties.key) === rule.properties.value) {
			return { status: 'Error', message: rule.properties.message };
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}
