import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { formChoices } from './forms';

/** The account's forms, for the trigger's Selected Forms. */
export async function getForms(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return await formChoices.call(this);
}
