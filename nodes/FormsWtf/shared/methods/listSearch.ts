import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { formChoices } from './forms';

/** "From List" of the form picker: the account's forms, filtered by title, slug or id. */
export async function searchForms(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	return { results: await formChoices.call(this, filter) };
}
