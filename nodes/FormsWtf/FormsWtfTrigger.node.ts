import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { listSearch, loadOptions } from './shared/methods';
import { triggerProperties } from './trigger/description';
import type { TransportSettings } from './shared/transport';
import { pollResponses } from './trigger/poll';

export class FormsWtfTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Forms.wtf Trigger',
		name: 'formsWtfTrigger',
		icon: { light: 'file:formswtf.svg', dark: 'file:formswtf.dark.svg' },
		group: ['trigger'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle:
			'={{ { form: "One form", selectedForms: "Selected forms", allForms: "All forms" }[$parameter["watch"]] ?? "One form" }}',
		description:
			'Starts the workflow when responses are submitted to Forms.wtf forms, with one item per response',
		defaults: { name: 'Forms.wtf Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'formsWtfApi', required: true }],
		properties: triggerProperties,
	};

	methods = { listSearch, loadOptions };

	readonly poll: (this: IPollFunctions) => Promise<INodeExecutionData[][] | null>;

	/** n8n builds the node without arguments; tests and benchmarks pass a retry policy of their own. */
	constructor(transport: TransportSettings = {}) {
		this.poll = async function (this: IPollFunctions) {
			return await pollResponses(this, transport);
		};
	}
}
