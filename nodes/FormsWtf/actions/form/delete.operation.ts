import type { INodeProperties } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId } from '../../shared/helpers/parameters';
import { callService, itemFor } from '../../shared/helpers/serviceCall';
import { deleteForm } from '../../shared/transport/formChanges';
import { operationProperties, type Operation } from '../operation';

const properties: INodeProperties[] = [
	{
		displayName:
			'Deleting a form deletes all its responses with it, for good. Export them first (Response → Export) if you may need them.',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
	},
	formIdLocator,
	timeoutOnlyOptions,
];

export const description = operationProperties('form', 'delete', properties);

/** Delete Form: the form and all its responses, for good. One item `{ deleted: true, formId }`. */
export const execute: Operation = async function (itemIndex, client) {
	const formId = getFormId.call(this, itemIndex);
	await callService(
		this,
		itemIndex,
		{ feature: 'deleting forms', aboutAForm: true },
		async (call) => await deleteForm(client, formId, call),
	);
	return itemFor(itemIndex, { deleted: true, formId });
};
