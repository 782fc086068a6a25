/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Form → Create/Update/Publish/Unpublish/Delete, Webhook → Get Many/Create/Delete and Account → Get
 * in n8n's engine against the local Forms.wtf API, as plain nodes and as an AI Agent's tool.
 */
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import type { IConnections, IDataObject, INode } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { startHarness } from '../harness';
import { runnerStartNode, runWorkflow } from '../runner';
import { credentialsFor, formById, NODE_TYPE, nodeTypes, runFormsWtf } from '../support/formsWtf';

let harness: RunningHarness;

beforeAll(async () => {
	harness = await startHarness({ rateLimit: false });
});
afterEach(async () => await harness.control.reset());
afterAll(async () => await harness.close());

const run = (parameters: IDataObject, continueOnFail = false) =>
	runFormsWtf({
		baseUrl: harness.baseUrl,
		apiKey: harness.keys.team,
		parameters,
		continueOnFail,
	});

async function only(parameters: IDataObject): Promise<IDataObject> {
	const result = await run(parameters);
	expect(result.error).toBeUndefined();
	const items = result.outputOf('Forms.wtf');
	expect(items).toHaveLength(1);
	return items[0].json;
}

describe('a form’s life: create, questions, publish, unpublish, delete', () => {
	test('each step is what Forms.wtf then holds', async () => {
		const created = await only({
			resource: 'form',
			operation: 'create',
			title: 'Launch feedback',
			options: { description: 'Two minutes' },
		});
		expect(created).toMatchObject({ title: 'Launch feedback', published: false, questions: [] });
		const formId = String(created.id);
		const listed = await harness.control.listForms();
		expect(listed.some((form) => form.id === formId && form.title === 'Launch feedback')).toBe(
			true,
		);

		const questions = [
			{ type: 'SHORT_TEXT', label: 'Your name?', required: true, order: 0 },
			{ type: 'RATING', label: 'How was it?', required: false, order: 1 },
		];
		const updated = await only({
			resource: 'form',
			operation: 'update',
			formId: formById(formId),
			updateFields: { title: 'Launch survey', questions: JSON.stringify(questions) },
		});
		expect(updated.title).toBe('Launch survey');
		expect((updated.questions as IDataObject[]).map((q) => q.label)).toEqual([
			'Your name?',
			'How was it?',
		]);

		expect(
			(await only({ resource: 'form', operation: 'publish', formId: formById(formId) })).published,
		).toBe(true);
		expect(
			(await only({ resource: 'form', operation: 'unpublish', formId: formById(formId) }))
				.published,
		).toBe(false);

		expect(await only({ resource: 'form', operation: 'delete', formId: formById(formId) })).toEqual(
			{ deleted: true, formId },
		);
		expect((await harness.control.listForms()).some((form) => form.id === formId)).toBe(false);
	});

	test('Update with a question type Forms.wtf does not know: its words in the error', async () => {
		const formId = (await harness.control.form('rsvp')).id;
		const result = await run({
			resource: 'form',
			operation: 'update',
			formId: formById(formId),
			updateFields: { questions: '[{ "type": "SLIDER", "label": "x" }]' },
		});
		expect(result.error?.message).toBe('Forms.wtf rejected the request as invalid');
		expect(result.error?.description).toContain('questions[0].type must be one of');
	});

	test('Delete takes the responses with the form: the form’s responses are then not found', async () => {
		const formId = (await harness.control.form('waitlist')).id;
		await only({ resource: 'form', operation: 'delete', formId: formById(formId) });
		const result = await run({
			resource: 'response',
			operation: 'getAll',
			formId: formById(formId),
			returnAll: true,
		});
		expect(result.error?.message).toBe(`Form "${formId}" was not found`);
	});
});

describe('webhooks of a form', () => {
	let server: Server;
	let url = '';
	const bodies: string[] = [];
	beforeAll(async () => {
		server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				bodies.push(Buffer.concat(chunks).toString('utf8'));
				res.writeHead(200).end();
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/forms`;
	});
	afterAll(async () => {
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	});

	test('Create makes one that delivers, Get Many lists it without its secret, Delete removes it', async () => {
		const formId = (await harness.control.form('bugs')).id;
		const made = await only({
			resource: 'webhook',
			operation: 'create',
			formId: formById(formId),
			url,
			secret: 'a-secret-for-the-receiver',
		});
		expect(made.url).toBe(url);
		const response = await harness.control.submitResponse(formId);
		for (let waited = 0; bodies.length === 0 && waited < 3000; waited += 20)
			await new Promise((resolve) => setTimeout(resolve, 20));
		expect((JSON.parse(bodies[0]) as { response: { id: string } }).response.id).toBe(response.id);

		const listed = await run({
			resource: 'webhook',
			operation: 'getAll',
			formId: formById(formId),
		});
		expect(listed.outputOf('Forms.wtf').map((item) => item.json.id)).toEqual([made.id]);
		expect(JSON.stringify(listed.outputOf('Forms.wtf'))).not.toContain('a-secret-for-the-receiver');

		const deleted = await only({
			resource: 'webhook',
			operation: 'delete',
			formId: formById(formId),
			webhookId: String(made.id),
		});
		expect(deleted.deleted).toBe(true);
		expect((await harness.control.webhooks()).webhooks).toEqual([]);
	});

	test('Create where the service asks for https: its words, in an error item under Continue On Fail', async () => {
		await harness.control.updateSettings({ webhookUrls: 'https' });
		const formId = (await harness.control.form('bugs')).id;
		const result = await run(
			{ resource: 'webhook', operation: 'create', formId: formById(formId), url },
			true,
		);
		const [item] = result.outputOf('Forms.wtf');
		expect(item.json.error).toBe('Forms.wtf rejected the request as invalid');
		expect(String(item.json.description)).toContain('url must be a public https URL');
	});
});

describe('account', () => {
	test('Get: the plan, limits and usage of the key’s account', async () => {
		const account = await only({ resource: 'account', operation: 'get' });
		expect(account).toMatchObject({ plan: 'team', usage: { forms: expect.any(Number) } });
	});
});

describe('as an AI Agent’s tool', () => {
	const TOOL_TYPE = `${NODE_TYPE}Tool`;

	async function callTool(parameters: IDataObject, args: IDataObject) {
		const start = runnerStartNode('Agent');
		const node: INode = {
			id: 'forms-tool',
			name: 'Forms tool',
			type: TOOL_TYPE,
			typeVersion: 1,
			position: [200, 0],
			parameters: parameters as INode['parameters'],
			credentials: { formsWtfApi: { id: '1', name: 'Forms.wtf account' } },
		};
		const connections: IConnections = {
			[start.name]: { main: [[{ node: node.name, type: 'main', index: 0 }]] },
		};
		return await runWorkflow({
			workflow: { nodes: [start, node], connections },
			nodeTypes: { ...nodeTypes, [TOOL_TYPE]: nodeTypes[NODE_TYPE] },
			credentials: credentialsFor(harness.baseUrl, harness.keys.team),
			inputItems: [{ json: { ...args, toolCallId: 'call_1' } }],
		});
	}

	test('the model creates a form with the title it chose; a refusal goes back to it with what to do', async () => {
		const create = {
			resource: 'form',
			operation: 'create',
			title: "={{ $fromAI('Title', 'The new form’s title', 'string') }}",
		};
		const made = await callTool(create, { Title: 'Event RSVP' });
		expect(made.outputOf('Forms tool')[0].json.title).toBe('Event RSVP');

		const publish = {
			resource: 'form',
			operation: 'publish',
			formId: { __rl: true, mode: 'id', value: "={{ $fromAI('Form', 'The form ID', 'string') }}" },
		};
		const refused = await callTool(publish, { Form: 'no-such-form' });
		expect(refused.error?.message).toContain('Form "no-such-form" was not found');
		expect(refused.error?.message).toContain('pick the form from the list');
	});

	test('the account, as the model reads it', async () => {
		const result = await callTool({ resource: 'account', operation: 'get' }, {});
		expect(result.outputOf('Forms tool')[0].json.plan).toBe('team');
	});
});
