import type { INodeProperties } from 'n8n-workflow';

import * as exportResponses from './export.operation';
import * as getAll from './getAll.operation';

export { exportResponses as export, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['response'] } },
		options: [
			{
				name: 'Export',
				value: 'export',
				description: 'Export all responses of a form as a CSV, JSON or Merkle tree file',
				action: 'Export responses',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Get the responses of a form',
				action: 'Get many responses',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...exportResponses.description,
];
