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
				description:
					'Export every response of a form as one file (CSV, JSON or Merkle tree) in a binary field',
				action: 'Export responses',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'Get the responses of a form, optionally only those submitted after a date, with their answers keyed by question label',
				action: 'Get many responses',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...exportResponses.description,
];
