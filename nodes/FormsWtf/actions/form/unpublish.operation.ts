import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId } from '../../shared/helpers/parameters';
import type { FormsWtfClient } from '../../shared/transport';
import { changeForm } from './update.operation';

const properties: INodeProperties[] = [formIdLocator, timeoutOnlyOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['form'], operation: ['unpublish'] } },
	properties,
);

/** Unpublish Form: the form stops accepting responses; those it has stay (PUT { published: false }). */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: FormsWtfClient,
): Promise<INodeExecutionData[]> {
	const formId = getFormId.call(this, itemIndex);
	return await changeForm.call(this, client, formId, { published: false }, itemIndex);
}
