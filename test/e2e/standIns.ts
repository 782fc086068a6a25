/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Loads an example workflow from examples/ and makes it runnable here: the Forms.wtf nodes point
 * at a form of the local API with a local credential, and the Slack, mail and sheet nodes are
 * replaced by HTTP Request nodes that send what those services would get to a local sink.
 * Everything else of the example runs as users import it.
 */
import { randomUUID } from 'crypto';
import { readFileSync } from 'fs';
import type { IDataObject } from 'n8n-workflow';
import { resolve } from 'path';

import type { Sink } from './sink';

const EXAMPLES = resolve(__dirname, '..', '..', 'examples');

interface ExampleNode extends IDataObject {
	name: string;
	type: string;
	parameters: IDataObject;
}

export interface StandInOptions {
	/** A fixed workflow id, so that `n8n execute --id` can name it. */
	id: string;
	formId: string;
	credential: { id: string; name: string };
	sinkUrl: string;
}

function httpRequest(node: ExampleNode, url: string, body: IDataObject): ExampleNode {
	return {
		id: node.id,
		name: node.name,
		position: node.position,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: { method: 'POST', url, sendBody: true, ...body, options: {} },
	};
}

const STAND_INS: Record<string, (node: ExampleNode, sinkUrl: string) => ExampleNode> = {
	// Slack gets the message text; the response id rides along so the test can count deliveries.
	'Post to Slack': (node, sinkUrl) =>
		httpRequest(node, `${sinkUrl}/slack`, {
			contentType: 'json',
			specifyBody: 'keypair',
			bodyParameters: {
				parameters: [
					{ name: 'text', value: String(node.parameters.text ?? '') },
					{ name: 'responseId', value: '={{ $json.id }}' },
				],
			},
		}),
	// The mail server gets the attachment.
	'Send email': (node, sinkUrl) =>
		httpRequest(node, `${sinkUrl}/mail`, { contentType: 'binaryData', inputDataFieldName: 'data' }),
	// The sheet gets the row.
	'Append to sheet': (node, sinkUrl) =>
		httpRequest(node, `${sinkUrl}/sheet`, {
			contentType: 'json',
			specifyBody: 'json',
			jsonBody: '={{ JSON.stringify($json) }}',
		}),
};

/** An example as users import it, with its Forms.wtf nodes pointed at a form and credential. */
export function loadExample(
	file: string,
	options: Omit<StandInOptions, 'sinkUrl'>,
): IDataObject & { nodes: ExampleNode[] } {
	const workflow = JSON.parse(readFileSync(resolve(EXAMPLES, file), 'utf8')) as IDataObject & {
		nodes: ExampleNode[];
	};
	const nodes = workflow.nodes.map((node) =>
		node.type.startsWith('n8n-nodes-formswtf.')
			? {
					...node,
					parameters: {
						...node.parameters,
						formId: { __rl: true, mode: 'id', value: options.formId },
					},
					credentials: { formsWtfApi: options.credential },
				}
			: node,
	);
	return { ...workflow, id: options.id, active: false, nodes };
}

export function exampleWithStandIns(file: string, options: StandInOptions): IDataObject {
	const workflow = loadExample(file, options);
	let replaced = 0;
	const nodes = workflow.nodes.map((node) => {
		const standIn = STAND_INS[node.name];
		if (!standIn) return node;
		replaced++;
		return standIn(node, options.sinkUrl);
	});
	if (replaced !== 1)
		throw new Error(`${file}: expected one node to stand in for, found ${replaced}`);
	return { ...workflow, ...withManualStart(nodes, workflow.connections as IDataObject) };
}

/**
 * `n8n execute` starts only from a Manual Trigger, so a scheduled example gets one beside its
 * Schedule Trigger, wired to the same nodes: "run it now", as a user would in the editor.
 */
function withManualStart(
	nodes: ExampleNode[],
	connections: IDataObject,
): { nodes: ExampleNode[]; connections: IDataObject } {
	const schedule = nodes.find((node) => node.type === 'n8n-nodes-base.scheduleTrigger');
	if (!schedule) return { nodes, connections };
	const manual: ExampleNode = {
		id: 'e2e-run-now',
		name: 'Run now',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 300],
		parameters: {},
	};
	return {
		nodes: [...nodes, manual],
		connections: { ...connections, [manual.name]: connections[schedule.name] },
	};
}

/**
 * The workflow started by a Webhook node (POST /webhook/<path>) in place of its Manual Trigger,
 * under the same name: a production execution, which n8n in queue mode hands to a worker
 * (manual executions stay on the main unless OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS is set).
 */
export function withWebhookStart(workflow: IDataObject, path: string): IDataObject {
	const nodes = workflow.nodes as ExampleNode[];
	const manual = nodes.filter((node) => node.type === 'n8n-nodes-base.manualTrigger');
	if (manual.length !== 1)
		throw new Error(`expected one Manual Trigger to replace, found ${manual.length}`);
	const webhook: ExampleNode = {
		id: manual[0].id,
		name: manual[0].name,
		position: manual[0].position,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
	return { ...workflow, nodes: nodes.map((node) => (node === manual[0] ? webhook : node)) };
}

/** The response ids that reached a stand-in, one per request, in arrival order. */
export function deliveredResponseIds(sink: Sink, standIn: 'slack' | 'sheet'): string[] {
	const field = standIn === 'slack' ? 'responseId' : 'Response ID';
	return sink
		.on(`/${standIn}`)
		.map((request) => String((JSON.parse(request.body.toString('utf8')) as IDataObject)[field]));
}
