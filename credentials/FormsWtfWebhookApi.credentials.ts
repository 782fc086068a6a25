import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The secret Forms.wtf signs webhook deliveries with. Forms.wtf has no API for webhooks, so
 * there is no request to test it with: the Webhook Trigger tests it locally (testedBy).
 */
export class FormsWtfWebhookApi implements ICredentialType {
	name = 'formsWtfWebhookApi';

	displayName = 'Forms.wtf Webhook API';

	icon: Icon = { light: 'file:formswtf.svg', dark: 'file:formswtf.dark.svg' };

	documentationUrl = 'https://github.com/formswtf/n8n-nodes-formswtf#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Signing Secret',
			name: 'secret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'The secret you gave the webhook in Forms.wtf (form → Settings → Webhooks). Deliveries signed with another secret are refused.',
		},
	];
}
