/**
 * The action node in n8n's engine against the local Forms.wtf API: every operation, Return All
 * over thousands of responses, exports of each format, Continue On Fail, expressions, and the
 * trigger in manual mode feeding a second node.
 */
import { parse } from 'csv-parse/sync';
import type { IConnections, IDataObject } from 'n8n-workflow';
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';

import type { RunningHarness } from '../harness';
import { startHarness } from '../harness';
import { runWorkflow } from '../runner';
import { DEFAULT_RETRY_POLICY } from '../../nodes/FormsWtf/shared/transport/retry';
import { resetTestRetryPolicy, testRetryPolicy } from '../support/retryPolicy';
import {
	credentialsFor,
	formById,
	formsWtfNode,
	nodeTypes,
	runFormsWtf,
	triggerNode,
} from '../support/formsWtf';

const LARGE = 5_000;
let harness: RunningHarness;
let feedbackId: string;
let largeId: string;

beforeAll(async () => {
	harness = await startHarness({ rateLimit: false, largeFormResponses: LARGE });
	feedbackId = (await harness.control.form('feedback')).id;
	largeId = (await harness.control.form('large')).id;
});
afterAll(async () => await harness.close());

const run = (parameters: IDataObject, apiKey?: string) =>
	runFormsWtf({ baseUrl: harness.baseUrl, apiKey: apiKey ?? harness.keys.team, parameters });

const readAllFromApi = (formId: string) => readAll(harness, formId);

describe('Forms.wtf node against the local API', () => {
	it('lists the forms of the account and no one else’s', async () => {
		const result = await run({ resource: 'form', operation: 'getAll' });
		const listed = result
			.outputOf('Forms.wtf')
			.map((item) => item.json.id)
			.sort();
		const own = (await harness.control.listForms())
			.filter((form) => form.owner === 'demo')
			.map((form) => form.id)
			.sort();
		expect(listed).toEqual(own);
	});

	it('gets a form with its questions in order', async () => {
		const result = await run({ resource: 'form', operation: 'get', formId: formById(feedbackId) });
		const form = result.outputOf('Forms.wtf')[0].json;
		expect(form.id).toBe(feedbackId);
		const questions = form.questions as IDataObject[];
		expect(questions.map((question) => question.order)).toEqual(questions.map((_, i) => i));
	});

	it('Return All reads every response of a large form in pages of 1000, each read ahead overlapping by one', async () => {
		await harness.control.clearRequestLog();
		const result = await run({
			resource: 'response',
			operation: 'getAll',
			formId: formById(largeId),
			returnAll: true,
			output: 'raw',
		});
		const items = result.outputOf('Forms.wtf');
		expect(items).toHaveLength(LARGE);
		expect(items.map((item) => item.json)).toEqual(await readAllFromApi(largeId));
		const requests = (await harness.control.requestLog()).filter((entry) => entry.plan === 'team');
		// The first page, then pages of 1000 that each start on the last response of the one before.
		expect(requests).toHaveLength(1 + Math.ceil((LARGE - 1000) / 999));
		expect(requests.every((entry) => entry.query.limit === '1000')).toBe(true);
	});

	it('Since returns only later responses; Limit and Offset pick a slice', async () => {
		const all = await readAllFromApi(feedbackId);
		const times = all.map((response) => String(response.submittedAt)).sort();
		const since = times[times.length - 11];
		const later = await run({
			resource: 'response',
			operation: 'getAll',
			formId: formById(feedbackId),
			returnAll: true,
			options: { since },
		});
		expect(later.outputOf('Forms.wtf').every((item) => String(item.json.submittedAt) > since)).toBe(
			true,
		);
		expect(later.outputOf('Forms.wtf')).toHaveLength(times.filter((time) => time > since).length);

		const slice = await run({
			resource: 'response',
			operation: 'getAll',
			formId: formById(feedbackId),
			limit: 5,
			options: { offset: 10 },
			output: 'raw',
		});
		expect(slice.outputOf('Forms.wtf').map((item) => item.json.id)).toEqual(
			all.slice(10, 15).map((response) => response.id),
		);
	});

	it('simplified output keeps repeated labels apart and passes odd values through', async () => {
		const result = await run({
			resource: 'response',
			operation: 'getAll',
			formId: formById(feedbackId),
			returnAll: true,
		});
		const raw = await readAllFromApi(feedbackId);
		const byId = new Map(raw.map((response) => [response.id, response]));
		for (const item of result.outputOf('Forms.wtf')) {
			const original = byId.get(item.json.id) as {
				answers: Array<{ questionLabel: string; value: unknown }>;
			};
			const answers = item.json.answers as IDataObject;
			expect(Object.keys(answers)).toHaveLength(original.answers.length);
			expect(Object.values(answers)).toEqual(original.answers.map((answer) => answer.value));
		}
	});

	it('exports CSV, JSON and a Merkle tree as files that parse back to the responses', async () => {
		const responses = await readAllFromApi(feedbackId);
		const csv = await run({
			resource: 'response',
			operation: 'export',
			formId: formById(feedbackId),
		});
		const csvItem = csv.outputOf('Forms.wtf')[0];
		expect(csvItem.json).toMatchObject({
			format: 'csv',
			mimeType: 'text/csv',
			fileName: expect.stringMatching(/-responses\.csv$/),
		});
		const rows = parse(await csv.binaryOf('Forms.wtf', 0), { columns: true }) as Array<
			Record<string, string>
		>;
		expect(rows.map((row) => row.id)).toEqual(responses.map((response) => response.id));

		const json = await run({
			resource: 'response',
			operation: 'export',
			formId: formById(feedbackId),
			format: 'json',
			binaryPropertyName: 'export',
		});
		expect(JSON.parse((await json.binaryOf('Forms.wtf', 0, 'export')).toString('utf8'))).toEqual(
			responses,
		);

		const merkle = await run(
			{ resource: 'response', operation: 'export', formId: formById(feedbackId), format: 'merkle' },
			harness.keys.business,
		);
		const tree = StandardMerkleTree.load(
			JSON.parse((await merkle.binaryOf('Forms.wtf', 0)).toString('utf8')),
		);
		tree.validate();
		const wallets = new Set(
			responses
				.map((response) => String(response.walletAddress))
				.filter((wallet) => wallet.startsWith('0x')),
		);
		expect(new Set([...tree.entries()].map(([, value]) => String(value[0])))).toEqual(wallets);
	});

	it('Continue On Fail: plan and form errors become items, the rest goes on', async () => {
		const start = {
			id: 'start',
			name: 'Start',
			type: 'n8n-runner.start',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: {},
		};
		const node = formsWtfNode(
			{
				resource: 'form',
				operation: 'get',
				formId: { __rl: true, mode: 'id', value: '={{ $json.formId }}' },
			},
			{ onError: 'continueRegularOutput' },
		);
		const connections: IConnections = {
			Start: { main: [[{ node: 'Forms.wtf', type: 'main', index: 0 }]] },
		};
		const foreign = (await harness.control.form('foreign')).id;
		const result = await runWorkflow({
			workflow: { nodes: [start, node], connections },
			nodeTypes,
			credentials: credentialsFor(harness.baseUrl, harness.keys.team),
			inputItems: [
				{ json: { formId: feedbackId } },
				{ json: { formId: foreign } },
				{ json: { formId: largeId } },
			],
		});
		const items = result.outputOf('Forms.wtf');
		expect(items.map((item) => item.json.id ?? item.json.error)).toEqual([
			feedbackId,
			`Form "${foreign}" was not found`,
			largeId,
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('a plan below Team is told that the API needs Team', async () => {
		const result = await run({ resource: 'form', operation: 'getAll' }, harness.keys.pro);
		expect(result.error?.message).toBe("Your Forms.wtf plan doesn't include API access");
	});

	it('the trigger in manual mode feeds a second node', async () => {
		await harness.control.submitResponses(feedbackId, [{}]);
		const trigger = triggerNode({ watch: 'allForms', options: {} });
		const getForm = formsWtfNode({
			resource: 'form',
			operation: 'get',
			formId: { __rl: true, mode: 'id', value: '={{ $json.formId }}' },
		});
		const result = await runWorkflow({
			workflow: {
				nodes: [trigger, getForm],
				connections: {
					[trigger.name]: { main: [[{ node: getForm.name, type: 'main', index: 0 }]] },
				},
			},
			nodeTypes,
			credentials: credentialsFor(harness.baseUrl, harness.keys.team),
		});
		expect(result.status).toBe('success');
		const [event] = result.outputOf(trigger.name);
		expect(event.json.formId).toBe(feedbackId);
		expect(result.outputOf('Forms.wtf')[0].json.title).toBe('Community Feedback Survey');
	});
});

describe('Return All at scale', () => {
	let big: RunningHarness;
	beforeAll(async () => {
		big = await startHarness({ rateLimit: false, largeFormResponses: 200_000 });
	});
	afterAll(async () => await big.close());

	// More items than a function call can take as spread arguments (about 120,000 on Node 20).
	it('returns 200,000 responses as 200,000 items', async () => {
		const largeForm = (await big.control.form('large')).id;
		const result = await runFormsWtf({
			baseUrl: big.baseUrl,
			apiKey: big.keys.team,
			parameters: {
				resource: 'response',
				operation: 'getAll',
				formId: formById(largeForm),
				returnAll: true,
				output: 'raw',
			},
		});
		expect(result.error?.message).toBeUndefined();
		expect(result.outputOf('Forms.wtf')).toHaveLength(200_000);
	}, 120_000);
});

describe('when the server is slow, busy or answers out of order', () => {
	const COUNT = 2_500;
	let slow: RunningHarness;
	let formId: string;
	let seeded: string[];

	beforeAll(async () => {
		slow = await startHarness({ rateLimit: false, largeFormResponses: COUNT });
		formId = (await slow.control.form('large')).id;
	});
	beforeEach(async () => {
		await slow.control.reset();
		Object.assign(testRetryPolicy, { baseDelayMs: 1, maxDelayMs: 4 });
		seeded = (await readAll(slow, formId)).map((response) => String(response.id));
		await slow.control.clearRequestLog();
	});
	afterEach(() => resetTestRetryPolicy());
	afterAll(async () => await slow.close());

	const getMany = (extra: IDataObject = {}) =>
		runFormsWtf({
			baseUrl: slow.baseUrl,
			apiKey: slow.keys.team,
			parameters: {
				resource: 'response',
				operation: 'getAll',
				formId: formById(formId),
				returnAll: true,
				...extra,
			},
		});
	const idsOf = (result: Awaited<ReturnType<typeof getMany>>) =>
		result.outputOf('Forms.wtf').map((item) => String(item.json.id));
	const responseOffsets = async () =>
		(await slow.control.requestLog())
			.filter((entry) => entry.path.endsWith('/responses'))
			.map((entry) => Number(entry.query.offset));

	it('Return All skips nothing when a page read ahead is answered first and a response arrives in between', async () => {
		// The page at 1000 waits until the request after it (read ahead) has been answered; one
		// response arrives, then the page at 1000 is answered, one response later than the other.
		await slow.control.holdUntilNextAnswered('offset=1000', 1);
		const result = await getMany();
		expect(result.status).toBe('success');
		expect((await slow.control.listHooks()).fired).toBe(1);
		// The page read ahead at 1999 did not hold the last response of the page at 1000 (it had
		// moved to 1999 meanwhile), so it was dropped and the walk read on from 2000.
		expect(await responseOffsets()).toEqual([0, 1000, 1999, 2000]);
		const ids = idsOf(result);
		expect(new Set(ids).size).toBe(ids.length);
		expect(seeded.filter((id) => !ids.includes(id))).toEqual([]);
	});

	it('Return All goes on when a page’s worth of responses arrives between two page requests', async () => {
		await slow.control.insertAfterAnswer('offset=0', 1000);
		const result = await getMany();
		expect(result.status).toBe('success');
		const ids = idsOf(result);
		expect(new Set(ids).size).toBe(ids.length);
		expect(seeded.filter((id) => !ids.includes(id))).toEqual([]);
	});

	it('Return All reads a server that serves 100 responses per page, whatever the limit asks', async () => {
		await slow.control.updateSettings({ pageSizeCap: 100 });
		const result = await getMany();
		expect(result.status).toBe('success');
		expect(idsOf(result)).toEqual(seeded);
		// About one request per served page (each read ahead overlaps by one): no runaway.
		expect((await responseOffsets()).length).toBeLessThanOrEqual(Math.ceil(COUNT / 99) + 3);
	});

	it('Limit above 1000 reads pages of up to 1000, with the guarantees of Return All', async () => {
		await slow.control.insertAfterAnswer('offset=0', 1000);
		const result = await getMany({ returnAll: false, limit: 2300 });
		expect(result.status).toBe('success');
		const ids = idsOf(result);
		expect(ids).toHaveLength(2300);
		expect(new Set(ids).size).toBe(2300);
		// The responses that were newest when the run began, in their order.
		expect(ids).toEqual(seeded.slice(0, 2300));
		const limits = (await slow.control.requestLog()).map((entry) => Number(entry.query.limit));
		expect(Math.max(...limits)).toBe(1000);
	});

	it('a server that never answers: retried, then a timeout error, with the node’s Timeout', async () => {
		await slow.control.neverAnswer('/responses', 4);
		const result = await getMany({ options: { timeout: 200 } });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('Forms.wtf did not answer within 0.2 s');
		expect(result.error?.description).toContain('timed out 4 times');
		expect(await responseOffsets()).toEqual([0, 0, 0, 0]);
	});

	it('a body that stalls halfway is retried like a dropped connection', async () => {
		await slow.control.stallBody('offset=0', 2000);
		const result = await getMany({ options: { timeout: 200 } });
		expect(result.status).toBe('success');
		expect(idsOf(result)).toEqual(seeded);
		expect((await responseOffsets()).filter((offset) => offset === 0)).toHaveLength(2);
	});

	it.each([
		['a body that stalls every time', '/forms/', 100, 4, { resource: 'form', operation: 'get' }],
		[
			'an export that stalls halfway',
			'/export',
			1000,
			1,
			{ resource: 'response', operation: 'export' },
		],
	] as const)(
		'%s ends with a clear error after the Timeout',
		async (_name, path, afterBytes, times, operation) => {
			await slow.control.stallBody(path, afterBytes, times);
			const result = await runFormsWtf({
				baseUrl: slow.baseUrl,
				apiKey: slow.keys.team,
				parameters: { ...operation, formId: formById(formId), options: { timeout: 200 } },
			});
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe('Forms.wtf stopped sending in the middle of an answer');
		},
	);
});

describe('hostile answers from the local API', () => {
	let hostile: RunningHarness;
	let formId: string;
	let waits: number[];

	beforeAll(async () => {
		hostile = await startHarness({ rateLimit: false });
		formId = (await hostile.control.form('bugs')).id;
	});
	beforeEach(async () => {
		await hostile.control.reset();
		waits = [];
		// The real retry rules with a floor of 20 ms instead of 1 s, and the waits recorded.
		Object.assign(testRetryPolicy, {
			minDelayMs: 20,
			baseDelayMs: 1,
			maxDelayMs: 4,
			maxRateLimitRetries: 5,
		});
		testRetryPolicy.wait = async (ms, signal) => {
			waits.push(ms);
			await DEFAULT_RETRY_POLICY.wait(ms, signal);
		};
	});
	afterEach(() => resetTestRetryPolicy());
	afterAll(async () => await hostile.close());

	const runHostile = (parameters: IDataObject, apiKey = hostile.keys.team) =>
		runFormsWtf({ baseUrl: hostile.baseUrl, apiKey, parameters });
	const requestCount = async () => (await hostile.control.requestLog()).length;

	it.each([
		['Retry-After: 0', { retryAfterSeconds: 0 }],
		['Retry-After an HTTP date an hour past', { retryAfterDateOffsetMs: -3_600_000 }],
		['no Retry-After', {}],
	])(
		'a 429 with %s, for ever: a bounded number of requests, none sooner than the floor',
		async (_name, retryAfter) => {
			await hostile.control.injectFault({
				kind: 'status',
				status: 429,
				times: 1000,
				...retryAfter,
			});
			const result = await runHostile({ resource: 'form', operation: 'getAll' });
			expect(result.error?.message).toBe('Forms.wtf rate limit reached');
			expect(await requestCount()).toBe(6);
			expect(waits).toHaveLength(5);
			expect(Math.min(...waits)).toBeGreaterThanOrEqual(20);
		},
	);

	it('a 429 whose Retry-After date is already past, then the answer', async () => {
		await hostile.control.injectFault({
			kind: 'status',
			status: 429,
			times: 2,
			retryAfterDateOffsetMs: -5_000,
		});
		const result = await runHostile({
			resource: 'form',
			operation: 'get',
			formId: formById(formId),
		});
		expect(result.status).toBe('success');
		expect(waits).toEqual([20, 20]);
	});

	it.each([
		['ends in a line break', (key: string) => `${key}\n`],
		['ends in a space and a tab', (key: string) => `${key} \t`],
		['is as it should be', (key: string) => key],
	])('a key that %s, echoed by the server, is in no field of the error', async (_name, stored) => {
		const key = hostile.keys.team;
		await hostile.control.injectFault({
			kind: 'status',
			status: 503,
			times: 4,
			message: `${'z'.repeat(488)}${key} is overloaded`,
		});
		const result = await runHostile(
			{ resource: 'form', operation: 'get', formId: formById(formId) },
			stored(key),
		);
		expect(result.error?.message).toBe('Forms.wtf had a server error (503)');
		expect(result.error?.description).toContain('[redacted]');
		for (const text of [JSON.stringify(result.error), JSON.stringify(result.run)]) {
			expect(text).not.toContain(key.slice(0, 8));
		}
		// The key was sent as n8n sends it: trimmed, so the API accepts it.
		const ok = await runHostile(
			{ resource: 'form', operation: 'get', formId: formById(formId) },
			stored(key),
		);
		expect(ok.status).toBe('success');
	});

	it.each([
		[
			{ resource: 'form', operation: 'getAll' },
			{ error: 'maintenance' },
			'got { "error": "maintenance" }',
		],
		[{ resource: 'form', operation: 'getAll' }, { forms: null }, 'got { "forms": null }'],
		[{ resource: 'form', operation: 'getAll' }, [], 'got an empty array ([])'],
		[{ resource: 'form', operation: 'getAll' }, null, 'got null'],
		[{ resource: 'form', operation: 'get' }, 'a form', 'got a string ("a form")'],
		[{ resource: 'form', operation: 'get' }, { title: 'no id' }, 'got { "title": "no id" }'],
		[
			{ resource: 'response', operation: 'export' },
			{ error: 'export failed' },
			'got { "error": "export failed" }',
		],
	])('%j answered 200 %j: an error that says what came back', async (operation, body, got) => {
		await hostile.control.injectFault({ kind: 'jsonBody', body });
		const result = await runHostile({ ...operation, formId: formById(formId) });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('Forms.wtf sent an answer that could not be read');
		expect(result.error?.description).toContain(got);
	});

	it.each([
		[
			'form ID ".."',
			{ resource: 'response', operation: 'getAll', formId: formById('..') },
			'".." is not a form ID',
		],
		[
			'form ID "."',
			{ resource: 'form', operation: 'get', formId: formById('.') },
			'"." is not a form ID',
		],
		[
			'a Timeout of 2^31 ms',
			{ resource: 'form', operation: 'getAll', options: { timeout: 2 ** 31 } },
			'"Timeout" must be at most 2147483647 ms (about 24 days)',
		],
	])('%s is refused before any request', async (_name, parameters, message) => {
		const result = await runHostile(parameters);
		expect(result.error?.message).toBe(message);
		expect(await requestCount()).toBe(0);
	});
});

async function readAll(target: RunningHarness, formId: string): Promise<IDataObject[]> {
	const all: IDataObject[] = [];
	for (let offset = 0; ;) {
		const response = await fetch(
			`${target.baseUrl}/forms/${formId}/responses?limit=1000&offset=${offset}`,
			{
				headers: { Authorization: `Bearer ${target.keys.business}` },
			},
		);
		const page = (await response.json()) as { responses: IDataObject[]; hasMore: boolean };
		all.push(...page.responses);
		offset += page.responses.length;
		if (!page.hasMore) return all;
	}
}
