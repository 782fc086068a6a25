/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The Webhook Trigger wired into the in-process runner, and the deliveries Forms.wtf sends
 * (built by the harness, test/harness/webhooks.ts, so tests and the harness agree on them).
 */
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import type { IConnections, IDataObject, INode } from 'n8n-workflow';

import { FormsWtfWebhookApi } from '../../credentials/FormsWtfWebhookApi.credentials';
// The ".js" keeps Node's resolver (under tsx) from picking the codex file.
import { FormsWtfWebhookTrigger } from '../../nodes/FormsWtf/FormsWtfWebhookTrigger.node.js';
import type { FormResponse, WebhookFormat } from '../harness';
import { webhookRequest } from '../harness';
import type {
	RunnerCredentials,
	RunnerNodeTypes,
	RunWebhookResult,
	WebhookRequest,
} from '../runner';
import { runWebhook } from '../runner';

export const WEBHOOK_TRIGGER_TYPE = 'n8n-nodes-formswtf.formsWtfWebhookTrigger';
export const WEBHOOK_NODE_NAME = 'Forms.wtf Webhook Trigger';

export const webhookNodeTypes: RunnerNodeTypes = {
	[WEBHOOK_TRIGGER_TYPE]: new FormsWtfWebhookTrigger(),
};

export function secretCredential(secret: string): RunnerCredentials {
	return { formsWtfWebhookApi: { type: new FormsWtfWebhookApi(), data: { secret } } };
}

export function webhookTriggerNode(
	parameters: IDataObject,
	withCredential = true,
	typeVersion = 1,
): INode {
	return {
		id: 'forms-wtf-webhook-trigger',
		name: WEBHOOK_NODE_NAME,
		type: WEBHOOK_TRIGGER_TYPE,
		typeVersion,
		position: [0, 0],
		webhookId: '8a4c1f0e-2b7d-4e55-9d1a-6c3f2e9b7a10',
		parameters: parameters as INode['parameters'],
		...(withCredential
			? { credentials: { formsWtfWebhookApi: { id: '1', name: 'Forms.wtf webhook secret' } } }
			: {}),
	};
}

/** A form as the harness describes it, for building deliveries without a running harness. */
export const SAMPLE_FORM = {
	id: 'clform0000000000000000001',
	detail: {
		title: 'DAO Contributor Survey',
		slug: 'dao-survey',
		questions: [
			{ id: 'q_name', type: 'SHORT_TEXT', label: 'What is your name?', required: true, order: 0 },
			{
				id: 'q_role',
				type: 'MULTIPLE_CHOICE',
				label: 'What is your role?',
				required: true,
				order: 1,
			},
		],
	},
} as const;

export const SAMPLE_RESPONSE: FormResponse = {
	id: 'clresponse000000000000001',
	walletAddress: '0x2b8b2e3c6e0d7b1f0a9c8d7e6f5a4b3c2d1e0f33',
	ensName: 'alice.eth',
	submittedAt: '2026-04-01T14:32:00.000Z',
	durationSeconds: 87,
	answers: [
		{ questionId: 'q_name', questionLabel: 'What is your name?', value: 'Alice' },
		{ questionId: 'q_role', questionLabel: 'What is your role?', value: 'Developer' },
	],
};

/** The request Forms.wtf sends for a response, in one of its two formats. */
export function delivery(
	format: WebhookFormat,
	secret: string | undefined,
	response: FormResponse = SAMPLE_RESPONSE,
): WebhookRequest & { headers: Record<string, string>; body: string } {
	return webhookRequest(
		format,
		SAMPLE_FORM as unknown as Parameters<typeof webhookRequest>[1],
		response,
		secret,
		'2026-04-01T14:32:01.000Z',
	);
}

/** One request to an active workflow "Webhook Trigger → (nodes after)". */
export async function sendToTrigger(args: {
	parameters?: IDataObject;
	secret?: string;
	request: WebhookRequest;
	mode?: 'webhook' | 'manual';
	withCredential?: boolean;
	/** 1 unless said: version 1 is Manual without a Registration set. */
	typeVersion?: number;
	after?: { nodes: INode[]; connections: IConnections; nodeTypes: RunnerNodeTypes };
}): Promise<RunWebhookResult> {
	const trigger = webhookTriggerNode(
		args.parameters ?? {},
		args.withCredential ?? true,
		args.typeVersion,
	);
	return await runWebhook({
		workflow: {
			nodes: [trigger, ...(args.after?.nodes ?? [])],
			connections: args.after?.connections ?? {},
		},
		node: trigger.name,
		nodeTypes: { ...webhookNodeTypes, ...args.after?.nodeTypes },
		credentials: args.secret === undefined ? {} : secretCredential(args.secret),
		mode: args.mode ?? 'webhook',
		request: args.request,
	});
}

export interface ServedExecution {
	/**
	 * performance.now() when the request came in, and when the node had answered (and the
	 * execution, if any, had run): comparable with performance.now() elsewhere in the process.
	 */
	receivedAtMs: number;
	startedAtMs: number;
	status: number;
	/** The items the execution started with; empty when the node refused the request. */
	items: IDataObject[];
}

/**
 * An HTTP endpoint on 127.0.0.1 in front of the Webhook Trigger, as n8n's production URL is:
 * each POST goes through `webhook()` in n8n-core's WebhookContext, is answered with the status
 * the node gave, and the execution it starts is recorded. For the demo and the bench.
 */
export async function serveWebhookTrigger(args: {
	parameters?: IDataObject;
	secret?: string;
}): Promise<{ url: string; executions: ServedExecution[]; close: () => Promise<void> }> {
	const executions: ServedExecution[] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const receivedAtMs = performance.now();
			const headers: Record<string, string> = {};
			for (const [name, value] of Object.entries(req.headers))
				if (typeof value === 'string') headers[name] = value;
			void sendToTrigger({
				parameters: args.parameters,
				secret: args.secret,
				request: { headers, body: Buffer.concat(chunks) },
			}).then(
				(result) => {
					executions.push({
						receivedAtMs,
						startedAtMs: performance.now(),
						status: result.status,
						items: (result.items ?? []).map((item) => item.json),
					});
					res.writeHead(result.status, { 'Content-Type': 'application/json' });
					res.end(result.body === undefined ? '' : JSON.stringify(result.body));
				},
				(error: Error) => {
					res.writeHead(500).end(error.message);
				},
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/webhook/formswtf`,
		executions,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
