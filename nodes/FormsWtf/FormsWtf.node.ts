import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as account from './actions/account';
import * as form from './actions/form';
import * as response from './actions/response';
import * as webhook from './actions/webhook';
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
		description:
			'Read, create and change Forms.wtf forms, read and export their responses, manage their webhooks, and read the account',
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
					{ name: 'Account', value: 'account' },
					{ name: 'Form', value: 'form' },
					{ name: 'Response', value: 'response' },
					{ name: 'Webhook', value: 'webhook' },
				],
				default: 'response',
			},
			...account.description,
			...form.description,
			...response.description,
			...webhook.description,
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
