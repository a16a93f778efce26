/**
 * A small OpenAI-compatible chat model on loopback, for driving n8n's AI Agent without a real model:
 * POST /v1/chat/completions (non-streaming, as `n8n execute` asks) answers with what `reply` returns
 * for the conversation so far, and GET /v1/models lists one model. Every request body is kept, so a
 * test can assert what n8n sent (the tools offered, the tool results).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: ToolCall[];
	tool_call_id?: string;
}

export interface ToolCall {
	id: string;
	type: 'function';
	function: { name: string; arguments: string };
}

export interface ChatTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: ChatTool[];
	stream?: boolean;
	[key: string]: unknown;
}

/** What the model says next: a text, or tool calls. */
export type Reply = { text: string } | { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> };

export interface FakeOpenAi {
	/** Base URL as the OpenAI credential's `url` field wants it (with /v1). */
	url: string;
	requests: ChatRequest[];
	close(): Promise<void>;
}

export const FAKE_MODEL = 'fake-tool-caller';

/** The text of a message (string content or content parts). */
export function textOf(message: ChatMessage): string {
	if (typeof message.content === 'string') return message.content;
	if (Array.isArray(message.content)) return message.content.map((part) => part.text ?? '').join('');
	return '';
}

export async function startFakeOpenAi(reply: (request: ChatRequest) => Reply): Promise<FakeOpenAi> {
	const requests: ChatRequest[] = [];
	let calls = 0;
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const send = (status: number, body: unknown) => {
				res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
			};
			const path = (req.url ?? '').split('?')[0];
			if (req.method === 'GET' && path === '/v1/models') {
				send(200, { object: 'list', data: [{ id: FAKE_MODEL, object: 'model', created: 0, owned_by: 'test' }] });
				return;
			}
			if (req.method !== 'POST' || path !== '/v1/chat/completions') {
				send(404, { error: { message: `the fake model serves POST /v1/chat/completions, not ${req.method} ${path}` } });
				return;
			}
			let request: ChatRequest;
			try {
				request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
			} catch {
				send(400, { error: { message: 'invalid JSON' } });
				return;
			}
			requests.push(request);
			if (request.stream) {
				send(400, { error: { message: 'the fake model does not stream' } });
				return;
			}
			const answer = reply(request);
			const message =
				'text' in answer
					? { role: 'assistant', content: answer.text }
					: {
							role: 'assistant',
							content: null,
							tool_calls: answer.toolCalls.map((call, index) => ({
								id: `call_${++calls}_${index}`,
								type: 'function',
								function: { name: call.name, arguments: JSON.stringify(call.arguments) },
							})),
						};
			send(200, {
				id: `chatcmpl-${requests.length}`,
				object: 'chat.completion',
				created: Math.floor(Date.now() / 1000),
				model: request.model,
				choices: [{ index: 0, message, finish_reason: 'text' in answer ? 'stop' : 'tool_calls' }],
				usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/v1`,
		requests,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
