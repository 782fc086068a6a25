import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { timeoutOnlyOptions } from '../../shared/descriptions';
import { callService, itemFor } from '../../shared/helpers/serviceCall';
import type { FormsWtfClient } from '../../shared/transport';
import { getAccount } from '../../shared/transport/account';

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
	const account = await callService(
		this,
		itemIndex,
		{ feature: 'account details', aboutAForm: false },
		async (call) => await getAccount(client, call),
	);
	return itemFor(itemIndex, account);
}
