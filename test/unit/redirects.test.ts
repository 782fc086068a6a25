/**
 * Where the API key goes when the server redirects, through n8n's engine and HTTP client (nock
 * in place of the network): the key never leaves the origin of the Base URL, a redirect there
 * is followed, one elsewhere is refused with its host named — except an export's file, fetched
 * without the key — and loops end with a message that says so.
 */
import type { IDataObject } from 'n8n-workflow';
import nock from 'nock';

import { formById, runFormsWtf } from '../support/formsWtf';
import { API_KEY, response, useFastRetries } from './fixtures';
import { api, BASE_URL, isolateNetwork, ORIGIN } from './nockApi';

isolateNetwork();
useFastRetries();

const LIST_FORMS = { resource: 'form', operation: 'getAll' };
const GET_FORM = { resource: 'form', operation: 'get', formId: formById('f1') };
const GET_RESPONSES = {
	resource: 'response',
	operation: 'getAll',
	formId: formById('f1'),
	returnAll: true,
};
const EXPORT = { resource: 'response', operation: 'export', formId: formById('f1') };

const OPERATIONS: Array<[string, IDataObject, string]> = [
	['List Forms', LIST_FORMS, '/api/v1/forms'],
	['Get Form', GET_FORM, '/api/v1/forms/f1'],
	['Get Responses', GET_RESPONSES, '/api/v1/forms/f1/responses'],
	['Export', EXPORT, '/api/v1/forms/f1/export'],
];

const run = (parameters: IDataObject, baseUrl = BASE_URL, continueOnFail = false) =>
	runFormsWtf({ baseUrl, apiKey: API_KEY, parameters, continueOnFail });

/** Another origin that records the Authorization header of every request it gets. */
function foreignOrigin(origin: string) {
	const authorizations: Array<string | undefined> = [];
	const scope = nock(origin)
		.persist()
		.get(/.*/)
		.reply(function () {
			authorizations.push(this.req.headers.authorization as string | undefined);
			return [200, 'id,answer\n1,yes\n', { 'content-type': 'text/csv' }];
		});
	return { scope, authorizations };
}

afterEach(() => nock.cleanAll());

describe('a redirect to another origin', () => {
	const cases: Array<[string, IDataObject, string, number, string, string]> = [];
	for (const [name, parameters, path] of OPERATIONS.filter(([name]) => name !== 'Export')) {
		for (const status of [301, 302, 303, 307, 308]) {
			for (const [origin, host] of [
				['http://localhost:9', 'localhost:9'],
				['http://127.0.0.1:10', '127.0.0.1:10'],
			]) {
				cases.push([name, parameters, path, status, origin, host]);
			}
		}
	}

	it.each(cases)(
		'%s, %i to %#: refused, the key not sent, the host named',
		async (_name, parameters, path, status, origin, host) => {
			const foreign = foreignOrigin(origin);
			api()
				.get(path)
				.query(true)
				.reply(status, '', { location: `${origin}${path}?token=s3cr3t` });
			const result = await run(parameters);
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe(
				`Forms.wtf redirected the request to another host (${host})`,
			);
			expect(result.error?.description).toContain('127.0.0.1:9');
			expect(result.error?.description).not.toContain('s3cr3t');
			expect(foreign.authorizations).toEqual([]);
			expect(JSON.stringify(result.run)).not.toContain(API_KEY);
		},
	);

	it.each([301, 302, 303, 307, 308])(
		'Export, %i: the file is fetched from the other origin without the key',
		async (status) => {
			const foreign = foreignOrigin('http://localhost:9');
			api()
				.get('/api/v1/forms/f1/export')
				.query({ format: 'csv' })
				.reply(status, '', { location: 'http://localhost:9/files/f1.csv?sig=abc' });
			const result = await run(EXPORT);
			expect(result.status).toBe('success');
			expect(foreign.authorizations).toEqual([undefined]);
			expect((await result.binaryOf('Forms.wtf', 0)).toString()).toBe('id,answer\n1,yes\n');
		},
	);

	it('Export: a file link from https down to http is refused', async () => {
		const foreign = foreignOrigin('http://files.example:80');
		nock('https://127.0.0.1:9', { reqheaders: { authorization: `Bearer ${API_KEY}` } })
			.get('/api/v1/forms/f1/export')
			.query(true)
			.reply(302, '', { location: 'http://files.example/f1.csv' });
		const result = await run(EXPORT, 'https://127.0.0.1:9/api/v1');
		expect(result.error?.message).toBe(
			'Forms.wtf redirected the download to an insecure address (files.example)',
		);
		expect(foreign.authorizations).toEqual([]);
	});

	it('Export: once the file link has left the origin, a redirect back does not carry the key', async () => {
		const seen: Array<string | undefined> = [];
		api()
			.get('/api/v1/forms/f1/export')
			.query(true)
			.reply(302, '', { location: 'http://localhost:9/f1.csv' });
		nock('http://localhost:9')
			.get('/f1.csv')
			.reply(302, '', { location: `${ORIGIN}/storage/f1.csv` });
		nock(ORIGIN)
			.get('/storage/f1.csv')
			.reply(function () {
				seen.push(this.req.headers.authorization as string | undefined);
				return [200, 'a,b\n'];
			});
		const result = await run(EXPORT);
		expect(result.status).toBe('success');
		expect(seen).toEqual([undefined]);
	});
});

describe('a redirect within the origin of the Base URL', () => {
	it.each([301, 302, 303, 307, 308])('%i is followed, with the key', async (status) => {
		api().get('/api/v1/forms/f1').reply(status, '', { location: '/api/v1/forms/f1/' });
		api().get('/api/v1/forms/f1/').reply(200, { id: 'f1', title: 'Moved' });
		const result = await run(GET_FORM);
		expect(result.status).toBe('success');
		expect(result.outputOf('Forms.wtf')[0].json).toMatchObject({ id: 'f1', title: 'Moved' });
	});

	it('Get Responses: the page the server points to is read with its own query', async () => {
		api()
			.get('/api/v1/forms/f1/responses')
			.query({ limit: 1000, offset: 0 })
			.reply(307, '', { location: `${ORIGIN}/api/v2/forms/f1/responses?limit=1000&offset=0` });
		api()
			.get('/api/v2/forms/f1/responses')
			.query({ limit: 1000, offset: 0 })
			.reply(200, { responses: [response('r1')], total: 1, hasMore: false });
		const result = await run(GET_RESPONSES);
		expect(result.status).toBe('success');
		expect(result.outputOf('Forms.wtf').map((item) => item.json.id)).toEqual(['r1']);
	});

	it('a loop ends at once with a message that says so', async () => {
		const scope = api()
			.get('/api/v1/forms/f1')
			.reply(302, '', { location: '/api/v1/forms/f1/b' })
			.get('/api/v1/forms/f1/b')
			.reply(302, '', { location: '/api/v1/forms/f1' });
		const result = await run(GET_FORM);
		expect(result.error?.message).toBe('Forms.wtf redirected the request in a loop');
		expect(result.error?.description).toContain('http://127.0.0.1:9/api/v1/forms/f1');
		expect(scope.isDone()).toBe(true);
	});

	it('a chain of redirects ends after 10', async () => {
		let asked = 0;
		api()
			.persist()
			.get(/\/api\/v1\/hop\/\d+|\/api\/v1\/forms\/f1$/)
			.reply(function () {
				asked++;
				return [302, '', { location: `/api/v1/hop/${asked}` }];
			});
		const result = await run(GET_FORM);
		expect(result.error?.message).toBe('Forms.wtf redirected the request more than 10 times');
		expect(asked).toBe(11);
	});

	it('a redirect without a Location says so', async () => {
		api().get('/api/v1/forms/f1').reply(302, '');
		const result = await run(GET_FORM);
		expect(result.error?.message).toBe(
			'Forms.wtf answered with a redirect but no address to go to',
		);
	});
});

describe('the Base URL', () => {
	it('with a user name and password: refused before any request, the password never shown', async () => {
		const result = await run(GET_FORM, 'http://admin:hunter22@127.0.0.1:9/api/v1');
		expect(result.error?.message).toBe(
			'The Base URL in the Forms.wtf credential contains a user name or password',
		);
		expect(JSON.stringify(result.run)).not.toContain('hunter22');
		expect(result.error?.description).toContain('http://127.0.0.1:9/api/v1');
	});

	it('with a query: refused before any request, the query never shown', async () => {
		const result = await run(GET_FORM, 'http://127.0.0.1:9/api/v1?token=hunter22');
		expect(result.error?.message).toBe(
			'The Base URL in the Forms.wtf credential contains a query or a fragment',
		);
		expect(JSON.stringify(result.run)).not.toContain('hunter22');
	});

	it('a key pasted with spaces around it is sent without them', async () => {
		nock(ORIGIN, { reqheaders: { authorization: `Bearer ${API_KEY}` } })
			.get('/api/v1/forms')
			.reply(200, { forms: [] });
		const result = await runFormsWtf({
			baseUrl: BASE_URL,
			apiKey: `   ${API_KEY}\t `,
			parameters: LIST_FORMS,
		});
		expect(result.status).toBe('success');
	});
});
