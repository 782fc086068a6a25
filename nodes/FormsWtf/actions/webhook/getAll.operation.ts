import type { INodeProperties } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId } from '../../shared/helpers/parameters';
import { callService } from '../../shared/helpers/serviceCall';
import { listWebhooks } from '../../shared/transport/webhooks';
import { operationProperties, type Operation } from '../operation';

const properties: INodeProperties[] = [formIdLocator, timeoutOnlyOptions];

export const description = operationProperties('webhook', 'getAll', properties);

/** Get Many Webhooks: one item per webhook of the form (Forms.wtf never sends their secrets). */
export const execute: Operation = async function (itemIndex, client) {
	const formId = getFormId.call(this, itemIndex);
	const webhooks = await callService(
		this,
		itemIndex,
		{ feature: 'webhooks', aboutAForm: true },
		async (call) => await listWebhooks(client, formId, call),
	);
	return webhooks.map((webhook) => ({ json: webhook, pairedItem: { item: itemIndex } }));
};
