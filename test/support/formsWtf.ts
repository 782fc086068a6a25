/**
 * Our nodes wired into the in-process runner: node types, a credential for a base URL and key,
 * and node builders. Shared by unit tests (nock), workflow tests (harness), the demo and benchmarks.
 */
import type { IConnections, IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { FormsWtfApi } from '../../credentials/FormsWtfApi.credentials';
// The ".js" keeps Node's resolver (under tsx) from picking the codex file `FormsWtf.node.json`.
import { FormsWtf } from '../../nodes/FormsWtf/FormsWtf.node.js';
import { FormsWtfTrigger } from '../../nodes/FormsWtf/FormsWtfTrigger.node.js';
import { testRetryPolicy } from './retryPolicy';
import type {
	RunnerCredentials,
	RunnerNodeTypes,
	RunResult,
	RunPollArgs,
	RunPollResult,
} from '../runner';
import { runnerStartNode, runPoll, runWorkflow } from '../runner';

export const NODE_TYPE = 'n8n-nodes-formswtf.formsWtf';
export const TRIGGER_TYPE = 'n8n-nodes-formswtf.formsWtfTrigger';

export const nodeTypes: RunnerNodeTypes = {
	[NODE_TYPE]: new FormsWtf({ retryPolicy: testRetryPolicy }),
	[TRIGGER_TYPE]: new FormsWtfTrigger({ retryPolicy: testRetryPolicy }),
};

export function credentialsFor(baseUrl: string, apiKey: string): RunnerCredentials {
	return { formsWtfApi: { type: new FormsWtfApi(), data: { apiKey, baseUrl } } };
}

const credentialRef = { formsWtfApi: { id: '1', name: 'Forms.wtf account' } };

function ourNode(
	type: string,
	name: string,
	position: [number, number],
	parameters: IDataObject,
	extra: Partial<INode>,
): INode {
	return {
		id: name.toLowerCase().replace(/\W+/g, '-'),
		name,
		type,
		typeVersion: 1,
		position,
		parameters: parameters as INode['parameters'],
		credentials: credentialRef,
		...extra,
	};
}

export function formsWtfNode(parameters: IDataObject, extra: Partial<INode> = {}): INode {
	return ourNode(NODE_TYPE, 'Forms.wtf', [200, 0], parameters, extra);
}

export function triggerNode(parameters: IDataObject, extra: Partial<INode> = {}): INode {
	return ourNode(TRIGGER_TYPE, 'Forms.wtf Trigger', [0, 0], parameters, extra);
}

/** A form picked by id, as the editor stores a resource locator. */
export function formById(id: string): IDataObject {
	return { __rl: true, mode: 'id', value: id };
}

export interface RunNodeArgs {
	baseUrl: string;
	apiKey: string;
	parameters: IDataObject;
	inputItems?: INodeExecutionData[];
	continueOnFail?: boolean;
}

/** Runs Start → Forms.wtf once, as "Execute workflow" in the editor would. */
export async function runFormsWtf(args: RunNodeArgs): Promise<RunResult> {
	const start = runnerStartNode();
	const node = formsWtfNode(
		args.parameters,
		args.continueOnFail ? { onError: 'continueRegularOutput' } : {},
	);
	const connections: IConnections = {
		[start.name]: { main: [[{ node: node.name, type: 'main', index: 0 }]] },
	};
	return await runWorkflow({
		workflow: { nodes: [start, node], connections },
		nodeTypes,
		credentials: credentialsFor(args.baseUrl, args.apiKey),
		inputItems: args.inputItems ?? [{ json: {} }],
	});
}

export interface PollArgs extends Omit<RunPollArgs, 'node' | 'nodeTypes' | 'credentials'> {
	baseUrl: string;
	apiKey: string;
	parameters: IDataObject;
	/** The trigger's version (1 when absent, as workflows saved with it). */
	typeVersion?: number;
}

export async function pollTrigger(args: PollArgs): Promise<RunPollResult> {
	const { baseUrl, apiKey, parameters, typeVersion, ...rest } = args;
	return await runPoll({
		...rest,
		node: triggerNode(parameters, typeVersion ? { typeVersion } : {}),
		nodeTypes,
		credentials: credentialsFor(baseUrl, apiKey),
	});
}
