import type { INodeProperties } from 'n8n-workflow';

import { timeoutOption } from '../../shared/descriptions';
import { callService, itemFor } from '../../shared/helpers/serviceCall';
import { createForm } from '../../shared/transport/formChanges';
import { operationProperties, type Operation } from '../operation';
import { formDescriptionField, requiredText } from './changes';

const properties: INodeProperties[] = [
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Community Feedback Survey',
		description: 'The form’s title, 1 to 200 characters',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [formDescriptionField('Shown under the title, up to 1000 characters'), timeoutOption],
	},
];

export const description = operationProperties('form', 'create', properties);

/** Create Form: a new, empty, unpublished form; add questions with Update. */
export const execute: Operation = async function (itemIndex, client) {
	const title = requiredText.call(this, 'title', 'Title', itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as { description?: string };
	const form = await callService(
		this,
		itemIndex,
		{ feature: 'creating forms', aboutAForm: false },
		async (call) =>
			await createForm(
				client,
				{ title, ...(options.description ? { description: options.description } : {}) },
				call,
			),
	);
	return itemFor(itemIndex, form);
};
