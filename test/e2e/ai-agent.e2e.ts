/**
 * The AI Agent tool use, proven in a real n8n: n8n's AI Agent node, with its OpenAI Chat Model node
 * pointed at a small OpenAI-compatible fake model on loopback (helpers/fakeOpenAi.ts), calls this
 * package's node as a tool ("Booking Requests Tool", `usableAsTool`) and gets sandbox data back.
 *
 * The fake model answers the first turn with a tool call to the Booking Requests tool (arguments
 * chosen here), and the second with a text built from the tool's result. Asserted: the tool n8n
 * offered the model (name and JSON schema from the `$fromAI` parameters), the arguments the tool node
 * ran with (its run data), the calls at the sandbox, and the agent's final answer.
 */
import { installTarball } from '../../harness/n8n/communityPackage';
import { N8nCli } from '../../harness/n8n/cli';
import { makeUserFolder, type ExecutionResult, type WorkflowImport } from '../../harness/n8n/workflows';
import { sortSessions, startSandbox, type Sandbox } from '../../sandbox';
import { FAKE_MODEL, startFakeOpenAi, textOf, type ChatRequest, type FakeOpenAi, type Reply } from './helpers/fakeOpenAi';
import { loadState } from './helpers/state';

const PKG = 'n8n-nodes-booking-requests';
const TOOL_NODE = 'Booking Requests';
/** What the model sees: the node's name with `_` for spaces. */
const TOOL_NAME = 'Booking_Requests';
const AGENT = 'AI Agent';
const CRED = { id: 'brCredAgent00001', name: 'Booking Requests (sandbox)' };
const OPENAI_CRED = { id: 'openAiFake000001', name: 'Fake OpenAI' };
const ARGUMENTS = { limit: 3, status: 'abandoned' };
const QUESTION = 'Which customers left a booking unfinished most recently? Give me their e-mail addresses.';

const EMAIL_RE = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/** First turn: call the tool. Second turn (a tool result is in the conversation): answer from it. */
function reply(request: ChatRequest): Reply {
	const toolResult = request.messages.find((message) => message.role === 'tool');
	if (!toolResult) return { toolCalls: [{ name: TOOL_NAME, arguments: ARGUMENTS }] };
	const emails = [...new Set(textOf(toolResult).match(EMAIL_RE) ?? [])];
	return { text: `These customers left a booking unfinished: ${emails.join(', ')}.` };
}

/** AI Agent 3.1 on n8n 2.x; n8n 1.x (1.123) has 3.0. */
function agentWorkflow(
	agentVersion: number,
	tool: Record<string, unknown> = {
		resource: 'bookingSession',
		operation: 'getAll',
		returnAll: false,
		limit: "={{ $fromAI('limit', 'How many sessions to return, newest first', 'number') }}",
		filters: { status: "={{ $fromAI('status', 'Which sessions: abandoned, completed or all', 'string') }}" },
	},
	id = 'brAgentTool00001',
	question = QUESTION,
): WorkflowImport {
	return {
		id,
		name: 'e2e AI Agent with the Booking Requests tool',
		settings: { executionOrder: 'v1' },
		nodes: [
			{ id: 'm1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'a1',
				name: AGENT,
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: agentVersion,
				position: [220, 0],
				parameters: { promptType: 'define', text: question, options: {} },
			},
			{
				id: 'l1',
				name: 'OpenAI Chat Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.3,
				position: [160, 220],
				parameters: { model: { __rl: true, mode: 'id', value: FAKE_MODEL }, responsesApiEnabled: false, options: {} },
				credentials: { openAiApi: OPENAI_CRED },
			},
			{
				id: 't1',
				name: TOOL_NODE,
				type: `${PKG}.bookingRequestsTool`,
				typeVersion: 1,
				position: [380, 220],
				parameters: tool,
				credentials: { bookingRequestsApi: CRED },
			},
		],
		connections: {
			Start: { main: [[{ node: AGENT, type: 'main', index: 0 }]] },
			'OpenAI Chat Model': { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] },
			[TOOL_NODE]: { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] },
		},
	};
}

interface ToolRun {
	inputOverride?: { ai_tool?: Array<Array<{ json: Record<string, unknown> }>> };
	data?: { ai_tool?: Array<Array<{ json: Record<string, unknown> }>> };
	error?: { message: string };
}

describe('AI Agent with the Booking Requests node as a tool (real n8n, fake model)', () => {
	const state = loadState();
	let sandbox: Sandbox;
	let model: FakeOpenAi;
	let run: ExecutionResult;

	beforeAll(async () => {
		if (!('tarball' in state.pack)) throw new Error(`the package could not be built/packed:\n${state.pack.error}`);
		sandbox = await startSandbox({ port: 0, seed: 42, sizes: { requests: 40, sessions: 60 } });
		model = await startFakeOpenAi(reply);
		const userFolder = makeUserFolder(state.workDir, 'n8n-agent-');
		await installTarball(userFolder, state.pack.tarball);
		const cli = new N8nCli(state.install, userFolder);
		await cli.importCredentials([
			{ ...CRED, type: 'bookingRequestsApi', data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } },
			{ ...OPENAI_CRED, type: 'openAiApi', data: { apiKey: 'sk-fake-key-for-tests', url: model.url } },
		]);
		const major = Number(String(state.install.version).split('.')[0]);
		await cli.importWorkflows([agentWorkflow(major >= 2 ? 3.1 : 3)]);
		sandbox.clearLog();
		run = await cli.execute('brAgentTool00001');
		const runData = (run.raw as { data: { resultData: { runData: Record<string, ToolRun[]> } } }).data.resultData.runData;
		// eslint-disable-next-line no-console
		console.log(
			`[AI Agent run]\n` +
				`tool offered: ${JSON.stringify(model.requests[0]?.tools?.map((tool) => tool.function), null, 2)}\n` +
				`tool arguments (run data): ${JSON.stringify(runData[TOOL_NODE]?.[0]?.inputOverride?.ai_tool?.[0]?.[0]?.json)}\n` +
				`calls at the sandbox: ${JSON.stringify(sandbox.log.map((entry) => `${entry.method} ${entry.path}?${new URLSearchParams(entry.query).toString()} -> ${entry.status}`))}\n` +
				`final answer: ${JSON.stringify(run.items[AGENT]?.[0]?.output)}`,
		);
	});

	afterAll(async () => {
		await model?.close();
		await sandbox?.close();
	});

	test('the workflow runs to the end', () => {
		expect(run.error).toBeUndefined();
		expect(run.nodeErrors).toEqual({});
		expect(run.ok).toBe(true);
	});

	test('n8n offers the node to the model as a tool with a JSON schema from its $fromAI parameters', () => {
		expect(model.requests).toHaveLength(2);
		const first = model.requests[0];
		expect(first.model).toBe(FAKE_MODEL);
		expect(first.stream).toBeFalsy();
		expect(first.messages.map(textOf).join('\n')).toContain(QUESTION);
		const tool = first.tools?.find((candidate) => candidate.function.name === TOOL_NAME);
		expect(tool).toBeDefined();
		expect(tool!.function.description).toEqual(expect.any(String));
		const schema = tool!.function.parameters as { properties: Record<string, { type: string; description?: string }>; required?: string[] };
		expect(schema.properties.limit).toMatchObject({ type: 'number', description: 'How many sessions to return, newest first' });
		expect(schema.properties.status).toMatchObject({ type: 'string', description: 'Which sessions: abandoned, completed or all' });
	});

	test("the tool node ran with the model's arguments", () => {
		const runData = (run.raw as { data: { resultData: { runData: Record<string, ToolRun[]> } } }).data.resultData.runData;
		const toolRuns = runData[TOOL_NODE];
		expect(toolRuns).toHaveLength(1);
		expect(toolRuns[0].error).toBeUndefined();
		expect(toolRuns[0].inputOverride?.ai_tool?.[0]?.[0]?.json).toMatchObject(ARGUMENTS);
	});

	test('the sandbox saw one page read of the session list with the demo key', () => {
		expect(sandbox.log.map((entry) => [entry.method, entry.path, entry.query.page, entry.status])).toEqual([['GET', '/api/v1/abandoned-sessions', '1', 200]]);
	});

	test('the tool result carried the 3 newest abandoned sessions (simplified), and the final answer names their e-mails', () => {
		const expected = sortSessions(sandbox.workspace().sessions.filter((session) => session.request_id === null)).slice(0, 3);
		const toolMessage = model.requests[1].messages.find((message) => message.role === 'tool');
		expect(toolMessage).toBeDefined();
		const content = textOf(toolMessage!);
		for (const session of expected) expect(content).toContain(session.id);
		expect(content).toContain('"status":"abandoned"');
		const emails = expected.map((session) => session.data.contact?.email).filter((email): email is string => typeof email === 'string');
		expect(emails.length).toBeGreaterThan(0);
		expect(run.items[AGENT]).toEqual([{ output: `These customers left a booking unfinished: ${emails.join(', ')}.` }]);
	});
});

describe('AI Agent with Booking Request → Find by Customer as a tool (real n8n, fake model)', () => {
	const state = loadState();
	const FIND_QUESTION = 'Has Ann Lee (Ann.Lee@Example.com) booked with us this month?';
	const FIND_ARGUMENTS = { email: ' Ann.Lee@Example.com' };
	let sandbox: Sandbox;
	let model: FakeOpenAi;
	let run: ExecutionResult;
	let booking: { id: string };

	beforeAll(async () => {
		if (!('tarball' in state.pack)) throw new Error(`the package could not be built/packed:\n${state.pack.error}`);
		sandbox = await startSandbox({ port: 0, seed: 42, sizes: { requests: 40, sessions: 20 } });
		booking = sandbox.addRequest({ first_name: 'Ann', last_name: 'Lee', email: 'ann.lee@example.com', phone: '+15125550199' });
		model = await startFakeOpenAi((request) => {
			const toolResult = request.messages.find((message) => message.role === 'tool');
			if (!toolResult) return { toolCalls: [{ name: TOOL_NAME, arguments: FIND_ARGUMENTS }] };
			const ids = [...new Set(textOf(toolResult).match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [])];
			return { text: ids.length ? `Yes: booking request ${ids[0]}.` : 'No booking found.' };
		});
		const userFolder = makeUserFolder(state.workDir, 'n8n-agent-find-');
		await installTarball(userFolder, state.pack.tarball);
		const cli = new N8nCli(state.install, userFolder);
		await cli.importCredentials([
			{ ...CRED, type: 'bookingRequestsApi', data: { apiKey: sandbox.keys.demo, baseUrl: sandbox.url } },
			{ ...OPENAI_CRED, type: 'openAiApi', data: { apiKey: 'sk-fake-key-for-tests', url: model.url } },
		]);
		const major = Number(String(state.install.version).split('.')[0]);
		const tool = {
			resource: 'bookingRequest',
			operation: 'findByCustomer',
			email: "={{ $fromAI('email', 'The customer\\'s e-mail address', 'string') }}",
			returnAll: false,
			limit: 5,
		};
		await cli.importWorkflows([agentWorkflow(major >= 2 ? 3.1 : 3, tool, 'brAgentFind00001', FIND_QUESTION)]);
		sandbox.clearLog();
		run = await cli.execute('brAgentFind00001');
		// eslint-disable-next-line no-console
		console.log(
			`[AI Agent run, Find by Customer]\ntool offered: ${JSON.stringify(model.requests[0]?.tools?.map((t) => t.function), null, 2)}\n` +
				`final answer: ${JSON.stringify(run.items[AGENT]?.[0]?.output)}`,
		);
	});

	afterAll(async () => {
		await model?.close();
		await sandbox?.close();
	});

	test('the model is offered the tool with a plain description and an e-mail parameter, and finds the booking', () => {
		expect(run.ok).toBe(true);
		const tool = model.requests[0].tools?.find((candidate) => candidate.function.name === TOOL_NAME);
		expect(tool?.function.description).toContain("Find a customer's booking requests by e-mail or phone");
		const schema = tool!.function.parameters as { properties: Record<string, { type: string; description?: string }> };
		expect(schema.properties.email).toMatchObject({ type: 'string', description: "The customer's e-mail address" });
		// the address as the model wrote it (space, capitals) matches the request; one read of the request list
		expect(sandbox.log.map((entry) => [entry.path, entry.query.page, entry.query.per_page, entry.status])).toEqual([['/api/v1/requests', '1', '100', 200]]);
		expect(run.items[AGENT]).toEqual([{ output: `Yes: booking request ${booking.id}.` }]);
	});
});
