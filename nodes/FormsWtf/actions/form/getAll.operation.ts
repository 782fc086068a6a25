import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { timeoutOnlyOptions } from '../../descriptions/common';
import { getTimeoutMs } from '../../helpers/parameters';
import type { ExpectedBody } from '../../transport';
import { apiRequest } from '../../transport';
import { isObject } from '../../transport/errors';
import type { FormSummary } from '../../transport/types';

const properties: INodeProperties[] = [timeoutOnlyOptions];

export const description = updateDisplayOptions({ show: { resource: ['form'], operation: ['getAll'] } }, properties);

/** List Forms: one item per form the key's account owns, personal and team forms alike. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const timeoutMs = getTimeoutMs.call(this, itemIndex);
	const { body } = await (apiRequest<{ forms: FormSummary[] }>).call(this, {
		path: ['forms'],
		itemIndex,
		timeoutMs,
		expect: FORM_LIST,
	});
	return body.forms.map((form) => ({ json: form, pairedItem: { item: itemIndex } }));
}

/** `{ "forms": [ … ] }` with an object for each form: anything else is not a list of forms. */
export const FORM_LIST: ExpectedBody = {
	what: '{ "forms": [ … ] }, a list of forms',
	accepts: (body) => isObject(body) && Array.isArray(body.forms) && body.forms.every(isObject),
};
