import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { statusOf } from './webhooks';

/**
 * A call the contract does not show may be missing at a Base URL: 405, or 404 for a call not
 * about one form (about a form, 404 says the form is not there, as errors.ts tells it). Told as
 * such; any other error passes unchanged.
 */
export function explainMissingCall(
	node: INode,
	error: unknown,
	feature: string,
	options: { aboutAForm: boolean; itemIndex?: number },
): unknown {
	const status = statusOf(error);
	if (status !== 405 && !(status === 404 && !options.aboutAForm)) return error;
	return new NodeOperationError(node, `This Forms.wtf API does not offer ${feature}`, {
		description: `It answered ${status} to this call, which Forms.wtf's API reference does not list. Check that the credential's Base URL ends in /api/v1.`,
		itemIndex: options.itemIndex,
	});
}
