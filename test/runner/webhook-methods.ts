/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * A webhook node's `webhookMethods` (checkExists, create, delete) called the way n8n calls them
 * when a workflow is activated or deactivated, or "Listen for test event" starts and ends:
 * through n8n-core's HookContext, with n8n's Production and Test URLs on an origin the caller
 * chooses. And an endpoint standing for those URLs, recording what is sent to it.
 */
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import type { IDataObject, IHookFunctions, IWebhookData } from 'n8n-workflow';
import { deepCopy, UnexpectedError } from 'n8n-workflow';
import { HookContext } from 'n8n-core';

import { buildAdditionalData } from './additional-data';
import { RunnerCredentialsHelper, type RunnerCredentials } from './credentials';
import { RunnerNodeTypeRegistry, type RunnerNodeTypes } from './node-types';
import { DEFAULT_WORKFLOW_ID, runnerWorkflowObject, type RunnerWorkflow } from './run-workflow';
import type { WebhookRequest } from './run-webhook';
import { ensureRunnerReady } from './setup';

export type WebhookMethodName = 'checkExists' | 'create' | 'delete';

export interface RunWebhookMethodArgs {
	/** The workflow with its stored static data; its webhook node is `node`. */
	workflow: RunnerWorkflow;
	node: string;
	nodeTypes: RunnerNodeTypes;
	credentials?: RunnerCredentials;
	/** n8n's origin: the Production URL is `<origin>/webhook/…`, the Test URL `<origin>/webhook-test/…`. */
	origin: string;
	/** "Listen for test event" (the Test URL, manual mode) instead of an activation. */
	listening?: boolean;
}

export interface WebhookMethodResult {
	/** What the method returned (checkExists: whether the registration exists). */
	answer: boolean;
	/** The workflow's static data after the call (JSON copy), to pass into the next call. */
	staticData: IDataObject;
}

/** One call of n8n to the node's `webhookMethods.default[name]`. */
export async function runWebhookMethod(
	name: WebhookMethodName,
	args: RunWebhookMethodArgs,
): Promise<WebhookMethodResult> {
	await ensureRunnerReady();
	const nodeTypes = new RunnerNodeTypeRegistry(args.nodeTypes);
	const mode = args.listening ? 'manual' : 'trigger';
	const workflowId = args.workflow.id ?? DEFAULT_WORKFLOW_ID;
	const nodes = deepCopy(args.workflow.nodes);
	const workflow = runnerWorkflowObject(args.workflow, { workflowId, nodes, nodeTypes, mode });
	const node = workflow.getNode(args.node);
	if (node === null) throw new UnexpectedError(`Node "${args.node}" is not in the workflow`);
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const description = nodeType.description.webhooks?.[0];
	const method = nodeType.webhookMethods?.default?.[name];
	if (description === undefined || method === undefined)
		throw new UnexpectedError(`Node "${args.node}" has no webhook method "${name}"`);

	const additionalData = {
		...buildAdditionalData({
			credentialsHelper: new RunnerCredentialsHelper(args.credentials ?? {}, nodeTypes),
			executionId: undefined,
			workflowId,
		}),
		webhookBaseUrl: `${args.origin}/webhook`,
		webhookTestBaseUrl: `${args.origin}/webhook-test`,
	};
	const webhookData: IWebhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: String(description.path),
		webhookDescription: description,
		workflowId,
		workflowExecuteAdditionalData: additionalData,
		isTest: args.listening === true,
	};
	const activation = args.listening ? 'manual' : 'activate';
	const context = new HookContext(workflow, node, additionalData, mode, activation, webhookData);
	const answer = await method.call(context as unknown as IHookFunctions);
	return { answer, staticData: deepCopy(workflow.staticData) as IDataObject };
}

/** An activation as n8n does it: checkExists, then create when it answered false. */
export async function activateWebhook(
	args: RunWebhookMethodArgs,
): Promise<{ created: boolean; staticData: IDataObject }> {
	const exists = await runWebhookMethod('checkExists', args);
	if (exists.answer) return { created: false, staticData: exists.staticData };
	const workflow = { ...args.workflow, staticData: exists.staticData };
	const created = await runWebhookMethod('create', { ...args, workflow });
	return { created: true, staticData: created.staticData };
}

export interface RecordingEndpoint {
	/** `http://127.0.0.1:PORT`: pass it as `origin` so registrations point here. */
	origin: string;
	/** Every request received, in arrival order, ready for `runWebhook`. */
	received: WebhookRequest[];
	close: () => Promise<void>;
}

/** Stands for n8n's webhook endpoint on 127.0.0.1: records each request and answers 200. */
export async function recordWebhookRequests(): Promise<RecordingEndpoint> {
	const received: WebhookRequest[] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const headers: Record<string, string> = {};
			for (const [name, value] of Object.entries(req.headers))
				if (typeof value === 'string') headers[name] = value;
			received.push({ headers, body: Buffer.concat(chunks) });
			res.writeHead(200).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
