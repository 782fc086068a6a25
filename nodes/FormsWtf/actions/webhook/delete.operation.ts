import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId } from '../../shared/helpers/parameters';
import { callService, itemFor } from '../../shared/helpers/serviceCall';
import type { FormsWtfClient } from '../../shared/transport';
import { deleteWebhook } from '../../shared/transport/webhooks';
import { requiredText } from '../form/changes';

const properties: INodeProperties[] = [
	formIdLocator,
	{
		displayName: 'Webhook ID',
		name: 'webhookId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. wh_8c2d4f1a',
		description: 'The webhook to remove; Webhook → Get Many lists the ID of each',
	},
	timeoutOnlyOptions,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['delete'] } },
	properties,
);

/**
 * Delete Webhook: `{ deleted: true }`, or `{ deleted: false }` when Forms.wtf had no such webhook
 * on the form (it answered 404): either way it is gone.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: FormsWtfClient,
): Promise<INodeExecutionData[]> {
	const formId = getFormId.call(this, itemIndex);
	const webhookId = requiredText.call(this, 'webhookId', 'Webhook ID', itemIndex);
	const outcome = await callService(
		this,
		itemIndex,
		{ feature: 'webhooks', aboutAForm: true },
		async (call) => await deleteWebhook(client, formId, webhookId, call),
	);
	return itemFor(itemIndex, { deleted: outcome === 'deleted', formId, webhookId });
}
