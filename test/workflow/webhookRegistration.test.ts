/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Registration: Automatic of the Webhook Trigger, through n8n-core's HookContext (what n8n calls
 * `checkExists`, `create` and `delete` with) against the harness's webhooks API; deliveries the
 * harness then sends go through `webhook()` as n8n would pass them on.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import { credentialsFor } from '../support/formsWtf';
import {
	WEBHOOK_NODE_NAME,
	WEBHOOK_TRIGGER_TYPE,
	webhookNodeTypes,
} from '../support/webhookTrigger';
import { startHarness, type RunningHarness } from '../harness';
import {
	activateWebhook,
	ensureRunnerReady,
	recordWebhookRequests,
	runWebhook,
	runWebhookMethod,
	type RecordingEndpoint,
	type RunWebhookMethodArgs,
	type WebhookMethodName,
	type WebhookMethodResult,
} from '../runner';

const WEBHOOK_ID = '3e6a9d14-7c2b-4f80-9a51-0d8e2b7c4f16';
const MANUAL_ACTION = 'choose Registration: Manual and add it in Forms.wtf';

let harness: RunningHarness;
let n8n: RecordingEndpoint;

beforeAll(async () => {
	await ensureRunnerReady();
	harness = await startHarness({ rateLimit: false });
	n8n = await recordWebhookRequests();
});
afterEach(async () => {
	await harness.control.reset();
	n8n.received.length = 0;
});
afterAll(async () => {
	await harness.close();
	await n8n.close();
});

const productionUrl = () => `${n8n.origin}/webhook/${WEBHOOK_ID}/formswtf`;
const testUrl = () => `${n8n.origin}/webhook-test/${WEBHOOK_ID}/formswtf`;

function triggerNode(parameters: IDataObject, typeVersion = 2, webhookId = WEBHOOK_ID): INode {
	return {
		id: 'forms-wtf-webhook-trigger',
		name: WEBHOOK_NODE_NAME,
		type: WEBHOOK_TRIGGER_TYPE,
		typeVersion,
		position: [0, 0],
		webhookId,
		parameters: parameters as INode['parameters'],
		credentials: { formsWtfApi: { id: '1', name: 'Forms.wtf' } },
	};
}

/** The workflow of one trigger node, with the static data n8n stored for it. */
function methodArgs(
	node: INode,
	staticData: IDataObject,
	listening: boolean,
): RunWebhookMethodArgs {
	return {
		workflow: { id: 'registrationWf01', nodes: [node], connections: {}, staticData },
		node: node.name,
		nodeTypes: webhookNodeTypes,
		credentials: credentialsFor(harness.baseUrl, harness.keys.team),
		origin: n8n.origin,
		listening,
	};
}

/** One call of n8n to the node's webhook methods; returns what it answered and the static data after. */
async function hook(
	name: WebhookMethodName,
	node: INode,
	staticData: IDataObject,
	listening = false,
): Promise<WebhookMethodResult> {
	return await runWebhookMethod(name, methodArgs(node, staticData, listening));
}

/** Activation as n8n does it: checkExists, and create when it answered false. */
async function activate(node: INode, staticData: IDataObject = {}, listening = false) {
	return await activateWebhook(methodArgs(node, staticData, listening));
}

async function webhooksAt(url: string) {
	return (await harness.control.webhooks()).webhooks.filter((webhook) => webhook.url === url);
}

async function until(condition: () => boolean, ms = 3_000): Promise<void> {
	const end = Date.now() + ms;
	while (!condition()) {
		if (Date.now() > end) throw new Error('condition not met');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

const registeredOf = (staticData: IDataObject) =>
	((staticData[`node:${WEBHOOK_NODE_NAME}`] as IDataObject | undefined)?.registered ??
		[]) as Array<{
		formId: string;
		url: string;
		webhookId: string;
		secret: string;
	}>;

describe('Registration: Automatic', () => {
	test('activation adds one signed webhook per form at the Production URL; a submission starts the workflow once; deactivation removes it', async () => {
		const bugs = await harness.control.form('bugs');
		const rsvp = await harness.control.form('rsvp');
		const node = triggerNode({ forms: [bugs.id, rsvp.id] });
		const { created, staticData } = await activate(node);
		expect(created).toBe(true);
		const hooks = await webhooksAt(productionUrl());
		expect(hooks.map((h) => [h.formId, h.source, h.signed, h.enabled]).sort()).toEqual(
			[
				[bugs.id, 'api', true, true],
				[rsvp.id, 'api', true, true],
			].sort(),
		);
		const registered = registeredOf(staticData);
		expect(registered.map((entry) => entry.secret.length)).toEqual([64, 64]);
		expect(new Set(registered.map((entry) => entry.secret)).size).toBe(2);
		// Re-activation (or n8n's start) finds it: nothing is added.
		expect((await activate(node, staticData)).created).toBe(false);
		expect(await webhooksAt(productionUrl())).toHaveLength(2);

		const response = await harness.control.submitResponse(bugs.id);
		await until(() => n8n.received.length === 1);
		const run = await runWebhook({
			workflow: { nodes: [node], connections: {}, staticData },
			node: node.name,
			nodeTypes: webhookNodeTypes,
			credentials: credentialsFor(harness.baseUrl, harness.keys.team),
			request: n8n.received[0],
		});
		expect(run.status).toBe(200);
		expect(run.items?.map((item) => item.json.id)).toEqual([response.id]);

		const deleted = await hook('delete', node, staticData);
		expect(deleted.answer).toBe(true);
		expect(await webhooksAt(productionUrl())).toEqual([]);
		expect(registeredOf(deleted.staticData)).toEqual([]);
	});

	test('a webhook deleted in Forms.wtf is found missing and added again, once', async () => {
		const bugs = await harness.control.form('bugs');
		const node = triggerNode({ forms: [bugs.id] });
		const first = await activate(node);
		const [entry] = registeredOf(first.staticData);
		await fetch(`${harness.baseUrl}/forms/${bugs.id}/webhooks/${entry.webhookId}`, {
			method: 'DELETE',
			headers: { Authorization: `Bearer ${harness.keys.team}` },
		});
		const second = await activate(node, first.staticData);
		expect(second.created).toBe(true);
		const hooks = await webhooksAt(productionUrl());
		expect(hooks).toHaveLength(1);
		expect(registeredOf(second.staticData).map((e) => e.webhookId)).toEqual([hooks[0].apiId]);
	});

	test('webhooks someone else made stay: on activation, on deactivation, at our URL or elsewhere', async () => {
		const bugs = await harness.control.form('bugs');
		await harness.control.addWebhook({ formId: bugs.id, url: 'https://zapier.example/hook' });
		await harness.control.addWebhook({ formId: bugs.id, url: productionUrl(), secret: 'theirs' });
		const node = triggerNode({ forms: [bugs.id] });
		const { staticData } = await activate(node);
		await hook('delete', node, staticData);
		const left = (await harness.control.webhooks()).webhooks;
		expect(left.map((w) => [w.url, w.source])).toEqual([
			['https://zapier.example/hook', 'control'],
			[productionUrl(), 'control'],
		]);
	});

	test('a form taken off the list loses our webhook at the next activation', async () => {
		const bugs = await harness.control.form('bugs');
		const rsvp = await harness.control.form('rsvp');
		const { staticData } = await activate(triggerNode({ forms: [bugs.id, rsvp.id] }));
		const narrowed = await activate(triggerNode({ forms: [rsvp.id] }), staticData);
		expect(narrowed.created).toBe(true);
		expect((await webhooksAt(productionUrl())).map((w) => w.formId)).toEqual([rsvp.id]);
		expect(registeredOf(narrowed.staticData).map((e) => e.formId)).toEqual([rsvp.id]);
	});

	test('two workflows on one form: each has its own webhook, and deactivating one leaves the other’s', async () => {
		const bugs = await harness.control.form('bugs');
		const first = triggerNode({ forms: [bugs.id] });
		const second = triggerNode({ forms: [bugs.id] }, 2, '5b8f0c2d-1e4a-4d7b-9c36-8a2f7e1d0b95');
		const one = await activate(first);
		await activate(second);
		const urls = () => harness.control.webhooks().then((list) => list.webhooks.map((w) => w.url));
		expect((await urls()).sort()).toEqual(
			[productionUrl(), productionUrl().replace(WEBHOOK_ID, second.webhookId!)].sort(),
		);
		await hook('delete', first, one.staticData);
		expect(await urls()).toEqual([productionUrl().replace(WEBHOOK_ID, second.webhookId!)]);
	});

	test('"Listen for test event" adds a webhook at the Test URL and removes only that one after', async () => {
		const bugs = await harness.control.form('bugs');
		const node = triggerNode({ forms: [bugs.id] });
		const active = await activate(node);
		const listening = await activate(node, active.staticData, true);
		expect(listening.created).toBe(true);
		expect(await webhooksAt(testUrl())).toHaveLength(1);
		const ended = await hook('delete', node, listening.staticData, true);
		expect(await webhooksAt(testUrl())).toEqual([]);
		expect(await webhooksAt(productionUrl())).toHaveLength(1);
		expect(registeredOf(ended.staticData).map((e) => e.url)).toEqual([productionUrl()]);
	});

	test('a delivery not signed with a secret the trigger made is answered 401 and starts nothing', async () => {
		const bugs = await harness.control.form('bugs');
		const node = triggerNode({ forms: [bugs.id] });
		const { staticData } = await activate(node);
		await harness.control.addWebhook({ formId: bugs.id, url: productionUrl(), secret: 'theirs' });
		await harness.control.submitResponse(bugs.id);
		await until(() => n8n.received.length === 2);
		const statuses = [];
		for (const request of n8n.received) {
			const run = await runWebhook({
				workflow: { nodes: [node], connections: {}, staticData },
				node: node.name,
				nodeTypes: webhookNodeTypes,
				credentials: credentialsFor(harness.baseUrl, harness.keys.team),
				request,
			});
			statuses.push([run.status, run.items?.length ?? 0]);
		}
		expect(statuses.sort()).toEqual([
			[200, 1],
			[401, 0],
		]);
	});
});

describe('Registration: Automatic, when Forms.wtf refuses', () => {
	const refusedWith = async (status: 403 | 404 | 405) => {
		await harness.control.injectFault({ kind: 'status', status, pathIncludes: '/webhooks' });
		const bugs = await harness.control.form('bugs');
		return await hook('create', triggerNode({ forms: [bugs.id] }), {}).catch(
			(error: Error) => error,
		);
	};

	test('404 and 405: this API has no webhooks; the message says to choose Manual', async () => {
		for (const status of [404, 405] as const) {
			const error = await refusedWith(status);
			expect(error).toBeInstanceOf(Error);
			expect((error as Error).message).toContain('No webhooks API here');
			expect((error as Error).message).toContain(MANUAL_ACTION);
		}
	});

	test('403: the plan; the message names the Team plan and the way out', async () => {
		const error = (await refusedWith(403)) as Error;
		expect(error.message).toContain('Team plan');
		expect(error.message).toContain(MANUAL_ACTION);
	});

	test('400: a URL the service will not call; the message quotes it and asks for public https', async () => {
		await harness.control.updateSettings({ webhookUrls: 'https' });
		const bugs = await harness.control.form('bugs');
		const error = (await hook('create', triggerNode({ forms: [bugs.id] }), {}).catch(
			(caught: Error) => caught,
		)) as Error;
		expect(error.message).toContain('("url must be a public https URL")');
		expect(error.message).toContain("only public https URLs. Set n8n's WEBHOOK_URL");
		expect(error.message).toContain(MANUAL_ACTION);
		expect(error.message).not.toMatch(/[0-9a-f]{64}/);
	});

	test('a refusal on the second form removes what the first got: nothing is left behind', async () => {
		const bugs = await harness.control.form('bugs');
		const foreign = (await harness.control.form('foreign')).id;
		const failed = await hook('create', triggerNode({ forms: [bugs.id, foreign] }), {}).catch(
			(error: Error) => error,
		);
		expect((failed as Error).message).toContain(MANUAL_ACTION);
		expect((await harness.control.webhooks()).webhooks).toEqual([]);
	});

	test('no form chosen: activation fails and says to choose one', async () => {
		const error = (await hook('create', triggerNode({ forms: [] }), {}).catch(
			(caught: Error) => caught,
		)) as Error;
		expect(error.message).toBe('No form chosen');
	});
});

describe('Registration: Manual', () => {
	test('a version 1 workflow stays Manual: nothing is registered', async () => {
		const node = triggerNode({}, 1);
		const { created } = await activate(node);
		expect(created).toBe(false);
		expect((await harness.control.webhooks()).webhooks).toEqual([]);
	});

	test('an active workflow changed to Manual: the old version’s webhook goes, the new one adds none', async () => {
		const bugs = await harness.control.form('bugs');
		const automatic = triggerNode({ forms: [bugs.id] });
		const { staticData } = await activate(automatic);
		// n8n removes the saved version's webhooks, then activates the new version.
		const removed = await hook('delete', automatic, staticData);
		const manual = await activate(triggerNode({ registration: 'manual' }), removed.staticData);
		expect(manual.created).toBe(false);
		expect((await harness.control.webhooks()).webhooks).toEqual([]);
	});
});
