import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { TransportSettings } from '../shared/transport';
import { FormsWtfClient } from '../shared/transport';
import { explainedForTool } from '../shared/helpers/tool';
import { asNodeError } from '../shared/transport/errors';
import * as account from './account';
import * as form from './form';
import type { FormsWtfType } from './node.type';
import type { Operation } from './operation';
import * as response from './response';
import * as webhook from './webhook';

const operations: { [R in FormsWtfType['resource']]: Record<string, { execute: Operation }> } = {
	account: { get: account.get },
	form: {
		getAll: form.getAll,
		get: form.get,
		create: form.create,
		update: form.update,
		publish: form.publish,
		unpublish: form.unpublish,
		delete: form.delete,
	},
	response: { getAll: response.getAll, export: response.export },
	webhook: { getAll: webhook.getAll, create: webhook.create, delete: webhook.delete },
};

/**
 * Runs the chosen operation once per input item. With "Continue On Fail" a failed item becomes
 * an error item paired with its input and the run goes on.
 */
export async function router(
	this: IExecuteFunctions,
	transport: TransportSettings = {},
): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as FormsWtfType['resource'];
	const operation = this.getNodeParameter('operation', 0) as string;
	const handler = operations[resource]?.[operation];
	if (!handler) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}

	const client = new FormsWtfClient(this, transport);
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			// One by one: spreading a Return All of hundreds of thousands of items into push()
			// would exceed the call stack.
			for (const item of await handler.execute.call(this, itemIndex, client)) returnData.push(item);
		} catch (caught) {
			const error = asNodeError(this.getNode(), caught, itemIndex);
			if (this.continueOnFail()) {
				const json: IDataObject = { error: error.message };
				if (error.description) json.description = error.description;
				if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
				// Under "Continue (using error output)", `error` on the item is what sends it down the
				// error output in every n8n (n8n-core's handleNodeErrorOutput; the JSON alone has too
				// many fields for it). Not under "Continue": n8n 2.x then shows such an item as
				// `{ error }` alone (normalizeNodeErrors), without the description and status.
				const routed = this.getNode().onError === 'continueErrorOutput';
				returnData.push({ json, ...(routed ? { error } : {}), pairedItem: { item: itemIndex } });
				continue;
			}
			// As an AI Agent's tool, the model is shown the message alone: it carries the description too.
			throw explainedForTool(this, error);
		}
	}
	return [returnData];
}
