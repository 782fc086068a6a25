import type { INodeProperties, TriggerPanelDefinition } from 'n8n-workflow';

import { outputModeProperty } from '../shared/descriptions';

const MANUAL = { registration: ['manual'] };
const AUTOMATIC = { registration: ['automatic'] };
const NO_SECRET = { show: { ...MANUAL, authentication: ['none'] } };

/** The same choice for both versions; only the default differs (version 1 was set up by hand). */
function registrationProperty(
	defaultValue: 'automatic' | 'manual',
	versions: number[],
): INodeProperties {
	return {
		displayName: 'Registration',
		name: 'registration',
		type: 'options',
		noDataExpression: true,
		default: defaultValue,
		displayOptions: { show: { '@version': versions } },
		options: [
			{
				name: 'Automatic',
				value: 'automatic',
				description:
					'When the workflow is activated, the trigger adds its webhook to the chosen forms in Forms.wtf, with a secret only it knows, and removes it when the workflow is deactivated. Needs the Forms.wtf API credential (Team plan).',
			},
			{
				name: 'Manual',
				value: 'manual',
				description:
					'You add the webhook in the Forms.wtf form builder yourself, and give this node its secret. For a Forms.wtf that does not let n8n add webhooks.',
			},
		],
	};
}

export const webhookTriggerProperties: INodeProperties[] = [
	registrationProperty('automatic', [2]),
	registrationProperty('manual', [1]),
	{
		displayName:
			'Activate the workflow: the trigger adds its webhook to each chosen form in Forms.wtf, and removes it when you deactivate the workflow. "Listen for test event" adds one for the test and removes it after. Forms.wtf must be able to reach n8n: on the live service that means a public https address. Forms.wtf does not retry: a response sent while n8n is down is lost; add the Forms.wtf Trigger to catch those up.',
		name: 'automaticNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: AUTOMATIC },
	},
	{
		displayName: 'Form Names or IDs',
		name: 'forms',
		type: 'multiOptions',
		typeOptions: { loadOptionsMethod: 'getForms' },
		required: true,
		default: [],
		displayOptions: { show: AUTOMATIC },
		description:
			'The forms whose responses start the workflow: each gets the trigger’s webhook. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
		hint: 'By expression: a list of form IDs, or IDs separated by commas',
	},
	{
		displayName:
			'In Forms.wtf, open the form → Settings → Webhooks → Add Webhook. Paste the Production URL above as the endpoint URL (the Test URL while you click "Listen for test event"), give it a secret, and put the same secret in this node’s credential. Then activate the workflow. Forms.wtf does not retry: a response sent while n8n is down or slow is lost; add the Forms.wtf Trigger to catch those up.',
		name: 'setupNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: MANUAL },
	},
	{
		displayName: 'Signature Verification',
		name: 'authentication',
		type: 'options',
		noDataExpression: true,
		default: 'signingSecret',
		displayOptions: { show: MANUAL },
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
		displayOptions: { show: MANUAL },
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
			'With Registration <b>Automatic</b>: click <b>Listen for test event</b> (the trigger adds a test webhook to the chosen forms and removes it after), then submit a response to a form; for good, activate the workflow. With <b>Manual</b>: put the <b>Test URL</b> as the webhook’s endpoint in the Forms.wtf form builder (Settings → Webhooks), click <b>Listen for test event</b> and submit a response; for good, put the <b>Production URL</b> there instead and activate the workflow.',
		active:
			'The workflow is active: each response Forms.wtf sends to the <b>Production URL</b> starts it at once (with Registration Automatic the trigger added that webhook itself). Forms.wtf does not retry, so a response sent while n8n is down or slow is lost: add the Forms.wtf Trigger to catch those up.',
	},
};
