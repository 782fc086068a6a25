/**
 * The runner's webhook registration calls: what n8n hands a node's webhookMethods (the URL,
 * the mode, the activation, the static data), and the endpoint that stands for n8n's URLs.
 */
import type { IDataObject, IHookFunctions, INode, INodeType } from 'n8n-workflow';

import {
	activateWebhook,
	recordWebhookRequests,
	runWebhookMethod,
	type RunWebhookMethodArgs,
} from './index';

const HOOK_TYPE = 'test.registeringHook';
const WEBHOOK_ID = '0c7e2f4a-9b1d-4a63-8e25-7f3d1a6b9c04';

/** Keeps in static data what n8n gave `create`; `checkExists` compares the URL it is given now. */
const registeringHook: INodeType = {
	description: {
		displayName: 'Registering hook',
		name: 'registeringHook',
		group: ['trigger'],
		version: 1,
		description: 'Registers its URL',
		defaults: { name: 'Hook' },
		inputs: [],
		outputs: ['main'],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'hook' }],
		properties: [],
	},
	webhookMethods: {
		default: {
			async checkExists(this: IHookFunctions) {
				const data = this.getWorkflowStaticData('node');
				return data.url !== undefined && data.url === this.getNodeWebhookUrl('default');
			},
			async create(this: IHookFunctions) {
				const data = this.getWorkflowStaticData('node');
				data.url = this.getNodeWebhookUrl('default');
				data.mode = this.getMode();
				data.activation = this.getActivationMode();
				return true;
			},
			async delete(this: IHookFunctions) {
				const data = this.getWorkflowStaticData('node');
				const had = data.url !== undefined;
				delete data.url;
				return had;
			},
		},
	},
	async webhook() {
		return {};
	},
};

const hookNode: INode = {
	id: 'hook',
	name: 'Hook',
	type: HOOK_TYPE,
	typeVersion: 1,
	position: [0, 0],
	webhookId: WEBHOOK_ID,
	parameters: {},
};

const args = (staticData: IDataObject, listening = false): RunWebhookMethodArgs => ({
	workflow: { nodes: [hookNode], connections: {}, staticData },
	node: hookNode.name,
	nodeTypes: { [HOOK_TYPE]: registeringHook },
	origin: 'http://127.0.0.1:5678',
	listening,
});

describe('webhook registration calls', () => {
	test('activation registers the Production URL once; delete removes it', async () => {
		const first = await activateWebhook(args({}));
		expect(first.created).toBe(true);
		expect(first.staticData['node:Hook']).toEqual({
			url: `http://127.0.0.1:5678/webhook/${WEBHOOK_ID}/hook`,
			mode: 'trigger',
			activation: 'activate',
		});
		expect((await activateWebhook(args(first.staticData))).created).toBe(false);
		const deleted = await runWebhookMethod('delete', args(first.staticData));
		expect(deleted.answer).toBe(true);
		expect(deleted.staticData['node:Hook']).toEqual({ mode: 'trigger', activation: 'activate' });
	});

	test('"Listen for test event" registers the Test URL in manual mode', async () => {
		const listening = await activateWebhook(args({}, true));
		expect(listening.staticData['node:Hook']).toEqual({
			url: `http://127.0.0.1:5678/webhook-test/${WEBHOOK_ID}/hook`,
			mode: 'manual',
			activation: 'manual',
		});
	});

	test('the recording endpoint keeps each request and answers 200', async () => {
		const endpoint = await recordWebhookRequests();
		try {
			const answer = await fetch(`${endpoint.origin}/webhook/${WEBHOOK_ID}/hook`, {
				method: 'POST',
				headers: { 'X-Forms-Signature': 'sha256=00' },
				body: '{"a":1}',
			});
			expect(answer.status).toBe(200);
			expect(endpoint.received).toHaveLength(1);
			expect(endpoint.received[0].headers?.['x-forms-signature']).toBe('sha256=00');
			expect(endpoint.received[0].body.toString()).toBe('{"a":1}');
		} finally {
			await endpoint.close();
		}
	});
});
