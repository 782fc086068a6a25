import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { FormsWtfClient } from '../shared/transport';
import type { FormsWtfType } from './node.type';

/**
 * What each operation exports as `execute`: the router calls it once per input item, with the
 * node's context as `this`, and handles its errors (Continue On Fail).
 */
export type Operation = (
	this: IExecuteFunctions,
	itemIndex: number,
	client: FormsWtfClient,
) => Promise<INodeExecutionData[]>;

/** An operation's parameters, shown only when its resource and operation are chosen. */
export function operationProperties<R extends FormsWtfType['resource']>(
	resource: R,
	operation: Extract<FormsWtfType, { resource: R }>['operation'],
	properties: INodeProperties[],
): INodeProperties[] {
	return updateDisplayOptions(
		{ show: { resource: [resource], operation: [operation] } },
		properties,
	);
}
