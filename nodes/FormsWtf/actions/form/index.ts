import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getAll from './getAll.operation';

export { get, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['form'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					'Get one form by its ID, with its questions (ID, type, label, required, order) and gate rules',
				action: 'Get a form',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List the forms of the account, personal and team forms, each with its ID, title, slug, published and response count',
				action: 'Get many forms',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...get.description,
];
