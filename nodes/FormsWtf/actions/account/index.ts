import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';

export { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					'Get the account of the API key: its plan, its limits (forms, AI generations) and how much of them it uses',
				action: 'Get the account',
			},
		],
		default: 'get',
	},
	...get.description,
];
