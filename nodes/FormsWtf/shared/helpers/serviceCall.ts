import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { explainMissingCall } from '../transport/refusals';
import { getTimeoutMs } from './parameters';

/** What a call is for, as explainMissingCall names it, and whether it is about one form. */
export interface ServiceFeature {
	feature: string;
	aboutAForm: boolean;
}

/**
 * One call of an operation to a part of the API the contract does not show (account, form
 * changes, webhooks): made with the item's Timeout option, and a 405 (or a 404 not about one
 * form) told as a call this Base URL does not offer. Continue On Fail is the router's. The
 * context is a parameter, not `this`: `.call` would lose the type of the answer.
 */
export async function callService<T>(
	context: IExecuteFunctions,
	itemIndex: number,
	{ feature, aboutAForm }: ServiceFeature,
	call: (options: { itemIndex: number; timeoutMs: number | undefined }) => Promise<T>,
): Promise<T> {
	const timeoutMs = getTimeoutMs.call(context, itemIndex);
	return await call({ itemIndex, timeoutMs }).catch((error: unknown) => {
		throw explainMissingCall(context.getNode(), error, feature, { aboutAForm, itemIndex });
	});
}

/** An operation's one output item, paired with the input item it was made for. */
export function itemFor(itemIndex: number, json: IDataObject): INodeExecutionData[] {
	return [{ json, pairedItem: { item: itemIndex } }];
}
