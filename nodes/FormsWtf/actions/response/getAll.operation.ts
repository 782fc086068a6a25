import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { formIdLocator, outputModeProperty, timeoutOption } from '../../shared/descriptions';
import { formatResponse, getOutputMode } from '../../shared/helpers/output';
import { getFormId, getTimeoutMs, toApiTimestamp } from '../../shared/helpers/parameters';
import { ToolResponses } from '../../shared/helpers/tool';
import { iterateResponses } from '../../shared/transport/paging';
import { operationProperties, type Operation } from '../operation';

const properties: INodeProperties[] = [
	formIdLocator,
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		hint: 'A whole number, 1 or more. Used as a tool by an AI Agent, a call returns at most 100 responses.',
		displayOptions: { show: { returnAll: [false] } },
	},
	outputModeProperty,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Offset',
				name: 'offset',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'How many responses to skip before the first one returned: a whole number, 0 or more. With Limit, reads a form page by page.',
				displayOptions: { show: { '/returnAll': [false] } },
			},
			{
				displayName: 'Since',
				name: 'since',
				type: 'dateTime',
				default: '',
				description:
					'Only responses submitted after this moment: a date and time in ISO 8601, e.g. 2025-05-01T09:30:00Z. A date without a time zone is read in the workflow time zone.',
			},
			timeoutOption,
		],
	},
];

export const description = operationProperties('response', 'getAll', properties);

interface GetResponsesOptions extends IDataObject {
	offset?: number;
	since?: string;
	timeout?: number;
}

/** Get Responses: one item per response; Return All pages through every response for the user. */
export const execute: Operation = async function (itemIndex, client) {
	const formId = getFormId.call(this, itemIndex);
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const options = this.getNodeParameter('options', itemIndex, {}) as GetResponsesOptions;
	const outputMode = getOutputMode.call(this, itemIndex);

	let maxItems: number | undefined;
	let startOffset = 0;
	if (!returnAll) {
		// Any Limit: the pager reads it in pages of up to 1000, the API's maximum.
		maxItems = wholeNumberIn(
			this,
			this.getNodeParameter('limit', itemIndex, 50),
			'Limit',
			1,
			Number.MAX_SAFE_INTEGER,
			itemIndex,
		);
		if (options.offset !== undefined && options.offset !== null) {
			startOffset = wholeNumberIn(
				this,
				options.offset,
				'Offset',
				0,
				Number.MAX_SAFE_INTEGER,
				itemIndex,
			);
		}
	}
	const since =
		options.since === undefined || options.since === null || options.since === ''
			? undefined
			: toApiTimestamp.call(this, options.since, 'Since', itemIndex);

	const timeoutMs = getTimeoutMs.call(this, itemIndex);
	// As an AI Agent's tool: a bounded answer (see shared/helpers/tool.ts).
	const tool = ToolResponses.of(this);

	const items: INodeExecutionData[] = [];
	const query = { formId, since, itemIndex, timeoutMs };
	for await (const page of iterateResponses(client, query, {
		startOffset,
		maxItems: tool ? tool.maxItems(maxItems) : maxItems,
		onPage: tool?.onPage,
	})) {
		for (const response of page) {
			items.push({ json: formatResponse(response, outputMode), pairedItem: { item: itemIndex } });
		}
	}
	return tool
		? tool.answer(items, { formId, itemIndex, startOffset, since, limit: maxItems })
		: items;
};

function wholeNumberIn(
	context: IExecuteFunctions,
	value: unknown,
	name: string,
	min: number,
	max: number,
	itemIndex: number,
): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
		throw new NodeOperationError(
			context.getNode(),
			max === Number.MAX_SAFE_INTEGER
				? `"${name}" must be a whole number of ${min} or more`
				: `"${name}" must be a whole number from ${min} to ${max}`,
			{
				description: `Got "${String(value)}".`,
				itemIndex,
			},
		);
	}
	return number;
}
