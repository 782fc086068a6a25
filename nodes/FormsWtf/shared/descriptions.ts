import type { INodeProperties } from 'n8n-workflow';

/** The form picker, shared by the action node and the trigger. */
export const formIdLocator: INodeProperties = {
	displayName: 'Form',
	name: 'formId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description:
		'The form to read: pick it from the list, or give its ID (Form → Get Many lists the ID of each form); both accept expressions',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a form...',
			typeOptions: {
				searchListMethod: 'searchForms',
				searchable: true,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. frm_8c2d4f1a',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: '.*\\S.*',
						errorMessage: 'Enter a form ID',
					},
				},
			],
		},
	],
};

/** Simplified or raw responses, shared by Get Responses and the trigger. */
export const outputModeProperty: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	default: 'simplified',
	description: 'The shape of each response',
	options: [
		{
			name: 'Simplified',
			value: 'simplified',
			description:
				'The response with its answers as one object keyed by question label, e.g. answers["Your name?"]. Renaming a question in Forms.wtf renames its key.',
		},
		{
			name: 'Raw',
			value: 'raw',
			description:
				'Exactly what the API sent: answers as a list, each with its question ID, which a rename does not change',
		},
	],
};

/**
 * Timeout, as n8n's HTTP Request node offers it (milliseconds, in Options). Ours also bounds
 * the wait between two parts of an answer, and a request that times out is retried.
 */
export const timeoutOption: INodeProperties = {
	displayName: 'Timeout',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 2147483647 },
	default: 30000,
	description:
		'Time in ms to wait for Forms.wtf to start answering, and at most between two parts of an answer, before the request is tried again (3 retries)',
};

/** The Options collection of an operation whose only option is the Timeout. */
export const timeoutOnlyOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add option',
	default: {},
	options: [timeoutOption],
};
