import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId } from '../../shared/helpers/parameters';
import { callService } from '../../shared/helpers/serviceCall';
import type { FormsWtfClient } from '../../shared/transport';
import { listWebhooks } from '../../shared/transport/webhooks';

const properties: INodeProperties[] = [formIdLocator, timeoutOnlyOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['getAll'] } },
	properties,
);

/** Get Many Webhooks: one item per webhook of the form (Forms.wtf never sends their secrets). */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: FormsWtfClient,
): Promise<INodeExecutionData[]> {
	const formId = getFormId.call(this, itemIndex);
	const webhooks = await callService(
		this,
		itemIndex,
		{ feature: 'webhooks', aboutAForm: true },
		async (call) => await listWebhooks(client, formId, call),
	);
	return webhooks.map((webhook) => ({ json: webhook, pairedItem: { item: itemIndex } }));
}
