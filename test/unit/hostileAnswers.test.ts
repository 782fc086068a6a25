/**
 * The transport driven through answers a real service, proxy or load balancer can give, through
 * n8n's engine and HTTP client (nock in place of the network) and through the transport alone
 * (a scripted client, for exact counts of requests and waits). Whatever comes back: the number
 * of requests is bounded, no wait is shorter than the floor, no form of the API key is in any
 * field of the error, and the message says what happened.
 */
import type { IDataObject, ILoadOptionsFunctions } from 'n8n-workflow';
import nock from 'nock';

import { buildUrl, MAX_TIMEOUT_MS } from '../../nodes/FormsWtf/shared/transport';
import { describeBody, secretForms } from '../../nodes/FormsWtf/shared/transport/errors';
import { DEFAULT_RETRY_POLICY } from '../../nodes/FormsWtf/shared/transport/retry';
import { MAX_UNCOUNTED_RESPONSES } from '../../nodes/FormsWtf/shared/transport/paging';
import { resetTestRetryPolicy, testRetryPolicy } from '../support/retryPolicy';
import { searchForms } from '../../nodes/FormsWtf/shared/methods/listSearch';
import { formById, runFormsWtf } from '../support/formsWtf';
import { API_KEY } from './fixtures';
import { api, BASE_URL, ORIGIN, isolateNetwork } from './nockApi';
import { scriptedClient, useScriptedClock } from './transportClient';

isolateNetwork();
useScriptedClock();

/** The real policy (1 s floor, 15 retries of a 429, 75 s budget), with a clock that only records. */
let waits: number[];
beforeEach(() => {
	resetTestRetryPolicy();
	waits = [];
	testRetryPolicy.wait = async (ms) => {
		waits.push(ms);
	};
});
afterEach(() => resetTestRetryPolicy());

const LIST_FORMS = { resource: 'form', operation: 'getAll' };
const GET_FORM = { resource: 'form', operation: 'get', formId: formById('f1') };
const EXPORT = { resource: 'response', operation: 'export', formId: formById('f1') };

const run = (parameters: IDataObject, apiKey = API_KEY, continueOnFail = false) =>
	runFormsWtf({ baseUrl: BASE_URL, apiKey, parameters, continueOnFail });

/** Answers every request to `path` the same way, as often as asked; returns the request count. */
function always(
	path: string,
	status: number,
	body: unknown,
	headers: Record<string, string> = {},
): () => number {
	let count = 0;
	nock(ORIGIN)
		.get(path)
		.query(true)
		.times(1000)
		.reply(() => {
			count++;
			return [
				status,
				typeof body === 'string' ? body : JSON.stringify(body),
				{ 'Content-Type': 'application/json', ...headers },
			];
		});
	return () => count;
}

const pastDate = () => new Date(Date.now() - 3_600_000).toUTCString();

describe('hostile answers: retries are bounded and never sooner than the floor', () => {
	it.each([
		[
			'429, Retry-After: 0',
			429,
			() => ({ 'Retry-After': '0' }),
			16,
			'Forms.wtf rate limit reached',
		],
		[
			'429, Retry-After an HTTP date already past',
			429,
			() => ({ 'Retry-After': pastDate() }),
			16,
			'Forms.wtf rate limit reached',
		],
		[
			'429, Retry-After: 0.001',
			429,
			() => ({ 'Retry-After': '0.001' }),
			16,
			'Forms.wtf rate limit reached',
		],
		[
			'429, Retry-After: -5',
			429,
			() => ({ 'Retry-After': '-5' }),
			16,
			'Forms.wtf rate limit reached',
		],
		[
			'429, Retry-After unreadable',
			429,
			() => ({ 'Retry-After': 'soon' }),
			undefined,
			'Forms.wtf rate limit reached',
		],
		['429 without Retry-After', 429, () => ({}), undefined, 'Forms.wtf rate limit reached'],
		[
			'429, Retry-After: 1 (the budget is not reached)',
			429,
			() => ({ 'Retry-After': '1' }),
			16,
			'Forms.wtf rate limit reached',
		],
		[
			'429, Retry-After past the 75 s budget',
			429,
			() => ({ 'Retry-After': '3600' }),
			1,
			'Forms.wtf rate limit reached',
		],
		[
			'503, Retry-After: 0',
			503,
			() => ({ 'Retry-After': '0' }),
			4,
			'Forms.wtf had a server error (503)',
		],
		['500', 500, () => ({}), 4, 'Forms.wtf had a server error (500)'],
	] as const)('%s', async (_name, status, headers, requests, message) => {
		const count = always('/api/v1/forms', status, { error: 'no' }, headers());
		const result = await run(LIST_FORMS);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(message);
		if (requests !== undefined) expect(count()).toBe(requests);
		expect(count()).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxRateLimitRetries + 1);
		expect(waits).toHaveLength(count() - 1);
		const floor =
			status === 429 ? DEFAULT_RETRY_POLICY.minDelayMs : DEFAULT_RETRY_POLICY.baseDelayMs / 2;
		for (const ms of waits) expect(ms).toBeGreaterThanOrEqual(floor);
		if (status === 429) {
			const waited = waits.reduce((sum, ms) => sum + ms, 0);
			expect(waited).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.maxRateLimitWaitMs);
			expect(result.error?.description).toContain(`over ${count()} attempts`);
		}
	});

	it('a 429 that asks for 0 s, then an answer: one wait of the floor, then the forms', async () => {
		api().get('/api/v1/forms').reply(429, { error: 'slow down' }, { 'Retry-After': '0' });
		api().get('/api/v1/forms').reply(200, { forms: [] });
		const result = await run(LIST_FORMS);
		expect(result.status).toBe('success');
		expect(waits).toEqual([1000]);
	});
});

/** Every text of a run that must not hold the key: the error, the output items, the whole run. */
function leaks(texts: string[], forms: string[]): string[] {
	const found: string[] = [];
	for (const text of texts) {
		for (const form of forms) if (text.includes(form)) found.push(form);
		// A cut in the middle of an echo would leave its start.
		if (text.includes(API_KEY.slice(0, 10))) found.push(`prefix ${API_KEY.slice(0, 10)}`);
	}
	return found;
}

describe('hostile answers: the API key never reaches an error', () => {
	const keyForms = [API_KEY, JSON.stringify(API_KEY).slice(1, -1)];
	const longEcho = `${'x'.repeat(495)}${API_KEY} is not a valid key`;

	it.each([
		['401 echoing the key', 401, (key: string) => ({ error: `key ${key} is revoked` })],
		['401 echoing the key across the 500th character', 401, () => ({ error: longEcho })],
		['400 echoing the key across the 500th character', 400, () => ({ error: longEcho })],
		['403 echoing the key twice', 403, (key: string) => ({ error: `${key}${key}` })],
		['404 echoing the header', 404, (key: string) => ({ error: `no form for Bearer ${key}` })],
		[
			'429 echoing the key, until the retries are spent',
			429,
			(key: string) => ({ error: `rate limit for ${key}` }),
		],
		['503 echoing the key', 503, (key: string) => ({ error: `down (${key})` })],
		['200 {"error": key} to a list of forms', 200, (key: string) => ({ error: `bad key ${key}` })],
		['200 a string with the key in it', 200, (key: string) => `your key is ${key}`],
		['200 {"forms": key}', 200, (key: string) => ({ forms: key })],
	] as const)('%s', async (_name, status, body) => {
		// Stored with a line break and spaces around it; n8n's HTTP client sends it trimmed.
		const stored = `  ${API_KEY}\n`;
		const count = always('/api/v1/forms', status, body(API_KEY.trim()));
		const result = await run(LIST_FORMS, stored);
		expect(result.status).toBe('error');
		expect(count()).toBeGreaterThan(0);
		const texts = [
			JSON.stringify(result.error),
			JSON.stringify(result.run),
			String(result.error?.stack),
		];
		expect(leaks(texts, [...keyForms, stored, ...secretForms(stored)])).toEqual([]);
		if (status !== 200 || typeof body(API_KEY) !== 'string')
			expect(JSON.stringify(result.error)).toContain('[redacted]');
	});

	it('Continue On Fail: the error item carries no key either', async () => {
		always('/api/v1/forms/f1', 401, { error: `${'y'.repeat(488)}${API_KEY}` });
		const result = await run(GET_FORM, `${API_KEY}\r\n`, true);
		const [item] = result.outputOf('Forms.wtf');
		expect(item.json.error).toBe('Forms.wtf did not accept the API key');
		expect(leaks([JSON.stringify(item.json), JSON.stringify(result.run)], keyForms)).toEqual([]);
	});

	it('a key with a line break inside is sent without it, and redacted in that form', async () => {
		const stored = `${API_KEY.slice(0, 12)}\n${API_KEY.slice(12)}`;
		// nockApi's api() matches only the header `Bearer <API_KEY>`: what n8n's client sends.
		api()
			.get('/api/v1/forms/f1')
			.reply(401, { error: `unknown key ${API_KEY}` });
		const result = await run(GET_FORM, stored);
		expect(result.error?.message).toBe('Forms.wtf did not accept the API key');
		expect(result.error?.description).toContain('unknown key [redacted]');
		expect(leaks([JSON.stringify(result.error)], [...keyForms, stored])).toEqual([]);
	});

	it('a key too short to cut out safely: the server’s text is left out instead', async () => {
		const short = 'abc';
		nock(ORIGIN).get('/api/v1/forms/f1').reply(401, { error: 'key abc is not a key' });
		const result = await run(GET_FORM, short);
		expect(result.error?.message).toBe('Forms.wtf did not accept the API key');
		expect(result.error?.description).not.toContain('Forms.wtf said');
		expect(JSON.stringify(result.error)).not.toContain('key abc');
	});

	it('every wire form of a key: as stored, trimmed, without control characters, JSON-escaped', () => {
		expect(secretForms(` fwtf_a"b\n`)).toEqual(
			expect.arrayContaining([' fwtf_a"b\n', 'fwtf_a"b', 'fwtf_a\\"b', ' fwtf_a"b']),
		);
		expect(secretForms('fwtf_ab\ncd')).toEqual(
			expect.arrayContaining(['fwtf_ab\ncd', 'fwtf_abcd']),
		);
		expect(secretForms('')).toEqual([]);
		expect(secretForms(undefined)).toEqual([]);
	});
});

describe('hostile answers: a 200 of the wrong shape fails and says what came back', () => {
	const UNREADABLE = 'Forms.wtf sent an answer that could not be read';

	it.each([
		[
			'Get Many forms',
			LIST_FORMS,
			'/api/v1/forms',
			{ error: 'maintenance' },
			'got { "error": "maintenance" }',
		],
		['Get Many forms', LIST_FORMS, '/api/v1/forms', { forms: null }, 'got { "forms": null }'],
		['Get Many forms', LIST_FORMS, '/api/v1/forms', { forms: 'none' }, 'got { "forms": "none" }'],
		[
			'Get Many forms',
			LIST_FORMS,
			'/api/v1/forms',
			{ forms: [null] },
			'got { "forms": [ 1 value ] }',
		],
		['Get Many forms', LIST_FORMS, '/api/v1/forms', [], 'got an empty array ([])'],
		['Get Many forms', LIST_FORMS, '/api/v1/forms', 'forms', 'got a string ("forms")'],
		['Get Many forms', LIST_FORMS, '/api/v1/forms', null, 'got null'],
		['Get Many forms', LIST_FORMS, '/api/v1/forms', 42, 'got a number (42)'],
		['Get a form', GET_FORM, '/api/v1/forms/f1', [], 'got an empty array ([])'],
		['Get a form', GET_FORM, '/api/v1/forms/f1', 'f1', 'got a string ("f1")'],
		['Get a form', GET_FORM, '/api/v1/forms/f1', null, 'got null'],
		[
			'Get a form',
			GET_FORM,
			'/api/v1/forms/f1',
			{ title: 'x', questions: [] },
			'got { "title": "x", "questions": [] }',
		],
		[
			'Get a form',
			GET_FORM,
			'/api/v1/forms/f1',
			{ error: 'Form not found' },
			'got { "error": "Form not found" }',
		],
	] as const)('%s, body %j', async (_operation, parameters, path, body, got) => {
		nock(ORIGIN).get(path).reply(200, JSON.stringify(body), { 'Content-Type': 'application/json' });
		const result = await run(parameters);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(UNREADABLE);
		expect(result.error?.description).toContain(got);
		expect(result.error?.description).toMatch(/^Expected .+, got /);
	});

	it.each([
		[
			'an HTML page from a proxy',
			'<html><body>Bad gateway</body></html>',
			'got text that is not JSON ("<html><body>Bad gateway</body></html>")',
		],
		['JSON cut short', '{"forms": [', 'got text that is not JSON ("{\\"forms\\": [")'],
		[
			'text echoing the key',
			`no such key: ${API_KEY}`,
			'got text that is not JSON ("no such key: [redacted]")',
		],
	])('Get Many forms: %s', async (_name, text, got) => {
		nock(ORIGIN).get('/api/v1/forms').reply(200, text, { 'Content-Type': 'text/html' });
		const result = await run(LIST_FORMS);
		expect(result.error?.message).toBe(UNREADABLE);
		expect(result.error?.description).toContain(
			`Expected { "forms": [ … ] }, a list of forms, ${got}`,
		);
		expect(JSON.stringify(result.run)).not.toContain(API_KEY);
	});

	it('Get a form: an empty body', async () => {
		nock(ORIGIN).get('/api/v1/forms/f1').reply(200, '');
		const result = await run(GET_FORM);
		expect(result.error?.message).toBe(UNREADABLE);
		expect(result.error?.description).toContain('got an empty answer');
	});

	it.each([
		[{ error: 'maintenance' }, 'got { "error": "maintenance" }'],
		[{ responses: null, hasMore: false }, 'got { "responses": null, "hasMore": false }'],
		[
			{ responses: [{ walletAddress: '0x' }], hasMore: false },
			'got { "responses": [ 1 value ], "hasMore": false }',
		],
		[{ responses: [] }, 'got { "responses": [] }'],
		[[], 'got an empty array ([])'],
	] as const)('Get Responses, page %j', async (body, got) => {
		nock(ORIGIN)
			.get('/api/v1/forms/f1/responses')
			.query(true)
			.reply(200, JSON.stringify(body), { 'Content-Type': 'application/json' });
		const result = await run({ resource: 'response', operation: 'getAll', formId: formById('f1') });
		expect(result.error?.message).toBe(UNREADABLE);
		expect(result.error?.description).toContain(got);
	});

	it('the form picker: a list of forms of the wrong shape says what came back, not a TypeError', async () => {
		const client = scriptedClient([{ status: 200, body: 'null' }], { apiKey: API_KEY });
		await expect(
			searchForms.call(client.context as unknown as ILoadOptionsFunctions),
		).rejects.toThrow(UNREADABLE);
		expect(client.sent).toHaveLength(1);
	});

	it('Get Responses: a null body', async () => {
		nock(ORIGIN)
			.get('/api/v1/forms/f1/responses')
			.query(true)
			.reply(200, 'null', { 'Content-Type': 'application/json' });
		const result = await run({ resource: 'response', operation: 'getAll', formId: formById('f1') });
		expect(result.error?.message).toBe(UNREADABLE);
		expect(JSON.stringify(result.error)).not.toMatch(/Cannot read properties/);
	});

	it.each(['csv', 'json', 'merkle'])(
		'Export (%s): a 200 whose body is the API’s error object',
		async (format) => {
			nock(ORIGIN)
				.get('/api/v1/forms/f1/export')
				.query({ format })
				.reply(200, JSON.stringify({ error: `Export failed for ${API_KEY}` }), {
					'Content-Type': 'application/json',
				});
			const result = await run({ ...EXPORT, format });
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe(UNREADABLE);
			expect(result.error?.description).toContain(
				'Expected an export file, got { "error": "Export failed for [redacted]" }',
			);
			expect(JSON.stringify(result.run)).not.toContain(API_KEY);
		},
	);

	it('Export: files that start like JSON objects and arrays still pass', async () => {
		const merkle = '{"format":"standard-v1","tree":[]}';
		nock(ORIGIN).get('/api/v1/forms/f1/export').query({ format: 'merkle' }).reply(200, merkle);
		const result = await run({ ...EXPORT, format: 'merkle' });
		expect(result.status).toBe('success');
		expect((await result.binaryOf('Forms.wtf', 0)).toString('utf8')).toBe(merkle);

		nock(ORIGIN).get('/api/v1/forms/f1/export').query({ format: 'csv' }).reply(200, '');
		const empty = await run(EXPORT);
		expect(empty.status).toBe('success');
		expect((await empty.binaryOf('Forms.wtf', 0)).length).toBe(0);
	});

	it('describeBody stays short, whatever the size of what came back', () => {
		expect(describeBody('z'.repeat(10_000), []).length).toBeLessThan(200);
		expect(describeBody({ a: 1, b: 2, c: 3, d: 4, e: 5 }, [])).toBe(
			'{ "a": 1, "b": 2, "c": 3, "d": 4, … }',
		);
		expect(
			describeBody({ error: `${'q'.repeat(115)}${API_KEY}` }, secretForms(API_KEY)),
		).not.toContain(API_KEY.slice(0, 5));
	});
});

describe('hostile input: refused before any request', () => {
	let unwanted: nock.Scope;
	beforeEach(() => {
		unwanted = nock(ORIGIN).get(/.*/).query(true).reply(200, { forms: [], id: 'x' });
	});

	it.each([
		[
			'a Timeout of 2^31 ms',
			{ ...LIST_FORMS, options: { timeout: 2 ** 31 } },
			`"Timeout" must be at most ${MAX_TIMEOUT_MS} ms (about 24 days)`,
		],
		[
			'a Timeout of 1e300 ms',
			{ ...GET_FORM, options: { timeout: '={{ 1e300 }}' } },
			`"Timeout" must be at most ${MAX_TIMEOUT_MS} ms (about 24 days)`,
		],
		[
			'an infinite Timeout',
			{ ...EXPORT, options: { timeout: '={{ Infinity }}' } },
			`"Timeout" must be at most ${MAX_TIMEOUT_MS} ms (about 24 days)`,
		],
		[
			'a Timeout that is NaN',
			{ ...LIST_FORMS, options: { timeout: '={{ NaN }}' } },
			'"Timeout" must be a number of milliseconds, 1 or more',
		],
		['form ID "."', { ...GET_FORM, formId: formById('.') }, '"." is not a form ID'],
		['form ID ".."', { ...EXPORT, formId: formById('..') }, '".." is not a form ID'],
		[
			'form ID " .. "',
			{ resource: 'response', operation: 'getAll', formId: formById(' .. ') },
			'".." is not a form ID',
		],
	] as const)('%s', async (_name, parameters, message) => {
		const result = await run(parameters as IDataObject);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(message);
		expect(result.error?.name).toBe('NodeOperationError');
		expect(unwanted.isDone()).toBe(false);
	});

	it('the largest Timeout Node can hold is accepted', async () => {
		const result = await run({ ...LIST_FORMS, options: { timeout: MAX_TIMEOUT_MS } });
		expect(result.status).toBe('success');
	});

	it('the transport refuses a dot segment and a Timeout past the limit itself, before any request', async () => {
		for (const request of [
			{ path: ['forms', '.'] },
			{ path: ['forms', '..', 'responses'] },
			{ path: ['forms', ''] },
			{ path: ['forms'], timeoutMs: 2 ** 31 },
			{ path: ['forms'], timeoutMs: Number.POSITIVE_INFINITY },
		]) {
			const client = scriptedClient([{ status: 200, body: '{"forms":[]}' }], { apiKey: API_KEY });
			await expect(client.transport.request<unknown>(request)).rejects.toThrow(
				/not a valid form ID|Timeout must be at most/,
			);
			expect(client.sent).toHaveLength(0);
			jest.restoreAllMocks();
		}
		expect(() => buildUrl(BASE_URL, ['forms', '..'])).toThrow();
		expect(buildUrl(BASE_URL, ['forms', '.x', 'a/b', '%2e'])).toBe(
			`${BASE_URL}/forms/.x/a%2Fb/%252e`,
		);
	});
});

describe('hostile answers: Return All ends when the server never does', () => {
	it('no total, more on every page, new responses each time: stops at the ceiling with a clear error', async () => {
		let served = 0;
		const scope = api()
			.persist()
			.get('/api/v1/forms/f1/responses')
			.query(true)
			.reply(() => {
				const page = Array.from({ length: 1000 }, () => ({ id: `r${served++}`, answers: [] }));
				return [200, { responses: page, hasMore: true }];
			});
		const result = await run({
			resource: 'response',
			operation: 'getAll',
			formId: formById('f1'),
			returnAll: true,
		});
		scope.persist(false);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(
			`Return All stopped after ${MAX_UNCOUNTED_RESPONSES} responses`,
		);
		expect(result.error?.description).toContain('set Limit');
		// The pages asked for, and at most the ones read ahead of them.
		expect(served).toBeLessThanOrEqual(MAX_UNCOUNTED_RESPONSES + 2000);
	});
});
