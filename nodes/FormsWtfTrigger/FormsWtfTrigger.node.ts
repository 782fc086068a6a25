import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { formIdLocator, outputModeProperty } from '../FormsWtf/descriptions/common';
import { listSearch } from '../FormsWtf/methods';
import { pollResponses } from './poll';

export class FormsWtfTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Forms.wtf Trigger',
		name: 'formsWtfTrigger',
		icon: { light: 'file:formswtf.svg', dark: 'file:formswtf.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["watch"] === "allForms" ? "All forms" : "New response" }}',
		description: 'Starts the workflow when new responses arrive on a Forms.wtf form, with one item per response',
		defaults: { name: 'Forms.wtf Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'formsWtfApi', required: true }],
		properties: [
			{
				displayName: 'Watch',
				name: 'watch',
				type: 'options',
				default: 'form',
				options: [
					{ name: 'One Form', value: 'form', description: 'New responses to the chosen form' },
					{
						name: 'All Forms',
						value: 'allForms',
						description: 'New responses to any form of the account; each item carries formId and formTitle',
					},
				],
			},
			{ ...formIdLocator, displayOptions: { show: { watch: ['form'] } } },
			outputModeProperty,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Existing Responses to Emit',
						name: 'backfill',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						hint: 'A number: 0 emits only responses that arrive after activation',
						description:
							'On the first poll after activation, also emit this many of the newest responses that already existed (oldest first). 0 emits only responses that arrive later.',
					},
					{
						displayName: 'Look-Back Window (Minutes)',
						name: 'lookBackMinutes',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 10,
						description:
							'How far behind the newest response each poll looks again, so that a response that shows up in the API a little after its timestamp is not missed. Responses in the window are never emitted twice.',
					},
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
		],
	};

	methods = { listSearch };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollResponses.call(this);
	}
}
