import type { INodeProperties } from 'n8n-workflow';

import { formIdLocator, timeoutOnlyOptions } from '../../shared/descriptions';
import { getFormId, getTimeoutMs } from '../../shared/helpers/parameters';
import { FORM_DETAIL } from '../../shared/transport/shapes';
import type { FormDetail } from '../../shared/transport/types';
import { operationProperties, type Operation } from '../operation';

const properties: INodeProperties[] = [formIdLocator, timeoutOnlyOptions];

export const description = operationProperties('form', 'get', properties);

/** Get Form: the form with its questions and gate rules, as the API sends them. */
export const execute: Operation = async function (itemIndex, client) {
	const formId = getFormId.call(this, itemIndex);
	const timeoutMs = getTimeoutMs.call(this, itemIndex);
	const { body } = await client.request<FormDetail>({
		path: ['forms', formId],
		formId,
		itemIndex,
		timeoutMs,
		expect: FORM_DETAIL,
	});
	return [{ json: body, pairedItem: { item: itemIndex } }];
};
