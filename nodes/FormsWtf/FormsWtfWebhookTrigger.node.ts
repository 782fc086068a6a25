import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { testWebhookSecret } from './webhook/credentialTest';
import { webhookTriggerPanel, webhookTriggerProperties } from './webhook/description';
import { receiveDelivery } from './webhook/receive';

export class FormsWtfWebhookTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Forms.wtf Webhook Trigger',
		name: 'formsWtfWebhookTrigger',
		icon: { light: 'file:formswtf.svg', dark: 'file:formswtf.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["authentication"] === "none" ? "Unsigned" : "Signed" }}',
		description:
			'Starts the workflow the moment Forms.wtf sends a response to its webhook (instant, but a delivery n8n misses is not sent again)',
		defaults: { name: 'Forms.wtf Webhook Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'formsWtfWebhookApi',
				required: true,
				testedBy: 'formsWtfWebhookSecret',
				displayOptions: { show: { authentication: ['signingSecret'] } },
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// Forms.wtf waits 5 seconds at most: answer once the execution has started, whatever
				// the workflow does after; the service reads only the status.
				responseMode: 'onReceived',
				responseData: 'noData',
				path: 'formswtf',
			},
		],
		triggerPanel: webhookTriggerPanel,
		properties: webhookTriggerProperties,
	};

	/**
	 * Forms.wtf has no API for webhooks: the user adds this node's URL in the form builder by
	 * hand, so there is nothing for n8n to register on activation or remove on deactivation.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	methods = { credentialTest: { formsWtfWebhookSecret: testWebhookSecret } };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery(this);
	}
}
