/**
 * One request to a webhook node, through n8n-core's WebhookContext, the way n8n's
 * WebhookService.runWebhook calls `webhook()`; then, when the node returned items, the
 * execution n8n would start with them (WorkflowExecute, the webhook node passing its items on).
 * The request and response objects are the few parts of Express that webhook nodes use.
 */
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookData,
	IWebhookFunctions,
	IWebhookResponseData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { deepCopy, UnexpectedError } from 'n8n-workflow';
import { WebhookContext } from 'n8n-core';

import { buildAdditionalData } from './additional-data';
import { RunnerCredentialsHelper, type RunnerCredentials } from './credentials';
import { RunnerNodeTypeRegistry, type RunnerNodeTypes } from './node-types';
import {
	DEFAULT_WORKFLOW_ID,
	runnerWorkflowObject,
	runWorkflow,
	type RunnerWorkflow,
	type RunResult,
} from './run-workflow';
import { ensureRunnerReady } from './setup';

export interface WebhookRequest {
	headers?: Record<string, string>;
	/** The bytes sent. */
	body: Buffer | string;
	/**
	 * Whether n8n read the body before calling the node (it does for JSON and a few other types):
	 * `req.rawBody` is set. Otherwise the node has to call `req.readRawBody()`. Default true.
	 */
	bodyRead?: boolean;
	/**
	 * n8n consumed the body before calling the node (a multipart/form-data body, which it parses
	 * as a form): `req.rawBody` is unset and `req.readRawBody()` rejects, as n8n's does.
	 */
	bodyConsumed?: boolean;
}

export interface RunWebhookArgs {
	/** The workflow; its webhook node is `node`. Nodes after it run when the node returns items. */
	workflow: RunnerWorkflow;
	node: string;
	nodeTypes: RunnerNodeTypes;
	credentials?: RunnerCredentials;
	/** `webhook`: the production URL of an active workflow; `manual`: the test URL. */
	mode?: Extract<WorkflowExecuteMode, 'webhook' | 'manual'>;
	request: WebhookRequest;
}

export interface RunWebhookResult {
	/** What the node returned from webhook(). */
	returned: IWebhookResponseData;
	/** The answer the sender got: the node's own, or n8n's for `onReceived` once an execution started. */
	status: number;
	body: unknown;
	/** The items the node started the execution with; undefined when it started none. */
	items?: INodeExecutionData[];
	/** The execution, when one was started. */
	run?: RunResult;
}

type Request = ReturnType<IWebhookFunctions['getRequestObject']>;
type Response = ReturnType<IWebhookFunctions['getResponseObject']>;

/** The parts of Express's Response that webhook nodes call. */
class RecordedResponse {
	statusCode = 200;
	headersSent = false;
	body: unknown;
	readonly headers: Record<string, string> = {};

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	setHeader(name: string, value: string): this {
		this.headers[name.toLowerCase()] = value;
		return this;
	}

	json(body: unknown): this {
		return this.send(body);
	}

	send(body?: unknown): this {
		if (this.headersSent) throw new UnexpectedError('The response was already sent');
		this.body = body;
		this.headersSent = true;
		return this;
	}

	end(): this {
		this.headersSent = true;
		return this;
	}
}

function requestOf(input: WebhookRequest): Request {
	const bytes = Buffer.isBuffer(input.body) ? input.body : Buffer.from(input.body, 'utf8');
	const headers: IDataObject = {};
	// Node gives header names in lower case, whatever case the sender used.
	for (const [name, value] of Object.entries(input.headers ?? {}))
		headers[name.toLowerCase()] = value;
	let parsed: unknown = {};
	try {
		parsed = JSON.parse(bytes.toString('utf8'));
	} catch {
		parsed = {};
	}
	const request = {
		method: 'POST',
		headers,
		params: {},
		query: {},
		body: input.bodyRead === false || input.bodyConsumed ? {} : parsed,
		rawBody: input.bodyRead === false || input.bodyConsumed ? undefined : bytes,
		async readRawBody() {
			// n8n 2.x's words (body-parser.ts); 1.x's raw-body says "stream is not readable".
			if (input.bodyConsumed)
				throw new UnexpectedError('Request body stream was aborted or is not readable');
			request.rawBody = bytes;
		},
	};
	return request as unknown as Request;
}

export async function runWebhook(args: RunWebhookArgs): Promise<RunWebhookResult> {
	await ensureRunnerReady();
	const mode = args.mode ?? 'webhook';
	const nodeTypes = new RunnerNodeTypeRegistry(args.nodeTypes);
	const nodes = deepCopy(args.workflow.nodes);
	const workflowId = args.workflow.id ?? DEFAULT_WORKFLOW_ID;
	const workflow = runnerWorkflowObject(args.workflow, { workflowId, nodes, nodeTypes, mode });
	const node = workflow.getNode(args.node);
	if (node === null) throw new UnexpectedError(`Node "${args.node}" is not in the workflow`);
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	const description = nodeType.description.webhooks?.[0];
	if (description === undefined || nodeType.webhook === undefined)
		throw new UnexpectedError(`Node "${args.node}" is not a webhook node`);

	const credentialsHelper = new RunnerCredentialsHelper(args.credentials ?? {}, nodeTypes);
	const response = new RecordedResponse();
	const additionalData = {
		...buildAdditionalData({ credentialsHelper, executionId: undefined, workflowId }),
		httpRequest: requestOf(args.request),
		httpResponse: response as unknown as Response,
	};
	const webhookData: IWebhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: String(description.path),
		webhookDescription: description,
		workflowId,
		workflowExecuteAdditionalData: additionalData,
		isTest: mode === 'manual',
	};
	const context = new WebhookContext(workflow, node, additionalData, mode, webhookData, [], null);
	const returned = await nodeType.webhook.call(context);

	const items = returned.workflowData?.[0];
	if (items === undefined) {
		// n8n's own answers when the node sent none (webhook-helpers.ts).
		if (!response.headersSent)
			response.send(returned.webhookResponse ?? { message: 'Webhook call received' });
		return { returned, status: response.statusCode, body: response.body };
	}
	const run = await runWorkflow({
		workflow: { ...args.workflow, id: workflowId },
		nodeTypes: args.nodeTypes,
		credentials: args.credentials,
		startNode: node.name,
		inputItems: items,
		mode,
	});
	if (!response.headersSent) response.send(undefined);
	return { returned, status: response.statusCode, body: response.body, items, run };
}
