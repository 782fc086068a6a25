import { Container } from '@n8n/di';
import type {
	ExecutionError,
	IConnections,
	IDataObject,
	INode,
	INodeExecutionData,
	IPinData,
	IRun,
	IRunData,
	IWorkflowBase,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, deepCopy, UnexpectedError, Workflow } from 'n8n-workflow';
import { BinaryDataService, ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';

import { buildAdditionalData, nextExecutionId } from './additional-data';
import { RunnerCredentialsHelper, type RunnerCredentials } from './credentials';
import { RUNNER_START_NODE_TYPE, RunnerNodeTypeRegistry, type RunnerNodeTypes } from './node-types';
import { ensureRunnerReady } from './setup';
import { persistedCopy } from './static-data';

export interface RunnerWorkflow {
	id?: string;
	name?: string;
	nodes: INode[];
	connections: IConnections;
	settings?: IWorkflowSettings;
	/** The workflow's static data as stored; the result carries what n8n would store after the run. */
	staticData?: IDataObject;
	/** Pinned data by node name: such a node does not run and outputs these items, as in the editor. */
	pinData?: IPinData;
}

export interface RunWorkflowArgs {
	workflow: RunnerWorkflow;
	nodeTypes: RunnerNodeTypes;
	credentials?: RunnerCredentials;
	/**
	 * Default: the node n8n picks (`Workflow.getStartNode`: the first trigger or poll node),
	 * else a runner start node, else the first node without parents.
	 */
	startNode?: string;
	/**
	 * Items fed into the start node, the way n8n hands a trigger's emitted items to the
	 * execution it starts (the start node's input on the execution stack). A runner start
	 * node (`runnerStartNode()`) outputs them as they are. A poll or trigger start node in
	 * `manual` mode ignores them and runs its poll()/trigger() instead; in `trigger` mode it
	 * passes them on. Default: one empty item, as n8n does.
	 */
	inputItems?: INodeExecutionData[];
	/** Default `manual`, like a run from the editor; `trigger`: a run started by an active trigger. */
	mode?: WorkflowExecuteMode;
}

export interface RunResult {
	status: 'success' | 'error';
	/**
	 * The error that stopped the execution, as n8n records it in `resultData.error`. n8n-core
	 * 2.41 stores errors as plain copies (`{ ...error, message, stack }` in WorkflowExecute),
	 * so `instanceof` fails: check `name` ('NodeApiError'), `httpCode`, `description`, and
	 * `messages`. The failing node's run data (`runData[name][i].error`) holds the same copy.
	 */
	error?: ExecutionError;
	/** The full IRun n8n-core returned. */
	run: IRun;
	runData: IRunData;
	executionId: string;
	workflowId: string;
	/**
	 * What n8n would save as the workflow's static data after this run (JSON copy). Unchanged
	 * in manual mode: n8n never saves static data of manual executions.
	 */
	staticData: IDataObject;
	/** Items of the node's last run on the given main output. Throws if the node did not run. */
	outputOf(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** Contents of an output item's binary property, read through n8n-core's BinaryDataService. */
	binaryOf(
		nodeName: string,
		itemIndex: number,
		property?: string,
		outputIndex?: number,
	): Promise<Buffer>;
	/** Deletes binary files this execution stored in filesystem mode (nothing to do in default mode). */
	dispose(): Promise<void>;
}

/** A node of the runner's start type, to put in front of the node under test. */
export function runnerStartNode(name = 'Start', position: [number, number] = [0, 0]): INode {
	return {
		id: `runner-start-${name}`,
		name,
		type: RUNNER_START_NODE_TYPE,
		typeVersion: 1,
		position,
		parameters: {},
	};
}

/** New workflows in n8n's editor get these settings; a workflow without them runs in legacy v0 order. */
const DEFAULT_SETTINGS: IWorkflowSettings = { executionOrder: 'v1' };

export const DEFAULT_WORKFLOW_ID = 'runnerWorkflow01';

function pickStartNode(workflow: Workflow, name: string | undefined): INode {
	if (name !== undefined) {
		const node = workflow.getNode(name);
		if (node === null) throw new UnexpectedError(`Start node "${name}" is not in the workflow`);
		return node;
	}
	const nodes = Object.values(workflow.nodes).filter((node) => node.disabled !== true);
	const start =
		workflow.getStartNode() ??
		nodes.find((node) => node.type === RUNNER_START_NODE_TYPE) ??
		nodes.find((node) => workflow.getParentNodes(node.name).length === 0);
	if (start === undefined) throw new UnexpectedError('No node to start the workflow from');
	return start;
}

/**
 * The Workflow n8n builds for an execution: active for a production one, the editor's copy for a
 * manual one; `nodes` are the caller's copies (Workflow fills in parameter defaults on them).
 */
export function runnerWorkflowObject(
	workflow: RunnerWorkflow,
	parts: {
		workflowId: string;
		nodes: INode[];
		nodeTypes: RunnerNodeTypeRegistry;
		mode: WorkflowExecuteMode;
	},
): Workflow {
	return new Workflow({
		id: parts.workflowId,
		name: workflow.name ?? 'Runner workflow',
		nodes: parts.nodes,
		connections: workflow.connections,
		active: parts.mode !== 'manual',
		nodeTypes: parts.nodeTypes,
		staticData: deepCopy(workflow.staticData ?? {}),
		settings: { ...DEFAULT_SETTINGS, ...workflow.settings },
	});
}

/**
 * Runs a workflow in process with n8n-core's WorkflowExecute, the way n8n's WorkflowRunner
 * runs an execution whose start data is given: the start node goes on the execution stack
 * with its input, then `processRunExecutionData` runs the graph.
 */
export async function runWorkflow(args: RunWorkflowArgs): Promise<RunResult> {
	await ensureRunnerReady();

	const mode = args.mode ?? 'manual';
	const executionId = nextExecutionId();
	const workflowId = args.workflow.id ?? DEFAULT_WORKFLOW_ID;
	const nodeTypes = new RunnerNodeTypeRegistry(args.nodeTypes);
	// Copies: Workflow fills in parameter defaults on the nodes it is given, and static data
	// is changed in place by nodes; neither may reach the caller's objects.
	const nodes = deepCopy(args.workflow.nodes);
	const settings = { ...DEFAULT_SETTINGS, ...args.workflow.settings };
	const staticDataIn = deepCopy(args.workflow.staticData ?? {});

	const workflow = runnerWorkflowObject(args.workflow, { workflowId, nodes, nodeTypes, mode });

	const workflowData: IWorkflowBase = {
		id: workflowId,
		name: workflow.name ?? '',
		active: workflow.active,
		isArchived: false,
		activeVersionId: null,
		createdAt: new Date(0),
		updatedAt: new Date(0),
		nodes,
		connections: args.workflow.connections,
		settings,
		staticData: staticDataIn,
	};
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	// n8n's save hook (packages/cli execution-lifecycle-hooks.ts, hookFunctionsSave) stores
	// `newStaticData`, which WorkflowExecute passes only when it changed, unless mode is manual.
	let savedStaticData: IDataObject | undefined;
	hooks.addHandler('workflowExecuteAfter', (_run, newStaticData) => {
		if (mode !== 'manual' && newStaticData) savedStaticData = persistedCopy(newStaticData);
	});

	const credentialsHelper = new RunnerCredentialsHelper(args.credentials ?? {}, nodeTypes);
	const additionalData = buildAdditionalData({ credentialsHelper, executionId, workflowId, hooks });

	const startNode = pickStartNode(workflow, args.startNode);
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: startNode, data: { main: [args.inputItems ?? [{ json: {} }]] }, source: null },
			],
		},
		resultData: { pinData: args.workflow.pinData },
	});

	const run = await new WorkflowExecute(
		additionalData,
		mode,
		runExecutionData,
	).processRunExecutionData(workflow);
	return toRunResult(run, { executionId, workflowId, staticData: savedStaticData ?? staticDataIn });
}

function toRunResult(
	run: IRun,
	ids: { executionId: string; workflowId: string; staticData: IDataObject },
): RunResult {
	const { runData, error } = run.data.resultData;

	const taskOf = (nodeName: string) => {
		const task = runData[nodeName]?.at(-1);
		if (task === undefined) {
			const ran = Object.keys(runData).join(', ') || 'none';
			const detail = error ? `; the execution failed: ${error.message}` : '';
			throw new UnexpectedError(`Node "${nodeName}" did not run (nodes that ran: ${ran})${detail}`);
		}
		return task;
	};

	const outputOf = (nodeName: string, outputIndex = 0): INodeExecutionData[] =>
		taskOf(nodeName).data?.main[outputIndex] ?? [];

	return {
		status: run.status === 'success' ? 'success' : 'error',
		error,
		run,
		runData,
		...ids,
		outputOf,
		async binaryOf(nodeName, itemIndex, property = 'data', outputIndex = 0) {
			const item = outputOf(nodeName, outputIndex)[itemIndex];
			const binary = item?.binary?.[property];
			if (binary === undefined) {
				throw new UnexpectedError(
					`Item ${itemIndex} of node "${nodeName}" has no binary property "${property}"`,
				);
			}
			return await Container.get(BinaryDataService).getAsBuffer(binary);
		},
		async dispose() {
			await Container.get(BinaryDataService).deleteMany([
				{ type: 'execution', workflowId: ids.workflowId, executionId: ids.executionId },
			]);
		},
	};
}
