import type { INodeProperties, TriggerPanelDefinition } from 'n8n-workflow';

import { outputModeProperty } from '../shared/descriptions';

const NO_SECRET = { show: { authentication: ['none'] } };

export const webhookTriggerProperties: INodeProperties[] = [
	{
		displayName:
			'In Forms.wtf, open the form → Settings → Webhooks → Add Webhook. Paste the Production URL above as the endpoint URL (the Test URL while you click "Listen for test event"), give it a secret, and put the same secret in this node’s credential. Then activate the workflow. Forms.wtf does not retry: a response sent while n8n is down or slow is lost; add the Forms.wtf Trigger to catch those up.',
		name: 'setupNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Signature Verification',
		name: 'authentication',
		type: 'options',
		noDataExpression: true,
		default: 'signingSecret',
		options: [
			{
				name: 'Signing Secret',
				value: 'signingSecret',
				description:
					'Only deliveries signed with the webhook’s secret start the workflow; others are answered 401',
			},
			{
				name: 'None',
				value: 'none',
				description: 'Every delivery to the URL starts the workflow',
			},
		],
	},
	{
		displayName:
			'Without a secret anyone who learns this URL can post to it and start the workflow with made-up responses. Give the webhook a secret in Forms.wtf and choose Signing Secret.',
		name: 'noSecretWarning',
		type: 'notice',
		default: '',
		displayOptions: NO_SECRET,
	},
	outputModeProperty,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Only These Form IDs',
				name: 'formIds',
				type: 'string',
				default: '',
				placeholder: 'e.g. frm_8c2d4f1a, frm_51b0c9e2',
				description:
					'Start the workflow only for responses to these forms (IDs separated by commas). Deliveries for other forms are answered 200 and start nothing. Empty: every form whose webhook points here.',
			},
		],
	},
];

/** What n8n's trigger panel says beside "Listen for test event" and once the workflow is active. */
export const webhookTriggerPanel: TriggerPanelDefinition = {
	executionsHelp: {
		inactive:
			'To test: put the <b>Test URL</b> as the webhook’s endpoint in the Forms.wtf form builder (Settings → Webhooks), click <b>Listen for test event</b>, then submit a response to the form. For good: put the <b>Production URL</b> there instead and activate the workflow; every response then starts it at once.',
		active:
			'The workflow is active: each response Forms.wtf sends to the <b>Production URL</b> starts it at once. Forms.wtf does not retry, so a response sent while n8n is down or slow is lost: add the Forms.wtf Trigger to catch those up.',
	},
};
