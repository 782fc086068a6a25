import type { INodeProperties } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId } from '../../shared/helpers/parameters';
import { callService, itemFor } from '../../shared/helpers/serviceCall';
import { deleteWebhook } from '../../shared/transport/webhooks';
import { requiredText } from '../form/changes';
import { operationProperties, type Operation } from '../operation';

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

export const description = operationProperties('webhook', 'delete', properties);

/**
 * Delete Webhook: `{ deleted: true }`, or `{ deleted: false }` when Forms.wtf had no such webhook
 * on the form (it answered 404): either way it is gone.
 */
export const execute: Operation = async function (itemIndex, client) {
	const formId = getFormId.call(this, itemIndex);
	const webhookId = requiredText.call(this, 'webhookId', 'Webhook ID', itemIndex);
	const outcome = await callService(
		this,
		itemIndex,
		{ feature: 'webhooks', aboutAForm: true },
		async (call) => await deleteWebhook(client, formId, webhookId, call),
	);
	return itemFor(itemIndex, { deleted: outcome === 'deleted', formId, webhookId });
};
