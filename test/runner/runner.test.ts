/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type {
	ICredentialType,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, safeRegex } from 'n8n-workflow';

import {
	configureRunner,
	ensureRunnerReady,
	runnerStartNode,
	runPoll,
	runWorkflow,
	type RunnerCredentials,
	type RunnerNodeTypes,
} from './index';

// ---------------------------------------------------------------------------------------
// Tiny node and credential types, defined here so the runner is tested on its own.

const credentialRef = { testApi: { id: '1', name: 'Test account' } };

class TestApi implements ICredentialType {
	name = 'testApi';
	displayName = 'Test API';
	properties: ICredentialType['properties'] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
		},
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: 'http://127.0.0.1:9' },
		{ displayName: 'Region', name: 'region', type: 'string', default: 'eu' },
	];
	authenticate: ICredentialType['authenticate'] = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
	};
}

/** Same fields, but `authenticate` is a function, which n8n calls as it is. */
class TestApiFn extends TestApi {
	authenticate: ICredentialType['authenticate'] = async (credentials, requestOptions) => ({
		...requestOptions,
		headers: { ...requestOptions.headers, 'X-Api-Key': `fn:${String(credentials.apiKey)}` },
	});
}

const base = (name: string, extra: Partial<INodeTypeDescription> = {}): INodeTypeDescription => ({
	displayName: name,
	name: `test.${name}`,
	group: ['transform'],
	version: 1,
	description: name,
	defaults: { name },
	inputs: ['main'],
	outputs: ['main'],
	properties: [],
	...extra,
});

/** Reads a parameter that is an expression over the input item. */
class Expression implements INodeType {
	description = base('expression', {
		properties: [{ displayName: 'Form', name: 'formId', type: 'string', default: '' }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((_, i) => ({
				json: { formId: this.getNodeParameter('formId', i) as string },
				pairedItem: { item: i },
			})),
		];
	}
}

/** GETs `path` on the credential's base URL with the credential applied; NodeApiError on failure. */
class Http implements INodeType {
	description = base('http', {
		credentials: [{ name: 'testApi', required: true }],
		properties: [{ displayName: 'Path', name: 'path', type: 'string', default: '/whoami' }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('testApi');
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < this.getInputData().length; i++) {
			try {
				const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'testApi', {
					method: 'GET',
					url: `${baseUrl}${this.getNodeParameter('path', i) as string}`,
					json: true,
				})) as JsonObject;
				out.push({ json: response, pairedItem: { item: i } });
			} catch (error) {
				const apiError = new NodeApiError(this.getNode(), error as JsonObject, { itemIndex: i });
				if (!this.continueOnFail()) throw apiError;
				out.push({ json: { error: apiError.message }, pairedItem: { item: i } });
			}
		}
		return [out];
	}
}

/** Writes one binary property from a buffer and one from a stream. */
class Binary implements INodeType {
	description = base('binary');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const data = await this.helpers.prepareBinaryData(
			Buffer.from('a,b\n1,2\n'),
			'export.csv',
			'text/csv',
		);
		const stream = await this.helpers.prepareBinaryData(
			Readable.from([Buffer.from('streamed '), Buffer.from('content')]),
			'stream.txt',
			'text/plain',
		);
		return [[{ json: {}, binary: { data, stream }, pairedItem: { item: 0 } }]];
	}
}

/** Always throws, whatever continueOnFail says: n8n's engine then decides. */
class Throws implements INodeType {
	description = base('throws');

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		throw new NodeApiError(this.getNode(), { message: 'Upstream broke' }, { httpCode: '502' });
	}
}

/**
 * Poll trigger keeping a counter in the node's static data. `behaviour` picks what a
 * trigger-mode poll does after counting; in manual mode it returns a sample without
 * writing, unless `writeInManual`.
 */
class Counter implements INodeType {
	description = base('counterTrigger', {
		group: ['trigger'],
		polling: true,
		inputs: [],
		properties: [
			{
				displayName: 'Behaviour',
				name: 'behaviour',
				type: 'options',
				default: 'emit',
				options: ['emit', 'nothing', 'fail', 'writeInManual'].map((value) => ({
					name: value,
					value,
				})),
			},
		],
	});

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const behaviour = this.getNodeParameter('behaviour') as string;
		// Feature detection, as a node must do to run on n8n < 2.41 as well.
		const budget = typeof this.getPollBudgetMs === 'function' ? this.getPollBudgetMs() : null;
		if (this.getMode() === 'manual' && behaviour !== 'writeInManual') {
			return [[{ json: { sample: true, budget } }]];
		}
		const staticData = this.getWorkflowStaticData('node');
		staticData.counter = ((staticData.counter as number | undefined) ?? 0) + 1;
		if (behaviour === 'fail') {
			throw new NodeApiError(
				this.getNode(),
				{ message: 'Service unavailable' },
				{ httpCode: '503' },
			);
		}
		if (behaviour === 'nothing') return null;
		return [[{ json: { counter: staticData.counter as number, budget } }]];
	}
}

const nodeTypes: RunnerNodeTypes = {
	'test.expression': new Expression(),
	'test.http': new Http(),
	'test.binary': new Binary(),
	'test.throws': new Throws(),
	'test.counterTrigger': new Counter(),
};

function node(
	name: string,
	type: string,
	parameters: INode['parameters'] = {},
	extra: Partial<INode> = {},
): INode {
	return {
		id: name,
		name,
		type: `test.${type}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		...extra,
	};
}

/** Start → node, the node under test fed from the runner's start node. */
function afterStart(target: INode) {
	return {
		nodes: [runnerStartNode(), target],
		connections: { Start: { main: [[{ node: target.name, type: 'main' as const, index: 0 }]] } },
	};
}

// ---------------------------------------------------------------------------------------
// A local API the HTTP node calls.

let server: Server;
let baseUrl: string;

beforeAll(async () => {
	server = createServer((req, res) => {
		res.setHeader('Content-Type', 'application/json');
		if (req.url === '/whoami') {
			const { authorization = null, 'x-api-key': apiKey = null } = req.headers;
			res.end(JSON.stringify({ authorization, apiKey }));
		} else {
			res.statusCode = 404;
			res.end(JSON.stringify({ error: 'Form not found' }));
		}
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	await new Promise<void>((resolve, reject) =>
		server.close((error) => (error ? reject(error) : resolve())),
	);
});

const credentials = (type: ICredentialType = new TestApi()): RunnerCredentials => ({
	testApi: { type, data: { apiKey: 'secret-key', baseUrl } },
});

// ---------------------------------------------------------------------------------------

describe('n8n’s regular expressions in runs here', () => {
	it('answer as JavaScript’s own do, for each of n8n’s calls', async () => {
		await ensureRunnerReady();
		expect(safeRegex.exec('b(.)', 'abcbd')?.[1]).toBe('c');
		expect(safeRegex.test('^\\d+$', '123')).toBe(true);
		expect(safeRegex.test('^\\d+$', '12a')).toBe(false);
		expect(safeRegex.replace('o', 'foo', 'g', '0')).toBe('f00');
		expect(safeRegex.matchAll('a(.)', 'a1a2').map((match) => match[1])).toEqual(['1', '2']);
		expect(safeRegex.split(',\\s*', 'a, b,c')).toEqual(['a', 'b', 'c']);
	});

	it('still stop catastrophic backtracking, with n8n’s message', async () => {
		await ensureRunnerReady();
		expect(() => safeRegex.test('^(a+)+$', `${'a'.repeat(40)}b`)).toThrow(
			'Regular expression execution timed out',
		);
	});
});

describe('runWorkflow', () => {
	it('evaluates expressions in parameters against the input items', async () => {
		const result = await runWorkflow({
			workflow: afterStart(node('Expr', 'expression', { formId: '={{ $json.formId }}-x' })),
			nodeTypes,
			inputItems: [{ json: { formId: 'f1' } }, { json: { formId: 'f2' } }],
		});

		expect(result.status).toBe('success');
		expect(result.outputOf('Start').map((i) => i.json)).toEqual([
			{ formId: 'f1' },
			{ formId: 'f2' },
		]);
		expect(result.outputOf('Expr').map((i) => i.json.formId)).toEqual(['f1-x', 'f2-x']);
	});

	it('applies the credential type’s generic authenticate with the credential data', async () => {
		const result = await runWorkflow({
			workflow: afterStart(node('Http', 'http', {}, { credentials: credentialRef })),
			nodeTypes,
			credentials: credentials(),
		});

		expect(result.status).toBe('success');
		expect(result.outputOf('Http')[0].json).toEqual({
			authorization: 'Bearer secret-key',
			apiKey: null,
		});
	});

	it('calls an authenticate function and fills credential defaults like n8n', async () => {
		let region: unknown;
		class Region extends Http {
			async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
				region = (await this.getCredentials('testApi')).region;
				return await Http.prototype.execute.call(this);
			}
		}
		const result = await runWorkflow({
			workflow: afterStart(node('Http', 'http', {}, { credentials: credentialRef })),
			nodeTypes: { ...nodeTypes, 'test.http': new Region() },
			credentials: credentials(new TestApiFn()),
		});

		expect(result.outputOf('Http')[0].json).toEqual({
			authorization: null,
			apiKey: 'fn:secret-key',
		});
		expect(region).toBe('eu');
	});

	it('stops at a NodeApiError and reports the error n8n recorded', async () => {
		const result = await runWorkflow({
			workflow: afterStart(
				node('Http', 'http', { path: '/forms/nope' }, { credentials: credentialRef }),
			),
			nodeTypes,
			credentials: credentials(),
		});

		expect(result.status).toBe('error');
		// n8n records a plain copy of the error. NodeApiError over the helper's AxiosError takes
		// its message from the status code and its description from the AxiosError's message.
		expect(result.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '404',
			message: 'The resource you are requesting could not be found',
			description: 'Request failed with status code 404',
		});
		expect(result.runData.Http[0].error).toMatchObject({ name: 'NodeApiError', httpCode: '404' });
		expect(result.outputOf('Http')).toEqual([]);
	});

	it('goes on with onError = continueRegularOutput, as the node’s continueOnFail() says', async () => {
		const result = await runWorkflow({
			workflow: afterStart(
				node(
					'Http',
					'http',
					{ path: '/forms/nope' },
					{ credentials: credentialRef, onError: 'continueRegularOutput' },
				),
			),
			nodeTypes,
			credentials: credentials(),
		});

		expect(result.status).toBe('success');
		expect(result.error).toBeUndefined();
		expect(result.outputOf('Http')).toEqual([
			{
				json: { error: 'The resource you are requesting could not be found' },
				pairedItem: { item: 0 },
			},
		]);
	});

	it('passes the input on when a node throws and continues on error (n8n’s engine)', async () => {
		const failing = await runWorkflow({
			workflow: afterStart(node('Throws', 'throws')),
			nodeTypes,
		});
		expect(failing.status).toBe('error');
		expect(failing.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '502',
			messages: ['Upstream broke'],
		});

		const throws = node('Throws', 'throws', {}, { onError: 'continueRegularOutput' });
		const continued = await runWorkflow({
			workflow: {
				nodes: [
					runnerStartNode(),
					throws,
					node('Expr', 'expression', { formId: '={{ $json.a }}' }),
				],
				connections: {
					Start: { main: [[{ node: 'Throws', type: 'main', index: 0 }]] },
					Throws: { main: [[{ node: 'Expr', type: 'main', index: 0 }]] },
				},
			},
			nodeTypes,
			inputItems: [{ json: { a: 1 } }],
		});
		expect(continued.status).toBe('success');
		expect(continued.outputOf('Throws').map((i) => i.json)).toEqual([{ a: 1 }]);
		expect(continued.runData.Throws[0].error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '502',
		});
		expect(continued.outputOf('Expr').map((i) => i.json)).toEqual([{ formId: 1 }]);

		// n8n-core 2.41 quirk: when that node is the last to run, its error stays the
		// execution's error and the execution ends as failed, with the output still there.
		const last = await runWorkflow({
			workflow: afterStart(throws),
			nodeTypes,
			inputItems: [{ json: { a: 1 } }],
		});
		expect(last.status).toBe('error');
		expect(last.outputOf('Throws').map((i) => i.json)).toEqual([{ a: 1 }]);
	});

	it('stores binary data from a buffer and a stream and reads it back (default mode: inline)', async () => {
		const result = await runWorkflow({ workflow: afterStart(node('Bin', 'binary')), nodeTypes });

		expect(result.status).toBe('success');
		const [item] = result.outputOf('Bin');
		expect(item.binary?.data).toMatchObject({
			fileName: 'export.csv',
			mimeType: 'text/csv',
			bytes: 8,
		});
		expect(item.binary?.data.id).toBeUndefined();
		expect((await result.binaryOf('Bin', 0)).toString()).toBe('a,b\n1,2\n');
		expect((await result.binaryOf('Bin', 0, 'stream')).toString()).toBe('streamed content');
		await expect(result.binaryOf('Bin', 0, 'missing')).rejects.toThrow(
			'no binary property "missing"',
		);
	});

	it('streams binary data to disk in filesystem mode', async () => {
		configureRunner({ binaryDataMode: 'filesystem' });
		try {
			const result = await runWorkflow({ workflow: afterStart(node('Bin', 'binary')), nodeTypes });
			const { stream } = result.outputOf('Bin')[0].binary ?? {};

			expect(stream?.id).toMatch(/^filesystem-v2:/);
			const path = Container.get(BinaryDataService).getPath(stream?.id ?? '');
			expect(existsSync(path)).toBe(true);
			expect((await result.binaryOf('Bin', 0, 'stream')).toString()).toBe('streamed content');

			await result.dispose();
			expect(existsSync(path)).toBe(false);
		} finally {
			configureRunner({ binaryDataMode: 'default' });
		}
	});

	it('runs a poll trigger as the start node the way "Execute workflow" does', async () => {
		const result = await runWorkflow({
			workflow: {
				nodes: [
					node('Counter', 'counterTrigger'),
					node('Expr', 'expression', { formId: "={{ 'budget ' + $json.budget }}" }),
				],
				connections: { Counter: { main: [[{ node: 'Expr', type: 'main', index: 0 }]] } },
				staticData: { 'node:Counter': { counter: 5 } },
			},
			nodeTypes,
		});

		expect(result.status).toBe('success');
		expect(result.outputOf('Counter').map((i) => i.json)).toEqual([
			{ sample: true, budget: 300000 },
		]);
		expect(result.outputOf('Expr')[0].json).toEqual({ formId: 'budget 300000' });
		expect(result.staticData).toEqual({ 'node:Counter': { counter: 5 } });
	});

	it('uses pinned data instead of running the node, as the editor does', async () => {
		const result = await runWorkflow({
			workflow: {
				nodes: [
					node('Counter', 'counterTrigger'),
					node('Expr', 'expression', { formId: '={{ $json.id }}' }),
				],
				connections: { Counter: { main: [[{ node: 'Expr', type: 'main', index: 0 }]] } },
				pinData: { Counter: [{ json: { id: 'pinned' } }] },
			},
			nodeTypes,
		});

		expect(result.outputOf('Expr').map((i) => i.json)).toEqual([{ formId: 'pinned' }]);
	});

	it('passes the emitted items on in trigger mode, where the poll already ran', async () => {
		const result = await runWorkflow({
			workflow: {
				nodes: [
					node('Counter', 'counterTrigger'),
					node('Expr', 'expression', { formId: '={{ $json.id }}' }),
				],
				connections: { Counter: { main: [[{ node: 'Expr', type: 'main', index: 0 }]] } },
			},
			nodeTypes,
			mode: 'trigger',
			inputItems: [{ json: { id: 'r1' } }],
		});

		expect(result.outputOf('Expr').map((i) => i.json)).toEqual([{ formId: 'r1' }]);
	});

	it('names the nodes that ran when asked for one that did not', async () => {
		const result = await runWorkflow({
			workflow: afterStart(node('Expr', 'expression')),
			nodeTypes,
		});
		expect(() => result.outputOf('Nope')).toThrow(
			'Node "Nope" did not run (nodes that ran: Start, Expr)',
		);
	});
});

describe('runPoll', () => {
	const counter = (behaviour = 'emit') => node('Counter', 'counterTrigger', { behaviour });

	it('advances the static data across polls like an active workflow', async () => {
		const first = await runPoll({ node: counter(), nodeTypes, mode: 'trigger' });
		expect(first.items).toEqual([[{ json: { counter: 1, budget: 300000 } }]]);
		expect(first.staticData).toEqual({ 'node:Counter': { counter: 1 } });
		expect(first.staticDataSaved).toBe(true);

		const second = await runPoll({
			node: counter(),
			nodeTypes,
			mode: 'trigger',
			staticData: first.staticData,
		});
		expect(second.items?.[0][0].json.counter).toBe(2);
		expect(second.staticData).toEqual({ 'node:Counter': { counter: 2 } });
		// Deep copies: neither the input nor the previous result changes.
		expect(first.staticData).toEqual({ 'node:Counter': { counter: 1 } });
	});

	it('leaves static data alone in manual mode', async () => {
		const staticData = { 'node:Counter': { counter: 7 }, global: { keep: true } };

		const sample = await runPoll({ node: counter(), nodeTypes, mode: 'manual', staticData });
		expect(sample.items).toEqual([[{ json: { sample: true, budget: 300000 } }]]);
		expect(sample.staticData).toEqual(staticData);

		// n8n never saves static data of a manual run, even when the node writes.
		const writing = await runPoll({
			node: counter('writeInManual'),
			nodeTypes,
			mode: 'manual',
			staticData,
		});
		expect(writing.items?.[0][0].json.counter).toBe(8);
		expect(writing.staticData).toEqual(staticData);
		expect(writing.staticDataSaved).toBe(false);
	});

	it('keeps a change made by a poll that found nothing for the next poll, without saving it', async () => {
		const result = await runPoll({ node: counter('nothing'), nodeTypes, mode: 'trigger' });
		expect(result.items).toBeNull();
		expect(result.staticData).toEqual({ 'node:Counter': { counter: 1 } });
		expect(result.staticDataSaved).toBe(false);
	});

	it('rejects with the node’s error when a poll fails, or returns it on request', async () => {
		await expect(runPoll({ node: counter('fail'), nodeTypes, mode: 'trigger' })).rejects.toThrow(
			NodeApiError,
		);

		const result = await runPoll({
			node: counter('fail'),
			nodeTypes,
			mode: 'trigger',
			staticData: { 'node:Counter': { counter: 1 } },
			throwOnError: false,
		});
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect(result.items).toBeNull();
		// The in-memory Workflow keeps what the node wrote before it threw.
		expect(result.staticData).toEqual({ 'node:Counter': { counter: 2 } });
		expect(result.staticDataSaved).toBe(false);
	});

	it('offers getPollBudgetMs with n8n’s default, a given budget, or not at all', async () => {
		const budgetOf = async (pollBudgetMs?: number | null) =>
			(await runPoll({ node: counter(), nodeTypes, mode: 'trigger', pollBudgetMs })).items?.[0][0]
				.json.budget;

		expect(await budgetOf()).toBe(300000);
		expect(await budgetOf(36000)).toBe(36000);
		expect(await budgetOf(null)).toBeNull();
		const manual = await runPoll({
			node: counter(),
			nodeTypes,
			mode: 'manual',
			pollBudgetMs: null,
		});
		expect(manual.items?.[0][0].json.budget).toBeNull();
	});
});
