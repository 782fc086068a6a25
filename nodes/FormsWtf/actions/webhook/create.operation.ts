import type { INodeProperties } from 'n8n-workflow';

import { formIdLocator, timeoutOption } from '../../shared/descriptions';
import { getFormId } from '../../shared/helpers/parameters';
import { callService, itemFor } from '../../shared/helpers/serviceCall';
import { createWebhook } from '../../shared/transport/webhooks';
import { requiredText } from '../form/changes';
import { operationProperties, type Operation } from '../operation';

const properties: INodeProperties[] = [
	formIdLocator,
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://hooks.example.com/forms',
		description:
			'Where Forms.wtf sends each new response (a POST). The live service calls only public https addresses.',
	},
	{
		displayName: 'Secret',
		name: 'secret',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description:
			'Forms.wtf signs each delivery with it (HMAC-SHA256 of the body), so the receiver can check it came from Forms.wtf. Empty: unsigned.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Enabled',
				name: 'enabled',
				type: 'boolean',
				default: true,
				description: 'Whether the webhook sends deliveries from now on',
			},
			timeoutOption,
		],
	},
];

export const description = operationProperties('webhook', 'create', properties);

/** Create Webhook: Forms.wtf POSTs each later submission of the form to the URL. */
export const execute: Operation = async function (itemIndex, client) {
	const formId = getFormId.call(this, itemIndex);
	// Forms.wtf checks the address itself and says what is wrong with it (400).
	const url = requiredText.call(this, 'url', 'URL', itemIndex);
	const secret = String(this.getNodeParameter('secret', itemIndex, ''));
	const options = this.getNodeParameter('options', itemIndex, {}) as { enabled?: boolean };
	const webhook = await callService(
		this,
		itemIndex,
		{ feature: 'webhooks', aboutAForm: true },
		async (call) =>
			await createWebhook(
				client,
				formId,
				{ url, ...(secret !== '' ? { secret } : {}), enabled: options.enabled ?? true },
				call,
			),
	);
	return itemFor(itemIndex, webhook);
};
