/**
 * The account of the API key (`GET /account`): plan, limits and usage. Not in the contract; the
 * service's official MCP server called it (service-notes.md). Its shape is not public: the
 * object is passed on as sent, out of its `{ "account": … }` envelope when it has one.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ApiRequest, ExpectedBody, FormsWtfClient } from './index';
import { isObject } from './errors';

const ACCOUNT: ExpectedBody = {
	what: 'the account, { "plan": …, "limits": …, "usage": … }',
	accepts: (body) => isObject(body),
};

export async function getAccount(
	client: FormsWtfClient,
	call: Pick<ApiRequest, 'itemIndex' | 'timeoutMs'> = {},
): Promise<IDataObject> {
	const { body } = await client.request<IDataObject>({
		path: ['account'],
		...call,
		expect: ACCOUNT,
	});
	return isObject(body.account) ? (body.account as IDataObject) : body;
}
