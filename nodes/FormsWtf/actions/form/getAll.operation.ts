import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { timeoutOnlyOptions } from '../../shared/descriptions';
import { getTimeoutMs } from '../../shared/helpers/parameters';
import { boundedForTool, isToolCall } from '../../shared/helpers/tool';
import type { FormsWtfClient } from '../../shared/transport';
import { listForms } from '../../shared/transport/forms';

const properties: INodeProperties[] = [timeoutOnlyOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['form'], operation: ['getAll'] } },
	properties,
);

/** List Forms: one item per form the key's account owns, personal and team forms alike. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: FormsWtfClient,
): Promise<INodeExecutionData[]> {
	const timeoutMs = getTimeoutMs.call(this, itemIndex);
	const { forms } = await listForms(client, { itemIndex, timeoutMs });
	const items: INodeExecutionData[] = forms.map((form) => ({
		json: form,
		pairedItem: { item: itemIndex },
	}));
	return isToolCall(this) ? boundedForTool(items, itemIndex, 'forms') : items;
}
