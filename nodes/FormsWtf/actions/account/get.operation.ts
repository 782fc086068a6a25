import type { INodeProperties } from 'n8n-workflow';

import { timeoutOnlyOptions } from '../../shared/descriptions';
import { callService, itemFor } from '../../shared/helpers/serviceCall';
import { getAccount } from '../../shared/transport/account';
import { operationProperties, type Operation } from '../operation';

const properties: INodeProperties[] = [timeoutOnlyOptions];

export const description = operationProperties('account', 'get', properties);

/** Get Account: the plan of the key's account, its limits and what it uses of them, as sent. */
export const execute: Operation = async function (itemIndex, client) {
	const account = await callService(
		this,
		itemIndex,
		{ feature: 'account details', aboutAForm: false },
		async (call) => await getAccount(client, call),
	);
	return itemFor(itemIndex, account);
};
