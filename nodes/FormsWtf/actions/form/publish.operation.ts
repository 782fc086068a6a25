import type { INodeProperties } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId } from '../../shared/helpers/parameters';
import { operationProperties, type Operation } from '../operation';
import { changeForm } from './update.operation';

const properties: INodeProperties[] = [formIdLocator, timeoutOnlyOptions];

export const description = operationProperties('form', 'publish', properties);

/** Publish Form: the form accepts responses (PUT { published: true }). */
export const execute: Operation = async function (itemIndex, client) {
	const formId = getFormId.call(this, itemIndex);
	return await changeForm.call(this, client, formId, { published: true }, itemIndex);
};
