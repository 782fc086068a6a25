import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId, getTimeoutMs } from '../../shared/helpers/parameters';
import type { FormsWtfClient } from '../../shared/transport';
import { explainMissingCall } from '../../shared/transport/refusals';
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
	const timeoutMs = getTimeoutMs.call(this, itemIndex);
	const webhooks = await listWebhooks(client, formId, { itemIndex, timeoutMs }).catch(
		(error: unknown) => {
			throw explainMissingCall(this.getNode(), error, 'webhooks', { aboutAForm: true, itemIndex });
		},
	);
	return webhooks.map((webhook) => ({ json: webhook, pairedItem: { item: itemIndex } }));
}
