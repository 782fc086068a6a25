/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Stands in for OpenAI's chat completions API (`POST /v1/chat/completions`) in end-to-end runs:
 * an HTTP server on 127.0.0.1 that answers each request with the next scripted turn (tool calls,
 * or a final text) and records what it was sent, so that a test sees exactly what n8n's AI Agent
 * tells a model: the tools with their names, descriptions and parameter schemas, and every tool
 * result. No model, no network. n8n reaches it through the OpenAI credential's Base URL
 * (`http://127.0.0.1:<port>/v1`).
 *
 * Answers as OpenAI does, as one JSON body or, when the request asks to stream, as server-sent
 * chunks ending in `data: [DONE]`.
 */
import http from 'http';
import type { AddressInfo } from 'net';

/** A tool as the request's `tools` list carries it. */
export interface ChatTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: JsonSchema };
}

export interface JsonSchema {
	type?: string;
	description?: string;
	properties?: Record<string, JsonSchema>;
	required?: string[];
	[key: string]: unknown;
}

export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content?: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: Array<{
		id: string;
		type: 'function';
		function: { name: string; arguments: string };
	}>;
	tool_call_id?: string;
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: ChatTool[];
	stream?: boolean;
	[key: string]: unknown;
}

/** What the stand-in got: the parsed body, and the body as sent (to search it for secrets). */
export interface RecordedRequest {
	method: string;
	path: string;
	headers: http.IncomingHttpHeaders;
	raw: string;
	body?: ChatRequest;
}

/** One scripted answer: tool calls for the agent to run, or the final text. */
export type Turn =
	{ toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> } | { content: string };

/** The script: the next turn, given the request (and its number, from 0). */
export type Script = (request: ChatRequest, index: number) => Turn;

export class OpenAiStandIn {
	readonly requests: RecordedRequest[] = [];
	private calls = 0;
	private server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => this.answer(req, res, Buffer.concat(chunks).toString('utf8')));
	});

	constructor(private readonly script: Script) {}

	/** Listens on 127.0.0.1 and a free port; resolves to the Base URL for the credential. */
	async start(): Promise<string> {
		await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
	}

	/** The chat completion requests, in order. */
	get chats(): ChatRequest[] {
		return this.requests.flatMap((request) => (request.body ? [request.body] : []));
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise((resolve) => this.server.close(resolve));
	}

	private answer(req: http.IncomingMessage, res: http.ServerResponse, raw: string): void {
		const path = (req.url ?? '/').split('?')[0];
		const recorded: RecordedRequest = {
			method: req.method ?? 'GET',
			path,
			headers: req.headers,
			raw,
		};
		this.requests.push(recorded);
		const json = (status: number, body: unknown) => {
			res.writeHead(status, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		if (req.method === 'GET' && path.endsWith('/models')) {
			json(200, {
				object: 'list',
				data: [{ id: 'gpt-4o-mini', object: 'model', created: 0, owned_by: 'stand-in' }],
			});
			return;
		}
		if (req.method !== 'POST' || !path.endsWith('/chat/completions')) {
			json(404, {
				error: {
					message: `The stand-in serves POST /v1/chat/completions, not ${req.method} ${path}`,
					type: 'invalid_request_error',
				},
			});
			return;
		}
		let request: ChatRequest;
		try {
			request = JSON.parse(raw) as ChatRequest;
		} catch {
			json(400, { error: { message: 'The body is not JSON', type: 'invalid_request_error' } });
			return;
		}
		recorded.body = request;
		let turn: Turn;
		try {
			turn = this.script(request, this.calls++);
		} catch (error) {
			// A script that cannot go on ends the conversation; the test reads why from its checks.
			turn = { content: `The stand-in's script stopped: ${(error as Error).message}` };
		}
		const id = `chatcmpl-standin-${this.calls}`;
		const message =
			'toolCalls' in turn
				? {
						role: 'assistant',
						content: null,
						tool_calls: turn.toolCalls.map((call, index) => ({
							id: `call_${this.calls}_${index}`,
							type: 'function',
							function: { name: call.name, arguments: JSON.stringify(call.arguments) },
						})),
					}
				: { role: 'assistant', content: turn.content };
		const finishReason = 'toolCalls' in turn ? 'tool_calls' : 'stop';
		const usage = {
			prompt_tokens: Math.ceil(raw.length / 4),
			completion_tokens: 10,
			total_tokens: Math.ceil(raw.length / 4) + 10,
		};
		if (!request.stream) {
			json(200, {
				id,
				object: 'chat.completion',
				created: Math.floor(Date.now() / 1000),
				model: request.model,
				choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
				usage,
			});
			return;
		}
		res.writeHead(200, {
			'Content-Type': 'text/event-stream',
			'Cache-Control': 'no-cache',
			Connection: 'keep-alive',
		});
		const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
			res.write(
				`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.model, choices, ...extra })}\n\n`,
			);
		const delta =
			'tool_calls' in message && message.tool_calls
				? {
						role: 'assistant',
						content: null,
						tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })),
					}
				: { role: 'assistant', content: message.content };
		chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]);
		chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]);
		if ((request.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
			chunk([], { usage });
		res.end('data: [DONE]\n\n');
	}
}

/** The text of a message's content, whether a string or a list of parts. */
export function textOf(message: ChatMessage | undefined): string {
	if (!message?.content) return '';
	if (typeof message.content === 'string') return message.content;
	return message.content.map((part) => part.text ?? '').join('');
}

/** The result the request carries for a tool call, by the call's id. */
export function toolResult(request: ChatRequest | undefined, callId: string): string | undefined {
	const message = request?.messages.find(
		(candidate) => candidate.role === 'tool' && candidate.tool_call_id === callId,
	);
	return message ? textOf(message) : undefined;
}
