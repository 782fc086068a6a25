import type { ApiRequest, FormsWtfClient } from './index';
import { serviceTimeMs } from './index';
import { FORM_LIST } from './shapes';
import type { FormSummary } from './types';

export interface FormList {
	/** Each form as the API sent it: an object, its fields not yet checked. */
	forms: FormSummary[];
	/** The service's clock when it answered (its Date header). */
	serviceTimeMs?: number;
}

/** The account's forms: the only place that calls the forms listing. */
export async function listForms(
	client: FormsWtfClient,
	request: Pick<ApiRequest, 'itemIndex' | 'timeoutMs' | 'deadlineMs'> = {},
): Promise<FormList> {
	// FORM_LIST checks the shape where the answer arrives: a list of objects.
	const { body, headers } = await client.request<{ forms: FormSummary[] }>({
		path: ['forms'],
		...request,
		expect: FORM_LIST,
	});
	return { forms: body.forms, serviceTimeMs: serviceTimeMs(headers) };
}
