/**
 * Creating, changing and deleting forms (`POST /forms`, `PUT /forms/:id`, `DELETE /forms/:id`),
 * which the contract does not show: the service's official MCP server called them
 * (service-notes.md). A form comes back as itself or as `{ "form": {...} }`; either is read.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ApiRequest, ExpectedBody, FormsWtfClient } from './index';
import { isObject } from './errors';

type Call = Pick<ApiRequest, 'itemIndex' | 'timeoutMs'>;

function hasId(value: unknown): value is IDataObject {
	return (
		isObject(value) &&
		((typeof value.id === 'string' && value.id !== '') || typeof value.id === 'number')
	);
}

/** The form in an answer: the answer itself, or its `form`. */
export function formIn(body: unknown): IDataObject | undefined {
	if (hasId(body)) return body;
	return isObject(body) && hasId(body.form) ? body.form : undefined;
}

const ONE_FORM: ExpectedBody = {
	what: 'a form, { "id": …, "title": … }',
	accepts: (body) => formIn(body) !== undefined,
};

export interface FormChanges extends IDataObject {
	title?: string;
	description?: string | null;
	published?: boolean;
	/** Replaces the whole list of questions. */
	questions?: IDataObject[];
}

/** A new, empty form (Forms.wtf makes it unpublished, without questions). */
export async function createForm(
	client: FormsWtfClient,
	form: { title: string; description?: string },
	call: Call = {},
): Promise<IDataObject> {
	const { body } = await client.request<unknown>({
		method: 'POST',
		path: ['forms'],
		body: form,
		...call,
		expect: ONE_FORM,
	});
	return formIn(body) as IDataObject;
}

/** Changes the fields given, and only those; the form as Forms.wtf sends it back. */
export async function updateForm(
	client: FormsWtfClient,
	formId: string,
	changes: FormChanges,
	call: Call = {},
): Promise<IDataObject> {
	const { body } = await client.request<unknown>({
		method: 'PUT',
		path: ['forms', formId],
		body: changes,
		formId,
		...call,
		expect: ONE_FORM,
	});
	return formIn(body) as IDataObject;
}

/** Deletes a form for good, with its responses. */
export async function deleteForm(
	client: FormsWtfClient,
	formId: string,
	call: Call = {},
): Promise<void> {
	await client.request<unknown>({ method: 'DELETE', path: ['forms', formId], formId, ...call });
}
