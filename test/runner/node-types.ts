/* eslint-disable
	@n8n/community-nodes/node-usable-as-tool,
	@n8n/community-nodes/node-connection-type-literal
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeHelpers, UnexpectedError } from 'n8n-workflow';
import { DirectoryLoader } from 'n8n-core';
// Not re-exported from n8n-core's index; it is the exact list n8n adds to every polling node.
import { commonPollingParameters } from 'n8n-core/dist/nodes-loader/constants';

/** Node types by the full type name nodes use in `node.type`, e.g. `n8n-nodes-formswtf.formsWtf`. */
export interface RunnerNodeTypes {
	[typeName: string]: INodeType | IVersionedNodeType;
}

/**
 * Type of a start node the runner provides: it outputs the items it is given, like a
 * Manual Trigger with pinned data. Use it (see `runnerStartNode`) to feed `inputItems` into
 * the first real node of a workflow. It is always registered; a test needn't list it.
 */
export const RUNNER_START_NODE_TYPE = 'n8n-runner.start';

class RunnerStart implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Runner Start',
		name: RUNNER_START_NODE_TYPE,
		group: ['input'],
		version: 1,
		description: 'Outputs the items the runner feeds in',
		defaults: { name: 'Start' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// Paired to the fed-in items so expressions like $('Start').item work downstream.
		return [this.getInputData().map((item, index) => ({ ...item, pairedItem: { item: index } }))];
	}
}

const runnerStart = new RunnerStart();

/** Node types already prepared, so a shared description is never extended twice. */
const prepared = new WeakSet<INodeType>();

/**
 * What n8n's DirectoryLoader does to a node type when it loads a package
 * (n8n-core/dist/nodes-loader/directory-loader.js, `applySpecialNodeParameters`): polling
 * nodes get the `pollTimes` parameter, declarative nodes the `requestOptions` collection.
 * Without it `getNodeParameter('pollTimes')` fails and defaults differ from a real n8n.
 */
function prepareAsLoaded(nodeType: INodeType): void {
	if (prepared.has(nodeType)) return;
	prepared.add(nodeType);
	const { description } = nodeType;
	if (description.polling && !description.properties.some((p) => p.name === 'pollTimes')) {
		description.properties.unshift(...commonPollingParameters);
	}
	DirectoryLoader.applyDeclarativeNodeOptionParameters(nodeType);
}

function isVersioned(type: INodeType | IVersionedNodeType): type is IVersionedNodeType {
	return 'nodeVersions' in type;
}

/** n8n-workflow's INodeTypes over given node type instances, as n8n's NodeTypes serves loaded ones. */
export class RunnerNodeTypeRegistry implements INodeTypes {
	private readonly types: RunnerNodeTypes;

	constructor(nodeTypes: RunnerNodeTypes) {
		this.types = { [RUNNER_START_NODE_TYPE]: runnerStart, ...nodeTypes };
		for (const type of Object.values(this.types)) {
			if (isVersioned(type)) Object.values(type.nodeVersions).forEach(prepareAsLoaded);
			else prepareAsLoaded(type);
		}
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types[nodeType];
		if (type === undefined) {
			throw new UnexpectedError(`Unknown node type "${nodeType}": pass it in nodeTypes`, {
				extra: { known: Object.keys(this.types) },
			});
		}
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return Object.fromEntries(Object.keys(this.types).map((name) => [name, { className: name }]));
	}
}
