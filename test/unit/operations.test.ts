import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import nock from 'nock';

import { formById, runFormsWtf } from '../support/formsWtf';
import { API_KEY, response, useFastRetries } from './fixtures';
import { api, BASE_URL, isolateNetwork } from './nockApi';

isolateNetwork();
useFastRetries();

const run = (
	parameters: IDataObject,
	extra: { continueOnFail?: boolean; inputItems?: INodeExecutionData[] } = {},
) => runFormsWtf({ baseUrl: BASE_URL, apiKey: API_KEY, parameters, ...extra });

describe('error mapping', () => {
	const getForm = { resource: 'form', operation: 'get', formId: formById('f1') };

	it.each([
		[400, getForm, 'Forms.wtf rejected the request as invalid', /Forms.wtf said: "bad limit"/],
		[
			401,
			getForm,
			'Forms.wtf did not accept the API key',
			/invalid or has been revoked.*Settings → API Keys/,
		],
		[
			403,
			getForm,
			'Forms.wtf denied access to form "f1"',
			/Team plan or higher.*can no longer see this form/,
		],
		[404, getForm, 'Form "f1" was not found', /pick the form from the list/],
	])('%i gives a message a user can act on', async (status, parameters, message, description) => {
		api()
			.get('/api/v1/forms/f1')
			.reply(status, { error: status === 400 ? 'bad limit' : 'nope' });
		const result = await run(parameters);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(message);
		expect(result.error?.description).toMatch(description);
		expect(result.error?.name).toBe('NodeApiError');
		expect((result.error as { httpCode?: string }).httpCode).toBe(String(status));
	});

	it('403 on a merkle export says that Merkle needs the Business plan', async () => {
		api()
			.get('/api/v1/forms/f1/export')
			.query({ format: 'merkle' })
			.reply(403, { error: 'Business plan required' });
		const result = await run({
			resource: 'response',
			operation: 'export',
			formId: formById('f1'),
			format: 'merkle',
		});
		expect(result.error?.message).toBe('Merkle export needs the Forms.wtf Business plan');
		expect(result.error?.description).toContain('Choose CSV or JSON');
	});

	it('never lets the API key into an error, even when the server echoes it', async () => {
		api()
			.get('/api/v1/forms/f1')
			.reply(401, { error: `key ${API_KEY} is revoked` });
		const result = await run(getForm);
		const everything = JSON.stringify(result.run);
		expect(result.error?.description).toContain('key [redacted] is revoked');
		expect(everything).not.toContain(API_KEY);
	});

	it('never lets the API key into an error of a dropped request', async () => {
		api().get('/api/v1/forms/f1').times(4).reply(503, 'unavailable');
		const result = await run(getForm);
		expect(result.error?.message).toBe('Forms.wtf had a server error (503)');
		expect(JSON.stringify(result.run)).not.toContain(API_KEY);
	});
});

describe('input checked before any request', () => {
	it.each([
		[
			'an empty form id',
			{
				resource: 'form',
				operation: 'get',
				formId: { __rl: true, mode: 'id', value: '={{ "" }}' },
			},
			'No form chosen',
		],
		[
			'a Since that is not a date',
			{
				resource: 'response',
				operation: 'getAll',
				formId: formById('f1'),
				options: { since: '={{ "next tuesday" }}' },
			},
			'"Since" is not a date',
		],
		[
			'a Limit of 0',
			{ resource: 'response', operation: 'getAll', formId: formById('f1'), limit: '={{ 0 }}' },
			'"Limit" must be a whole number of 1 or more',
		],
		[
			'a Timeout that is not a number',
			{ resource: 'form', operation: 'getAll', options: { timeout: '={{ "soon" }}' } },
			'"Timeout" must be a number of milliseconds, 1 or more',
		],
	])('%s', async (_case, parameters, message) => {
		const result = await run(parameters);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(message);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(nock.pendingMocks()).toEqual([]);
	});
});

describe('Continue On Fail', () => {
	it('turns a failed item into an error item paired with its input, and goes on', async () => {
		api().get('/api/v1/forms/good').reply(200, {
			id: 'good',
			title: 'Good',
			slug: 'good',
			published: true,
			questions: [],
			gateRules: [],
		});
		api().get('/api/v1/forms/missing').reply(404, { error: 'Form not found' });
		api().get('/api/v1/forms/good2').reply(200, {
			id: 'good2',
			title: 'Good 2',
			slug: 'good-2',
			published: false,
			questions: [],
			gateRules: [],
		});
		const result = await run(
			{
				resource: 'form',
				operation: 'get',
				formId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
			},
			{
				continueOnFail: true,
				inputItems: [
					{ json: { id: 'good' } },
					{ json: { id: 'missing' } },
					{ json: { id: 'good2' } },
				],
			},
		);
		const items = result.outputOf('Forms.wtf');
		expect(items.map((item) => item.json.id ?? item.json.error)).toEqual([
			'good',
			'Form "missing" was not found',
			'good2',
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[1].json).toMatchObject({
			httpCode: '404',
			description: expect.stringContaining('form ID'),
		});
	});
});

describe('output of each operation', () => {
	it('List Forms: one item per form, per input item', async () => {
		const forms = [
			{
				id: 'f1',
				title: 'One',
				slug: 'one',
				published: true,
				responseCount: 2,
				createdAt: 'c',
				updatedAt: 'u',
			},
			{
				id: 'f2',
				title: 'Two',
				slug: 'two',
				published: false,
				responseCount: 0,
				createdAt: 'c',
				updatedAt: 'u',
			},
		];
		api().get('/api/v1/forms').times(2).reply(200, { forms });
		const result = await run(
			{ resource: 'form', operation: 'getAll' },
			{ inputItems: [{ json: {} }, { json: {} }] },
		);
		const items = result.outputOf('Forms.wtf');
		expect(items.map((item) => item.json)).toEqual([...forms, ...forms]);
		expect(items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 0 },
			{ item: 1 },
			{ item: 1 },
		]);
	});

	it('Get Form: the form as sent, questions and gate rules included', async () => {
		const form = {
			id: 'f1',
			title: 'One',
			slug: 'one',
			published: true,
			questions: [
				{ id: 'q1', type: 'NEW_TYPE', label: 'x', required: false, order: 0, options: ['a'] },
			],
			gateRules: [{ chain: 'base', tokenType: 'ERC721', contractAddress: '0x1', minBalance: '1' }],
		};
		api().get('/api/v1/forms/f1').reply(200, form);
		const result = await run({ resource: 'form', operation: 'get', formId: formById('f1') });
		expect(result.outputOf('Forms.wtf').map((item) => item.json)).toEqual([form]);
	});

	it('Get Responses: simplified by default, raw on request', async () => {
		const raw = response('r1');
		api()
			.get('/api/v1/forms/f1/responses')
			.query(true)
			.times(2)
			.reply(200, { responses: [raw], total: 1, hasMore: false });
		const simplified = await run({
			resource: 'response',
			operation: 'getAll',
			formId: formById('f1'),
		});
		expect(simplified.outputOf('Forms.wtf')[0].json).toEqual({
			...raw,
			answers: { Name: 'name-r1' },
		});
		const asSent = await run({
			resource: 'response',
			operation: 'getAll',
			formId: formById('f1'),
			output: 'raw',
		});
		expect(asSent.outputOf('Forms.wtf')[0].json).toEqual(raw);
	});

	it('Export: the file in the binary field, named and typed by the headers', async () => {
		const csv = 'id,walletAddress\nr1,0xab\n';
		api().get('/api/v1/forms/f1/export').query({ format: 'csv' }).reply(200, csv, {
			'Content-Type': 'text/csv; charset=utf-8',
			'Content-Disposition': 'attachment; filename="survey-responses.csv"',
		});
		const result = await run({
			resource: 'response',
			operation: 'export',
			formId: formById('f1'),
			binaryPropertyName: 'file',
		});
		const [item] = result.outputOf('Forms.wtf');
		expect(item.json).toMatchObject({
			formId: 'f1',
			format: 'csv',
			fileName: 'survey-responses.csv',
			mimeType: 'text/csv',
		});
		expect(item.binary?.file.fileName).toBe('survey-responses.csv');
		expect((await result.binaryOf('Forms.wtf', 0, 'file')).toString('utf8')).toBe(csv);
	});

	it('Export: falls back to <id>-responses.<ext> and the format’s MIME type without headers', async () => {
		api()
			.get('/api/v1/forms/f1/export')
			.query({ format: 'merkle' })
			.reply(200, Buffer.from('{"format":"standard-v1"}'));
		const result = await run({
			resource: 'response',
			operation: 'export',
			formId: formById('f1'),
			format: 'merkle',
		});
		const [item] = result.outputOf('Forms.wtf');
		expect(item.json).toMatchObject({
			fileName: 'f1-responses.merkle.json',
			mimeType: 'application/json',
		});
		expect((await result.binaryOf('Forms.wtf', 0)).toString('utf8')).toBe(
			'{"format":"standard-v1"}',
		);
	});
});
