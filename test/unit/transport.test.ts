/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import http from 'http';
import type { AddressInfo } from 'net';
import nock from 'nock';

import { runFormsWtf, formById } from '../support/formsWtf';
import { testRetryPolicy } from '../support/retryPolicy';
import { API_KEY, response, useFastRetries } from './fixtures';
import { api, BASE_URL, isolateNetwork } from './nockApi';

isolateNetwork();
useFastRetries();

const getResponses = (extra: Record<string, unknown> = {}) => ({
	resource: 'response',
	operation: 'getAll',
	formId: formById('form 1/?#'),
	returnAll: true,
	...extra,
});

const ENCODED_PATH = '/api/v1/forms/form%201%2F%3F%23/responses';

function page(ids: string[], total: number, hasMore: boolean) {
	return { responses: ids.map((id) => response(id)), total, hasMore };
}

describe('transport: paging', () => {
	it('reads pages of 1000 until hasMore is false, URL-encoding the form id', async () => {
		const first = Array.from({ length: 1000 }, (_, i) => `r${i}`);
		const scope = api()
			.get(ENCODED_PATH)
			.query({ limit: 1000, offset: 0 })
			.reply(200, page(first, 1500, true))
			.get(ENCODED_PATH)
			.query({ limit: 1000, offset: 1000 })
			.reply(200, page(['x1', 'x2'], 1500, false));
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(result.status).toBe('success');
		const ids = result.outputOf('Forms.wtf').map((item) => item.json.id);
		expect(ids).toHaveLength(1002);
		expect(ids.slice(-2)).toEqual(['x1', 'x2']);
		expect(scope.isDone()).toBe(true);
	});

	it('drops a response that a later page serves again (arrivals shift newest-first pages)', async () => {
		const first = Array.from({ length: 1000 }, (_, i) => `r${i}`);
		api()
			.get(ENCODED_PATH)
			.query(true)
			.reply(200, page(first, 1001, true))
			.get(ENCODED_PATH)
			.query({ limit: 1000, offset: 1000 })
			.reply(200, page(['r999', 'r1000'], 1002, false));
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		const ids = result.outputOf('Forms.wtf').map((item) => item.json.id);
		expect(ids).toHaveLength(1001);
		expect(new Set(ids).size).toBe(1001);
	});

	it('stops with a clear error when hasMore is true but the page is empty', async () => {
		api()
			.get(ENCODED_PATH)
			.query(true)
			.reply(200, page([], 10, true));
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('Forms.wtf returned inconsistent pages of responses');
		expect(result.error?.description).toContain('empty page at offset 0');
	});

	it('stops when the server ignores the offset and repeats the same page, after a few pages of repeats', async () => {
		const same = Array.from({ length: 1000 }, (_, i) => `r${i}`);
		let requests = 0;
		api()
			.get(ENCODED_PATH)
			.query(true)
			.times(100)
			.reply(() => (requests++, [200, page(same, 5000, true)]));
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(result.status).toBe('error');
		expect(result.error?.description).toContain('offset is not advancing');
		// The first page, then pages of repeats: a few, as arrivals between requests can cause.
		expect(requests).toBeLessThanOrEqual(10);
	});

	it('asks for exactly Limit responses, from Offset, with Since in UTC milliseconds', async () => {
		const scope = api()
			.get(ENCODED_PATH)
			.query({ limit: 7, offset: 20, since: '2025-05-01T07:30:00.000Z' })
			.reply(200, page(['a', 'b'], 22, false));
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses({
				returnAll: false,
				limit: 7,
				options: { offset: 20, since: '2025-05-01T09:30:00+02:00' },
			}),
		});
		expect(result.status).toBe('success');
		expect(result.outputOf('Forms.wtf')).toHaveLength(2);
		expect(scope.isDone()).toBe(true);
	});
});

describe('transport: retries', () => {
	it('waits out a 429 for the seconds of Retry-After, then goes on', async () => {
		const waits = recordWaits();
		const scope = api()
			.get(ENCODED_PATH)
			.query(true)
			.reply(429, { error: 'Too many requests' }, { 'Retry-After': '1' })
			.get(ENCODED_PATH)
			.query(true)
			.reply(200, page(['a'], 1, false));
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(result.status).toBe('success');
		expect(waits).toEqual([1000]);
		expect(scope.isDone()).toBe(true);
	});

	it('reads Retry-After as an HTTP date', async () => {
		const waits = recordWaits();
		// A minute ahead: only a machine stalled for many seconds could make the wait look short.
		const inAMinute = new Date(Date.now() + 60_000).toUTCString();
		api()
			.get(ENCODED_PATH)
			.query(true)
			.reply(429, { error: 'slow down' }, { 'Retry-After': inAMinute })
			.get(ENCODED_PATH)
			.query(true)
			.reply(200, page(['a'], 1, false));
		Object.assign(testRetryPolicy, { maxRateLimitWaitMs: 75_000 });
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(result.status).toBe('success');
		// An HTTP date has whole seconds: between 59 and 60 s are left of the minute.
		expect(waits).toHaveLength(1);
		expect(waits[0]).toBeGreaterThan(50_000);
		expect(waits[0]).toBeLessThanOrEqual(60_000);
	});

	it('backs off on its own when 429 has no Retry-After, and gives up with a rate-limit message', async () => {
		recordWaits();
		api().get(ENCODED_PATH).query(true).times(3).reply(429, { error: 'Too many requests' });
		api()
			.get(ENCODED_PATH)
			.query(true)
			.reply(200, page(['a'], 1, false));
		const ok = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(ok.status).toBe('success');

		api()
			.get(ENCODED_PATH)
			.query(true)
			.times(10_000)
			.reply(429, { error: 'Too many requests' }, { 'Retry-After': '2' });
		const failed = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(failed.status).toBe('error');
		expect(failed.error?.message).toBe('Forms.wtf rate limit reached');
		expect(failed.error?.description).toMatch(/waited 2 s over 2 attempts/);
	});

	it('retries a 5xx three times, then reports a server error', async () => {
		api().get(ENCODED_PATH).query(true).times(2).reply(502, 'Bad gateway');
		api()
			.get(ENCODED_PATH)
			.query(true)
			.reply(200, page(['a'], 1, false));
		expect(
			(await runFormsWtf({ baseUrl: BASE_URL, apiKey: API_KEY, parameters: getResponses() }))
				.status,
		).toBe('success');

		const scope = api().get(ENCODED_PATH).query(true).times(4).reply(500, { error: 'boom' });
		const failed = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(failed.error?.message).toBe('Forms.wtf had a server error (500)');
		expect(failed.error?.description).toContain('failed 4 times');
		expect(scope.isDone()).toBe(true);
	});

	// nock cannot drop a socket under n8n's HTTP client, so these two use a real local server.
	it('retries a dropped connection', async () => {
		let requests = 0;
		const server = http.createServer((req, res) => {
			requests++;
			if (requests === 1) {
				req.socket.destroy();
				return;
			}
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify(page(['a'], 1, false)));
		});
		const baseUrl = await listen(server);
		nock.enableNetConnect('127.0.0.1');
		try {
			const result = await runFormsWtf({ baseUrl, apiKey: API_KEY, parameters: getResponses() });
			expect(result.status).toBe('success');
			expect(requests).toBe(2);
		} finally {
			nock.disableNetConnect();
			await new Promise((resolve) => server.close(resolve));
		}
	});

	it('retries a connection dropped while the body streams in', async () => {
		let requests = 0;
		const body = JSON.stringify(
			page(
				Array.from({ length: 200 }, (_, i) => `r${i}`),
				200,
				false,
			),
		);
		const server = http.createServer((req, res) => {
			requests++;
			res.writeHead(200, {
				'Content-Type': 'application/json',
				'Content-Length': String(body.length),
			});
			if (requests === 1) {
				res.write(body.slice(0, body.length / 2), () => req.socket.destroy());
				return;
			}
			res.end(body);
		});
		const baseUrl = await listen(server);
		nock.enableNetConnect('127.0.0.1');
		try {
			const result = await runFormsWtf({ baseUrl, apiKey: API_KEY, parameters: getResponses() });
			expect(result.status).toBe('success');
			expect(result.outputOf('Forms.wtf')).toHaveLength(200);
			expect(requests).toBe(2);
		} finally {
			nock.disableNetConnect();
			await new Promise((resolve) => server.close(resolve));
		}
	});

	it('reports an unreachable server with the base URL, after retries', async () => {
		const server = http.createServer();
		const baseUrl = await listen(server);
		await new Promise((resolve) => server.close(resolve));
		nock.enableNetConnect('127.0.0.1');
		try {
			const result = await runFormsWtf({ baseUrl, apiKey: API_KEY, parameters: getResponses() });
			expect(result.error?.message).toBe(`Could not connect to Forms.wtf at ${baseUrl}`);
			expect(result.error?.description).toContain('failed 4 times (ECONNREFUSED)');
		} finally {
			nock.disableNetConnect();
		}
	});

	it.each([400, 401, 403, 404])('never retries %i', async (status) => {
		const scope = api().get(ENCODED_PATH).query(true).reply(status, { error: 'no' });
		const extra = api()
			.get(ENCODED_PATH)
			.query(true)
			.reply(200, page(['a'], 1, false));
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(result.status).toBe('error');
		expect(scope.isDone()).toBe(true);
		expect(extra.isDone()).toBe(false);
	});
});

describe('transport: bodies and base URL', () => {
	it('reports a body that is not JSON', async () => {
		api()
			.get(ENCODED_PATH)
			.query(true)
			.reply(200, '{"responses": [', { 'Content-Type': 'application/json' });
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(result.error?.message).toBe('Forms.wtf sent an answer that could not be read');
	});

	it('reports JSON that is not a page of responses', async () => {
		api().get(ENCODED_PATH).query(true).reply(200, { items: [] });
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(result.error?.message).toBe('Forms.wtf sent an answer that could not be read');
	});

	it('tolerates trailing slashes on the base URL', async () => {
		const scope = api().get('/api/v1/forms').reply(200, { forms: [] });
		const result = await runFormsWtf({
			baseUrl: `${BASE_URL}//`,
			apiKey: API_KEY,
			parameters: { resource: 'form', operation: 'getAll' },
		});
		expect(result.status).toBe('success');
		expect(scope.isDone()).toBe(true);
	});

	it('refuses a base URL that is not http(s), before any request', async () => {
		const result = await runFormsWtf({
			baseUrl: 'ftp://forms.wtf/api/v1',
			apiKey: API_KEY,
			parameters: { resource: 'form', operation: 'getAll' },
		});
		expect(result.error?.message).toBe(
			'The Base URL in the Forms.wtf credential is not a web address',
		);
	});
});

/** A clock for the retry waits: each wait is recorded and ends at once (useFastRetries restores it). */
function recordWaits(): number[] {
	const waits: number[] = [];
	testRetryPolicy.wait = async (ms) => {
		waits.push(ms);
	};
	return waits;
}

async function listen(server: http.Server): Promise<string> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}

describe('transport: errors that say what to fix', () => {
	// n8n 2.41's HTTP client (axios 1.18) strips line breaks from header values; a client that
	// does not makes Node fail with ERR_INVALID_CHAR before a byte goes out.
	it.each([
		[
			'ERR_INVALID_CHAR',
			'The API key in the Forms.wtf credential contains a line break or another character that cannot be sent',
			1,
		],
		['CERT_HAS_EXPIRED', `Could not make a secure connection to Forms.wtf at ${BASE_URL}`, 1],
		['ECONNRESET', 'Forms.wtf closed the connection', 4],
		['ETIMEDOUT', 'Forms.wtf did not answer within 30 s', 4],
		['ENOTFOUND', `Could not connect to Forms.wtf at ${BASE_URL}`, 1],
		['ERR_SOMETHING_NEW', `The request to Forms.wtf at ${BASE_URL} failed`, 1],
	])('%s: says what happened', async (code, message, attempts) => {
		const scope = api()
			.get(ENCODED_PATH)
			.query(true)
			.times(attempts)
			.replyWithError(Object.assign(new Error(`failed with ${code}`), { code }));
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses(),
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(message);
		expect(scope.isDone()).toBe(true);
		expect(JSON.stringify(result.error)).not.toContain(API_KEY);
	});

	it('a 400 names only the options the request sent', async () => {
		api().get('/api/v1/forms/f1').reply(400, { error: 'bad request' });
		const form = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: { resource: 'form', operation: 'get', formId: formById('f1') },
		});
		expect(form.error?.message).toBe('Forms.wtf rejected the request as invalid');
		expect(form.error?.description).not.toMatch(/Limit|Offset|Since/);

		api().get(ENCODED_PATH).query(true).reply(400, { error: 'bad request' });
		const responses = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: API_KEY,
			parameters: getResponses({ returnAll: false, limit: 7 }),
		});
		expect(responses.error?.description).toMatch(/Limit .*Offset/);
		expect(responses.error?.description).not.toContain('Since');
	});
});
