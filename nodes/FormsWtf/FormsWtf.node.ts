import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as form from './actions/form';
import * as response from './actions/response';
import { router } from './actions/router';
import { listSearch } from './shared/methods';
import type { TransportSettings } from './shared/transport';

export class FormsWtf implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Forms.wtf',
		name: 'formsWtf',
		icon: { light: 'file:formswtf.svg', dark: 'file:formswtf.dark.svg' },
		group: ['input'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Read forms and responses of Forms.wtf, and export responses as files',
		defaults: { name: 'Forms.wtf' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'formsWtfApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Form', value: 'form' },
					{ name: 'Response', value: 'response' },
				],
				default: 'response',
			},
			...form.description,
			...response.description,
		],
	};

	methods = { listSearch };

	readonly execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

	/** n8n builds the node without arguments; tests and benchmarks pass a retry policy of their own. */
	constructor(transport: TransportSettings = {}) {
		this.execute = async function (this: IExecuteFunctions) {
			return await router.call(this, transport);
		};
	}
}
