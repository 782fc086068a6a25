/** Form → Create/Update/Publish/Unpublish/Delete, Webhook → Get Many/Create/Delete and Account → Get, against a mocked API. */
import type { IDataObject } from 'n8n-workflow';

import { formById, runFormsWtf } from '../support/formsWtf';
import { API_KEY, useFastRetries } from './fixtures';
import { api, BASE_URL, isolateNetwork } from './nockApi';

isolateNetwork();
useFastRetries();

const run = (parameters: IDataObject, extra: { continueOnFail?: boolean } = {}) =>
	runFormsWtf({ baseUrl: BASE_URL, apiKey: API_KEY, parameters, ...extra });

const FORM = { id: 'f9', title: 'Launch', slug: 'launch', published: false, questions: [] };

describe('Form → Create', () => {
	test('POSTs the title and description; the form comes out, wrapped or not', async () => {
		for (const reply of [{ form: FORM }, FORM]) {
			api()
				.post('/api/v1/forms', { title: 'Launch', description: 'Two minutes' })
				.reply(201, reply);
			const result = await run({
				resource: 'form',
				operation: 'create',
				title: '  Launch ',
				options: { description: 'Two minutes' },
			});
			expect(result.status).toBe('success');
			expect(result.outputOf('Forms.wtf').map((item) => item.json)).toEqual([FORM]);
		}
	});

	test('an empty title is refused before any request', async () => {
		const result = await run({ resource: 'form', operation: 'create', title: ' ' });
		expect(result.error?.message).toBe('"Title" is empty');
	});

	test('405 or 404: this API does not offer creating forms', async () => {
		for (const status of [404, 405]) {
			api().post('/api/v1/forms').reply(status, { error: 'Not found' });
			const result = await run({ resource: 'form', operation: 'create', title: 'x' });
			expect(result.error?.message).toBe('This Forms.wtf API does not offer creating forms');
			expect(result.error?.description).toContain(`It answered ${status}`);
		}
	});
});

describe('Form → Update, Publish, Unpublish', () => {
	test('Update sends only the fields given; Questions as JSON text replace the list', async () => {
		const questions = [{ type: 'SHORT_TEXT', label: 'Name?', required: true, order: 0 }];
		api()
			.put('/api/v1/forms/f9', { title: 'New', description: null, questions })
			.reply(200, { ...FORM, title: 'New', questions });
		const result = await run({
			resource: 'form',
			operation: 'update',
			formId: formById('f9'),
			updateFields: { title: 'New', description: '', questions: JSON.stringify(questions) },
		});
		expect(result.status).toBe('success');
		expect(result.outputOf('Forms.wtf')[0].json.title).toBe('New');
	});

	test('Update with nothing to change, or questions that are not a list, fails before any request', async () => {
		const none = await run({ resource: 'form', operation: 'update', formId: formById('f9') });
		expect(none.error?.message).toBe('Nothing to update');
		const bad = await run({
			resource: 'form',
			operation: 'update',
			formId: formById('f9'),
			updateFields: { questions: '{"type":"SHORT_TEXT"}' },
		});
		expect(bad.error?.message).toBe('"Questions" must be a JSON list of questions');
	});

	test('Update with Questions left at its empty default is refused: it would remove every question', async () => {
		const result = await run({
			resource: 'form',
			operation: 'update',
			formId: formById('f9'),
			updateFields: { questions: '[]' },
		});
		expect(result.error?.message).toBe('"Questions" must be a JSON list of questions');
		expect(result.error?.description).toContain('would remove every question');
	});

	test.each([
		['publish', true],
		['unpublish', false],
	])('%s sends { published: %s }', async (operation, published) => {
		api()
			.put('/api/v1/forms/f9', { published })
			.reply(200, { ...FORM, published });
		const result = await run({ resource: 'form', operation, formId: formById('f9') });
		expect(result.outputOf('Forms.wtf')[0].json.published).toBe(published);
	});

	test('404 on a form: the form was not found (not a missing call)', async () => {
		api().put('/api/v1/forms/f9').reply(404, { error: 'Form not found' });
		const result = await run({ resource: 'form', operation: 'publish', formId: formById('f9') });
		expect(result.error?.message).toBe('Form "f9" was not found');
	});
});

describe('Form → Delete', () => {
	test('DELETE, answered 204 or 200: one item that says so', async () => {
		for (const reply of [[204, ''] as const, [200, { success: true }] as const]) {
			api()
				.delete('/api/v1/forms/f9')
				.reply(reply[0], reply[1] as never);
			const result = await run({ resource: 'form', operation: 'delete', formId: formById('f9') });
			expect(result.outputOf('Forms.wtf').map((item) => item.json)).toEqual([
				{ deleted: true, formId: 'f9' },
			]);
		}
	});

	test('with Continue On Fail a refused delete becomes an error item paired with its input', async () => {
		api().delete('/api/v1/forms/f9').reply(403, { error: 'nope' });
		const result = await run(
			{ resource: 'form', operation: 'delete', formId: formById('f9') },
			{ continueOnFail: true },
		);
		const [item] = result.outputOf('Forms.wtf');
		expect(item.json).toMatchObject({
			error: 'Forms.wtf denied access to form "f9"',
			httpCode: '403',
		});
		expect(item.pairedItem).toEqual({ item: 0 });
	});
});

describe('Webhook', () => {
	test('Get Many: one item per webhook, ids as strings', async () => {
		api()
			.get('/api/v1/forms/f9/webhooks')
			.reply(200, [{ id: 3, url: 'https://a.example/x', enabled: true }]);
		const result = await run({ resource: 'webhook', operation: 'getAll', formId: formById('f9') });
		expect(result.outputOf('Forms.wtf').map((item) => item.json)).toEqual([
			{ id: '3', url: 'https://a.example/x', enabled: true },
		]);
	});

	test('Create: URL, secret and enabled sent; the secret is not in the output', async () => {
		api()
			.post('/api/v1/forms/f9/webhooks', {
				url: 'https://a.example/x',
				secret: 'shh-a-secret',
				enabled: false,
			})
			.reply(201, { webhook: { id: 'wh_1', url: 'https://a.example/x', enabled: false } });
		const result = await run({
			resource: 'webhook',
			operation: 'create',
			formId: formById('f9'),
			url: 'https://a.example/x',
			secret: 'shh-a-secret',
			options: { enabled: false },
		});
		expect(result.outputOf('Forms.wtf')[0].json).toEqual({
			id: 'wh_1',
			url: 'https://a.example/x',
			enabled: false,
		});
		expect(JSON.stringify(result.run)).not.toContain('shh-a-secret');
	});

	test('Create without a URL is refused before any request', async () => {
		const result = await run({
			resource: 'webhook',
			operation: 'create',
			formId: formById('f9'),
			url: ' ',
		});
		expect(result.error?.message).toBe('"URL" is empty');
	});

	test('Delete: deleted, or not there (404) which leaves it gone too', async () => {
		api().delete('/api/v1/forms/f9/webhooks/wh_1').reply(204);
		api().delete('/api/v1/forms/f9/webhooks/wh_2').reply(404, { error: 'Webhook not found' });
		const outputs = [];
		for (const webhookId of ['wh_1', 'wh_2']) {
			const result = await run({
				resource: 'webhook',
				operation: 'delete',
				formId: formById('f9'),
				webhookId,
			});
			outputs.push(result.outputOf('Forms.wtf')[0].json);
		}
		expect(outputs).toEqual([
			{ deleted: true, formId: 'f9', webhookId: 'wh_1' },
			{ deleted: false, formId: 'f9', webhookId: 'wh_2' },
		]);
	});

	test('405: this API does not offer webhooks', async () => {
		api().get('/api/v1/forms/f9/webhooks').reply(405, { error: 'Method not allowed' });
		const result = await run({ resource: 'webhook', operation: 'getAll', formId: formById('f9') });
		expect(result.error?.message).toBe('This Forms.wtf API does not offer webhooks');
	});
});

describe('Account → Get', () => {
	test('the account, out of its envelope or as sent', async () => {
		const account = { plan: 'team', limits: { forms: null }, usage: { forms: 6 } };
		for (const reply of [{ account }, account]) {
			api().get('/api/v1/account').reply(200, reply);
			const result = await run({ resource: 'account', operation: 'get' });
			expect(result.outputOf('Forms.wtf')[0].json).toEqual(account);
		}
	});

	test('404: this API does not offer account details', async () => {
		api().get('/api/v1/account').reply(404, { error: 'Not found' });
		const result = await run({ resource: 'account', operation: 'get' });
		expect(result.error?.message).toBe('This Forms.wtf API does not offer account details');
	});
});
