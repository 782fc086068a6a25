import type { INodeProperties } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId } from '../../shared/helpers/parameters';
import { operationProperties, type Operation } from '../operation';
import { changeForm } from './update.operation';

const properties: INodeProperties[] = [formIdLocator, timeoutOnlyOptions];

export const description = operationProperties('form', 'unpublish', properties);

/** Unpublish Form: the form stops accepting responses; those it has stay (PUT { published: false }). */
export const execute: Operation = async function (itemIndex, client) {
	const formId = getFormId.call(this, itemIndex);
	return await changeForm.call(this, client, formId, { published: false }, itemIndex);
};
