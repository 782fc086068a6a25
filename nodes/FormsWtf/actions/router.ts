import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { TransportSettings } from '../shared/transport';
import { FormsWtfClient } from '../shared/transport';
import { explainedForTool } from '../shared/helpers/tool';
import { asNodeError } from '../shared/transport/errors';
import * as form from './form';
import type { FormsWtfType } from './node.type';
import * as response from './response';

type Operation = (
	this: IExecuteFunctions,
	itemIndex: number,
	client: FormsWtfClient,
) => Promise<INodeExecutionData[]>;

const operations: { [R in FormsWtfType['resource']]: Record<string, { execute: Operation }> } = {
	form: { getAll: form.getAll, get: form.get },
	response: { getAll: response.getAll, export: response.export },
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
		} catch (error) {
			if (this.continueOnFail()) {
				const json: IDataObject = { error: error instanceof Error ? error.message : String(error) };
				if (error instanceof NodeApiError || error instanceof NodeOperationError) {
					if (error.description) json.description = error.description;
					if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
				}
				returnData.push({ json, pairedItem: { item: itemIndex } });
				continue;
			}
			// As an AI Agent's tool, the model is shown the message alone: it carries the description too.
			throw explainedForTool(this, asNodeError(this.getNode(), error, itemIndex));
		}
	}
	return [returnData];
}
