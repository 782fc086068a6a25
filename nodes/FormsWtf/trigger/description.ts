import type { INodeProperties } from 'n8n-workflow';

import { formIdLocator, outputModeProperty } from '../shared/descriptions';

/**
 * The trigger's parameters. Version 2 names what the trigger fires on (Trigger On, which n8n's
 * node creator lists as the trigger's actions) and what it emits on activation (On Activation,
 * Emit); version 1 keeps its options where workflows saved with it have them.
 */
const V1 = { '@version': [1] };
const V2 = { '@version': [2] };

const lookBackOption: INodeProperties = {
	displayName: 'Look-Back Window (Minutes)',
	name: 'lookBackMinutes',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 10,
	description:
		'How far behind the newest response each poll looks again, so that a response that shows up in the API a little after its timestamp is not missed. Responses in the window are never emitted twice.',
};

export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Trigger On',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		default: 'newOrUpdatedResponse',
		displayOptions: { show: V2 },
		options: [
			{
				name: 'New Response',
				value: 'newResponse',
				action: 'On new response',
				description:
					'A response submitted after the trigger was activated. A later version of a response (its respondent updated it) is not emitted again while the trigger remembers the response: within the look-back window.',
			},
			{
				name: 'New or Updated Response',
				value: 'newOrUpdatedResponse',
				action: 'On new or updated response',
				description:
					'A response submitted after the trigger was activated, and again each time its respondent updates it (same ID, later submission time)',
			},
		],
	},
	{
		displayName: 'Watch',
		name: 'watch',
		type: 'options',
		default: 'form',
		options: [
			{ name: 'One Form', value: 'form', description: 'Responses to the chosen form' },
			{
				name: 'Selected Forms',
				value: 'selectedForms',
				description: 'Responses to the forms you pick; each item carries formId and formTitle',
			},
			{
				name: 'All Forms',
				value: 'allForms',
				description:
					'Responses to any form of the account, also forms created later; each item carries formId and formTitle',
			},
		],
	},
	{ ...formIdLocator, displayOptions: { show: { watch: ['form'] } } },
	{
		displayName: 'Form Names or IDs',
		name: 'formIds',
		type: 'multiOptions',
		typeOptions: { loadOptionsMethod: 'getForms' },
		required: true,
		default: [],
		displayOptions: { show: { watch: ['selectedForms'] } },
		description:
			'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		hint: 'By expression: a list of form IDs, or IDs separated by commas',
	},
	outputModeProperty,
	{
		displayName: 'On Activation, Emit',
		name: 'onActivation',
		type: 'options',
		noDataExpression: true,
		default: 'newOnly',
		displayOptions: { show: V2 },
		options: [
			{
				name: 'Only New Responses',
				value: 'newOnly',
				description: 'Responses submitted from the moment the workflow is activated',
			},
			{
				name: 'The Newest Existing Responses, Then New Ones',
				value: 'newest',
				description:
					'A number of the newest responses that already exist (oldest first), then every new one',
			},
			{
				name: 'Every Response Since a Date, Then New Ones',
				value: 'since',
				description:
					'Every response submitted since the date you pick (oldest first, spread over several polls when there are many), then every new one',
			},
		],
	},
	{
		displayName: 'Number of Existing Responses',
		name: 'existingCount',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 2000 },
		default: 10,
		displayOptions: { show: { ...V2, onActivation: ['newest'] } },
		description:
			'How many of the newest responses that exist at activation to emit, oldest first: up to 2,000 (for more, choose Every Response Since a Date)',
	},
	{
		displayName: 'Submitted Since',
		name: 'submittedSince',
		type: 'dateTime',
		required: true,
		default: '',
		displayOptions: { show: { ...V2, onActivation: ['since'] } },
		description:
			"Every response submitted at or after this moment is emitted once the workflow is activated (a date in the future holds back the responses until then). A date without a time zone is read in the workflow's time zone.",
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: V2 },
		options: [lookBackOption],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: V1 },
		options: [
			{
				displayName: 'Existing Responses to Emit',
				name: 'backfill',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				hint: 'A number: 0 emits only responses that arrive after activation',
				description:
					'On the first poll after activation, also emit this many of the newest responses that already existed (oldest first), up to 2,000. 0 emits only responses that arrive later.',
			},
			lookBackOption,
			{
				displayName: 'Updated Responses',
				name: 'updatedResponses',
				type: 'options',
				default: 'emit',
				options: [
					{
						name: 'Emit Again',
						value: 'emit',
						description:
							'When a respondent updates a response (same ID, later submittedAt), emit the new version as a new item',
					},
					{
						name: 'Ignore',
						value: 'ignore',
						description:
							'Skip new versions of responses this trigger has already emitted, as far as it still remembers them (the look-back window)',
					},
				],
			},
		],
	},
];
