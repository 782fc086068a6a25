import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId } from '../../shared/helpers/parameters';
import { callService, itemFor } from '../../shared/helpers/serviceCall';
import type { FormsWtfClient } from '../../shared/transport';
import { updateForm, type FormChanges } from '../../shared/transport/formChanges';
import { operationProperties, type Operation } from '../operation';
import { formDescriptionField, parseQuestions } from './changes';

const properties: INodeProperties[] = [
	formIdLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add field',
		default: {},
		options: [
			formDescriptionField('Shown under the title, up to 1000 characters; empty removes it'),
			{
				displayName: 'Published',
				name: 'published',
				type: 'boolean',
				default: true,
				description: 'Whether the form accepts responses',
			},
			{
				displayName: 'Questions',
				name: 'questions',
				type: 'json',
				default: '[]',
				description:
					'The form’s questions, as a JSON list: each { "type", "label", "required", "order" } and, to keep an existing question, the ID that Form → Get shows for it',
				hint: 'Replaces the whole list: a question left out is removed. Start from Form → Get to keep the ones you have.',
			},
			{
				displayName: 'Title',
				name: 'title',
				type: 'string',
				default: '',
				description: 'The form’s title, 1 to 200 characters',
			},
		],
	},
	timeoutOnlyOptions,
];

export const description = operationProperties('form', 'update', properties);

/** Update Form: the fields given change, the others stay; the form as Forms.wtf sends it back. */
export const execute: Operation = async function (itemIndex, client) {
	const formId = getFormId.call(this, itemIndex);
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as Record<string, unknown>;
	const changes: FormChanges = {};
	if (typeof fields.title === 'string' && fields.title.trim() !== '') changes.title = fields.title;
	if (typeof fields.description === 'string')
		changes.description = fields.description === '' ? null : fields.description;
	if (typeof fields.published === 'boolean') changes.published = fields.published;
	if (fields.questions !== undefined)
		changes.questions = parseQuestions.call(this, fields.questions, itemIndex);
	if (Object.keys(changes).length === 0)
		throw new NodeOperationError(this.getNode(), 'Nothing to update', {
			description:
				'Add a field under "Update Fields" (Title, Description, Published or Questions).',
			itemIndex,
		});
	return await changeForm.call(this, client, formId, changes, itemIndex);
};

/** PUT the changes; shared by Update, Publish and Unpublish. */
export async function changeForm(
	this: IExecuteFunctions,
	client: FormsWtfClient,
	formId: string,
	changes: FormChanges,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const form = await callService(
		this,
		itemIndex,
		{ feature: 'changing forms', aboutAForm: true },
		async (call) => await updateForm(client, formId, changes, call),
	);
	return itemFor(itemIndex, form);
}
