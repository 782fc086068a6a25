import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { loadOptions } from './shared/methods';
import { testWebhookSecret } from './webhook/credentialTest';
import { webhookTriggerPanel, webhookTriggerProperties } from './webhook/description';
import { receiveDelivery } from './webhook/receive';
import { createRegistration, deleteRegistration, registrationExists } from './webhook/registration';

export class FormsWtfWebhookTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Forms.wtf Webhook Trigger',
		name: 'formsWtfWebhookTrigger',
		icon: { light: 'file:formswtf.svg', dark: 'file:formswtf.dark.svg' },
		group: ['trigger'],
		// Version 2: Registration defaults to Automatic; workflows saved with version 1 keep Manual.
		version: [1, 2],
		defaultVersion: 2,
		subtitle:
			'={{ $parameter["registration"] === "automatic" ? "Registered automatically" : $parameter["authentication"] === "none" ? "Unsigned" : "Signed" }}',
		description:
			'Starts the workflow the moment Forms.wtf sends a response to its webhook (instant, but a delivery n8n misses is not sent again)',
		defaults: { name: 'Forms.wtf Webhook Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Each credential hangs on one value of one parameter, and each of those parameters has a
		// value that needs no credential (Registration: Manual, Signature Verification: None). n8n's
		// editor moves a parameter out of the node's panel, into the credential dialog, when every
		// value of it picks a credential; so both stay in the panel. The signing secret hangs on
		// Signature Verification alone, which is shown only with Registration Manual.
		credentials: [
			{
				name: 'formsWtfApi',
				required: true,
				displayOptions: { show: { registration: ['automatic'] } },
			},
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
	 * Registration Automatic adds the trigger's webhook to each chosen form, and removes it
	 * (webhook/registration.ts). With Manual the user adds it by hand: nothing to register, and
	 * what an earlier Automatic left is removed.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await registrationExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await createRegistration.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteRegistration.call(this);
			},
		},
	};

	methods = { loadOptions, credentialTest: { formsWtfWebhookSecret: testWebhookSecret } };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery(this);
	}
}
