import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId, getTimeoutMs } from '../../shared/helpers/parameters';
import type { FormsWtfClient } from '../../shared/transport';
import { deleteForm } from '../../shared/transport/formChanges';
import { explainMissingCall } from '../../shared/transport/refusals';

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

export const description = updateDisplayOptions(
	{ show: { resource: ['form'], operation: ['delete'] } },
	properties,
);

/** Delete Form: the form and all its responses, for good. One item `{ deleted: true, formId }`. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: FormsWtfClient,
): Promise<INodeExecutionData[]> {
	const formId = getFormId.call(this, itemIndex);
	const timeoutMs = getTimeoutMs.call(this, itemIndex);
	await deleteForm(client, formId, { itemIndex, timeoutMs }).catch((error: unknown) => {
		throw explainMissingCall(this.getNode(), error, 'deleting forms', {
			aboutAForm: true,
			itemIndex,
		});
	});
	return [{ json: { deleted: true, formId }, pairedItem: { item: itemIndex } }];
}
