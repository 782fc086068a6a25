import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId, getTimeoutMs } from '../../shared/helpers/parameters';
import type { FormsWtfClient } from '../../shared/transport';
import { FORM_DETAIL } from '../../shared/transport/shapes';
import type { FormDetail } from '../../shared/transport/types';

const properties: INodeProperties[] = [formIdLocator, timeoutOnlyOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['form'], operation: ['get'] } },
	properties,
);

/** Get Form: the form with its questions and gate rules, as the API sends them. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: FormsWtfClient,
): Promise<INodeExecutionData[]> {
	const formId = getFormId.call(this, itemIndex);
	const timeoutMs = getTimeoutMs.call(this, itemIndex);
	const { body } = await client.request<FormDetail>({
		path: ['forms', formId],
		formId,
		itemIndex,
		timeoutMs,
		expect: FORM_DETAIL,
	});
	return [{ json: body, pairedItem: { item: itemIndex } }];
}
