import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { timeoutOnlyOptions } from '../../shared/descriptions';
import { getTimeoutMs } from '../../shared/helpers/parameters';
import type { FormsWtfClient } from '../../shared/transport';
import { getAccount } from '../../shared/transport/account';
import { explainMissingCall } from '../../shared/transport/refusals';

const properties: INodeProperties[] = [timeoutOnlyOptions];

export const description = updateDisplayOptions(
	{ show: { resource: ['account'], operation: ['get'] } },
	properties,
);

/** Get Account: the plan of the key's account, its limits and what it uses of them, as sent. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: FormsWtfClient,
): Promise<INodeExecutionData[]> {
	const timeoutMs = getTimeoutMs.call(this, itemIndex);
	const account = await getAccount(client, { itemIndex, timeoutMs }).catch((error: unknown) => {
		throw explainMissingCall(this.getNode(), error, 'account details', {
			aboutAForm: false,
			itemIndex,
		});
	});
	return [{ json: account, pairedItem: { item: itemIndex } }];
}
