import type { INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { timeoutOnlyOptions } from '../../shared/descriptions';
import { getTimeoutMs } from '../../shared/helpers/parameters';
import { boundedForTool, isToolCall } from '../../shared/helpers/tool';
import { listForms } from '../../shared/transport/forms';
import { operationProperties, type Operation } from '../operation';

const properties: INodeProperties[] = [timeoutOnlyOptions];

export const description = operationProperties('form', 'getAll', properties);

/** List Forms: one item per form the key's account owns, personal and team forms alike. */
export const execute: Operation = async function (itemIndex, client) {
	const timeoutMs = getTimeoutMs.call(this, itemIndex);
	const { forms } = await listForms(client, { itemIndex, timeoutMs });
	const items: INodeExecutionData[] = forms.map((form) => ({
		json: form,
		pairedItem: { item: itemIndex },
	}));
	return isToolCall(this) ? boundedForTool(items, itemIndex, 'forms') : items;
};
