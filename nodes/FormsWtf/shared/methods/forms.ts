import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { FormsWtfClient } from '../transport';
import { listForms } from '../transport/forms';

/** The account's forms as choices named by title, those matching `filter` (title, slug or id). */
export async function formChoices(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<Array<{ name: string; value: string }>> {
	const { forms } = await listForms(new FormsWtfClient(this));
	const needle = (filter ?? '').trim().toLowerCase();
	return forms
		.filter(
			(form) =>
				needle === '' ||
				[form.title, form.slug, form.id].some((field) =>
					String(field ?? '')
						.toLowerCase()
						.includes(needle),
				),
		)
		.map((form) => ({
			name:
				form.published === false ? `${form.title} (unpublished)` : String(form.title ?? form.id),
			value: String(form.id),
		}))
		.sort((a, b) => a.name.localeCompare(b.name));
}
