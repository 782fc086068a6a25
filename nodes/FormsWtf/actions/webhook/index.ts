import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deleteWebhook from './delete.operation';
import * as getAll from './getAll.operation';

export { create, deleteWebhook as delete, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhook'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description:
					'Add a webhook to a form: Forms.wtf then POSTs each new response to its URL, signed with its secret if it has one (Team plan)',
				action: 'Create a webhook',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Remove a webhook from a form by its ID; its URL gets no more responses',
				action: 'Delete a webhook',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List the webhooks of a form, each with its ID, URL and whether it is enabled (never its secret)',
				action: 'Get many webhooks',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...create.description,
	...deleteWebhook.description,
];
