/**
 * Runs this package's nodes inside n8n's real execution engine (n8n-core), in process, against a
 * real HTTP server. Only the credential store is ours: an ICredentialsHelper that holds decrypted
 * credentials in memory and applies the credential type's generic `authenticate` block with
 * n8n-workflow's own expression engine, as n8n's CLI does.
 */
import 'reflect-metadata';

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { envOverride } from './env';

if (!envOverride('N8N_USER_FOLDER')) {
	process.env.N8N_USER_FOLDER = mkdtempSync(path.join(tmpdir(), 'n8n-harness-'));
}

// eslint-disable-next-line import/first
import { ExecutionLifecycleHooks, LoadOptionsContext, PollContext, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers, Workflow } from 'n8n-workflow';

import { BookingRequestsApi } from '../credentials/BookingRequestsApi.credentials';
import { BookingRequests } from '../nodes/BookingRequests/BookingRequests.node';
import { BookingRequestsTrigger } from '../nodes/BookingRequestsTrigger/BookingRequestsTrigger.node';

export const ACTION_TYPE = 'n8n-nodes-booking-requests.bookingRequests';
export const TRIGGER_TYPE = 'n8n-nodes-booking-requests.bookingRequestsTrigger';
const INPUT_TYPE = 'test.input';

/** Emits the items given in its `items` parameter: stands in for whatever feeds the node under test. */
class InputNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Input',
		name: INPUT_TYPE,
		group: ['input'],
		version: 1,
		description: 'Emits fixed items',
		defaults: { name: 'Input' },
		inputs: [],
		outputs: ['main'],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | IDataObject[];
		const items = (typeof raw === 'string' ? JSON.parse(raw) : raw) as IDataObject[];
		return [items.map((json) => ({ json }))];
	}
}

class TestNodeTypes implements INodeTypes {
	private readonly types: Record<string, INodeType> = {
		[ACTION_TYPE]: new BookingRequests(),
		[TRIGGER_TYPE]: new BookingRequestsTrigger(),
		[INPUT_TYPE]: new InputNode(),
	};

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(nodeType);
	}

	getByNameAndVersion(nodeType: string): INodeType {
		const found = this.types[nodeType];
		if (!found) throw new Error(`Unknown node type ${nodeType}`);
		return found;
	}

	getKnownTypes() {
		return {};
	}
}

const CREDENTIAL_TYPES: Record<string, ICredentialType> = { bookingRequestsApi: new BookingRequestsApi() };

export interface TestCredentials {
	apiKey: string;
	baseUrl: string;
	/** Other fields, e.g. the toggle `shareRateLimit` (the Redis URL counts only when it is true) and `redisUrl`. */
	[key: string]: string | boolean;
}

class MemoryCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly credentials: () => TestCredentials) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const type = CREDENTIAL_TYPES[typeName];
		const options = requestOptions as IHttpRequestOptions;
		const authenticate = type?.authenticate;
		if (!authenticate || typeof authenticate === 'function' || authenticate.type !== 'generic') return options;
		for (const [outerKey, pairs] of Object.entries(authenticate.properties)) {
			const target = ((options as unknown as Record<string, IDataObject | undefined>)[outerKey] ??= {});
			for (const [key, value] of Object.entries(pairs as Record<string, string>)) {
				target[key] = this.resolve(value, credentials, workflow, node);
			}
		}
		return options;
	}

	/** What n8n's CLI does: a value starting with "=" is an expression that sees `$credentials`. */
	resolve(value: string, credentials: ICredentialDataDecryptedObject, workflow?: Workflow, node?: INode): string {
		if (typeof value !== 'string' || !value.startsWith('=') || !workflow || !node) return value;
		return String(
			workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials } as never, undefined, ''),
		);
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(_helpers: IHttpRequestHelper): Promise<undefined> {
		return undefined;
	}

	async getCredentials(_details: INodeCredentialsDetails, _type: string): Promise<ICredentials> {
		throw new Error('not used');
	}

	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return { ...this.credentials() };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return CREDENTIAL_TYPES[type]?.properties ?? [];
	}
}

export interface Harness {
	/** Credentials used by the next call; tests may change them (e.g. a revoked key). */
	credentials: TestCredentials;
	credentialsHelper: MemoryCredentialsHelper;
	additionalData: IWorkflowExecuteAdditionalData;
	nodeTypes: INodeTypes;
	/** Runs Input → Booking Requests once, in a real WorkflowExecute. */
	runAction(parameters: INodeParameters, options?: RunOptions): Promise<ActionResult>;
	/**
	 * Runs the trigger's `poll` once in a real PollContext. Static data is read from and written to
	 * `state`. `budgetMs` is what the context's `getPollBudgetMs()` answers (n8n's default: 5 minutes);
	 * `noBudget` removes the method, as on n8n 1.x.
	 */
	poll(parameters: INodeParameters, state: PollState, mode?: 'trigger' | 'manual', options?: PollOptions): Promise<INodeExecutionData[][] | null>;
	/** A real n8n LoadOptionsContext with the credential, for calling the transport directly. */
	context(): LoadOptionsContext;
	/** Calls a list-search method in a real LoadOptionsContext. */
	listSearch(method: string, filter?: string, nodeType?: string, parameters?: INodeParameters): Promise<INodeListSearchResult>;
}

export interface RunOptions {
	input?: IDataObject[];
	continueOnFail?: boolean;
}

export interface ActionResult {
	items: INodeExecutionData[];
	error?: Error & { description?: string; httpCode?: string; context?: IDataObject };
	run: IRun;
}

export interface PollOptions {
	budgetMs?: number;
	noBudget?: boolean;
	/** The trigger node's typeVersion (default 1, the version existing workflows hold; new nodes get 1.1). */
	typeVersion?: number;
}

/** Static data of one trigger node across polls, as n8n stores it per workflow. */
export interface PollState {
	staticData: IDataObject;
}

function buildAdditionalData(helper: MemoryCredentialsHelper): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: helper,
		executeWorkflow: async () => {
			throw new Error('not used');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678',
		formBaseUrl: 'http://localhost:5678/form',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		formTestBaseUrl: 'http://localhost:5678/form-test',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		mcpBaseUrl: 'http://localhost:5678/mcp',
		mcpTestBaseUrl: 'http://localhost:5678/mcp-test',
		variables: {},
		userId: 'test-user',
	} as unknown as IWorkflowExecuteAdditionalData;
}

let executionCounter = 0;

const CREDENTIAL_REF = { bookingRequestsApi: { id: 'cred-1', name: 'Booking Requests (test)' } };

function nodeOf(name: string, type: string, parameters: INodeParameters, position: [number, number], extra: Partial<INode> = {}): INode {
	return { id: name, name, type, typeVersion: 1, position, parameters, ...extra };
}

export function createHarness(credentials: TestCredentials): Harness {
	const nodeTypes = new TestNodeTypes();
	const harness = {
		credentials,
	} as Harness;
	const helper = new MemoryCredentialsHelper(() => harness.credentials);
	const additionalData = buildAdditionalData(helper);
	harness.credentialsHelper = helper;
	harness.additionalData = additionalData;
	harness.nodeTypes = nodeTypes;

	harness.runAction = async (parameters, options = {}) => {
		const input = nodeOf('Input', INPUT_TYPE, { items: JSON.stringify(options.input ?? [{}]) }, [0, 0]);
		const action = nodeOf('Booking Requests', ACTION_TYPE, parameters, [200, 0], {
			credentials: CREDENTIAL_REF,
			continueOnFail: options.continueOnFail ?? false,
			onError: options.continueOnFail ? 'continueRegularOutput' : 'stopWorkflow',
		});
		// Resolve defaults like the editor does, so tests pass only what a user would change.
		const description = nodeTypes.getByNameAndVersion(ACTION_TYPE).description;
		action.parameters = NodeHelpers.getNodeParameters(description.properties, action.parameters, true, false, action, description) ?? {};
		const workflow = new Workflow({
			id: 'wf-test',
			nodes: [input, action],
			connections: { Input: { main: [[{ node: 'Booking Requests', type: 'main', index: 0 }]] } },
			active: false,
			nodeTypes,
		});
		const runData = {
			...additionalData,
			executionId: `exec-${++executionCounter}`,
			hooks: new ExecutionLifecycleHooks('manual', `exec-${executionCounter}`, {
				id: workflow.id,
				name: 'test',
				active: false,
				activeVersionId: null,
				isArchived: false,
				nodes: workflow.nodes ? Object.values(workflow.nodes) : [],
				connections: {},
				createdAt: new Date(),
				updatedAt: new Date(),
			} as never),
		} as IWorkflowExecuteAdditionalData;
		const run = await new WorkflowExecute(runData, 'manual').run({ workflow, startNode: input });
		const taskData = run.data.resultData.runData['Booking Requests']?.[0];
		return {
			items: taskData?.data?.main?.[0] ?? [],
			error: (taskData?.error ?? run.data.resultData.error) as ActionResult['error'],
			run,
		};
	};

	harness.poll = async (parameters, state, mode = 'trigger', options = {}) => {
		const trigger = nodeOf('Booking Requests Trigger', TRIGGER_TYPE, parameters, [0, 0], { credentials: CREDENTIAL_REF, typeVersion: options.typeVersion ?? 1 });
		const description = nodeTypes.getByNameAndVersion(TRIGGER_TYPE).description;
		trigger.parameters = NodeHelpers.getNodeParameters(description.properties, trigger.parameters, true, false, trigger, description) ?? {};
		const workflow = new Workflow({
			id: 'wf-trigger',
			nodes: [trigger],
			connections: {},
			active: mode === 'trigger',
			nodeTypes,
			staticData: state.staticData,
		});
		const executeMode: WorkflowExecuteMode = mode;
		// PollContext's last argument is the poll budget getter (n8n 2.40); undefined keeps n8n's default.
		const budget = options.budgetMs === undefined ? undefined : () => options.budgetMs as number;
		const activation = mode === 'manual' ? 'manual' : 'activate';
		const context = new PollContext(workflow, trigger, additionalData, executeMode, activation, undefined, undefined, undefined, undefined, undefined, budget);
		if (options.noBudget) Object.defineProperty(context, 'getPollBudgetMs', { value: undefined });
		const type = nodeTypes.getByNameAndVersion(TRIGGER_TYPE);
		const result = await type.poll!.call(context);
		// n8n persists static data only when it changed; the caller decides whether to keep it.
		state.staticData = workflow.staticData;
		return result;
	};

	harness.context = () => {
		const node = nodeOf('Node', ACTION_TYPE, {}, [0, 0], { credentials: CREDENTIAL_REF });
		const workflow = new Workflow({ id: 'wf-ctx', nodes: [node], connections: {}, active: false, nodeTypes });
		return new LoadOptionsContext(workflow, node, additionalData, 'parameters');
	};

	harness.listSearch = async (method, filter, nodeType = ACTION_TYPE, parameters = {}) => {
		const node = nodeOf('Node', nodeType, parameters, [0, 0], { credentials: CREDENTIAL_REF });
		const workflow = new Workflow({ id: 'wf-ls', nodes: [node], connections: {}, active: false, nodeTypes });
		const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters');
		const type = nodeTypes.getByNameAndVersion(nodeType);
		const fn = type.methods?.listSearch?.[method];
		if (!fn) throw new Error(`No list search ${method} on ${nodeType}`);
		return await fn.call(context, filter);
	};

	return harness;
}
