import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequest } from '../transport';
import { FORM_LIST } from '../transport/shapes';
import type { FormSummary } from '../transport/types';

/** "From List" of the form picker: the account's forms, filtered by title, slug or id. */
export async function searchForms(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const { body } = await (apiRequest<{ forms: FormSummary[] }>).call(this, { path: ['forms'], expect: FORM_LIST });
	const { forms } = body;
	const needle = (filter ?? '').trim().toLowerCase();
	const results = forms
		.filter(
			(form) =>
				needle === '' ||
				[form.title, form.slug, form.id].some((field) => String(field ?? '').toLowerCase().includes(needle)),
		)
		.map((form) => ({
			name: form.published === false ? `${form.title} (unpublished)` : String(form.title ?? form.id),
			value: form.id,
		}))
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
