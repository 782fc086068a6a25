import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';
import nock from 'nock';

import { FormsWtfApi } from '../../credentials/FormsWtfApi.credentials';
import { ensureRunnerReady, RunnerNodeTypeRegistry, testCredential } from '../runner';
import { formsWtfNode, nodeTypes } from '../support/formsWtf';
import { API_KEY } from './fixtures';
import { BASE_URL, isolateNetwork, ORIGIN } from './nockApi';

const credential = new FormsWtfApi();

/** Resolves a credential expression the way n8n's credential test does ('internal' mode). */
function resolve(expression: string, data: Record<string, string>): unknown {
	const node = formsWtfNode({});
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new RunnerNodeTypeRegistry(nodeTypes),
	});
	return workflow.expression.getSimpleParameterValue(
		node,
		expression,
		'internal',
		{ $credentials: data },
		undefined,
		'',
	);
}

beforeAll(async () => await ensureRunnerReady());

describe('Forms.wtf API credential', () => {
	it('tests the key against GET /forms, with or without a trailing slash on the base URL', () => {
		const test = credential.test as ICredentialTestRequest;
		expect(test.request.url).toBe('/forms');
		for (const baseUrl of [
			'https://forms.wtf/api/v1',
			'https://forms.wtf/api/v1/',
			' https://forms.wtf/api/v1// ',
		]) {
			expect(resolve(String(test.request.baseURL), { baseUrl, apiKey: 'k' })).toBe(
				'https://forms.wtf/api/v1',
			);
		}
	});

	it('gives each failure a user can fix its own message', () => {
		const rules = (credential.test as ICredentialTestRequest).rules ?? [];
		const byStatus = Object.fromEntries(
			rules
				.filter((rule) => rule.type === 'responseCode')
				.map((rule) => [(rule.properties as { value: number }).value, rule.properties.message]),
		);
		expect(Object.keys(byStatus).sort()).toEqual([
			'301',
			'302',
			'303',
			'307',
			'308',
			'401',
			'403',
			'404',
			'429',
		]);
		expect(byStatus[401]).toMatch(/invalid or has been revoked/);
		expect(byStatus[403]).toMatch(/Team plan/);
		expect(byStatus[404]).toMatch(/\/api\/v1/);
		expect(new Set(Object.values(byStatus)).size).toBe(5);
	});

	it('keeps the key in a password field and sends it, trimmed, only as a bearer header, never across a redirect', async () => {
		const apiKey = credential.properties.find((property) => property.name === 'apiKey');
		expect(apiKey?.typeOptions?.password).toBe(true);
		const authenticate = credential.authenticate as (
			credentials: ICredentialDataDecryptedObject,
			options: IHttpRequestOptions,
		) => Promise<IHttpRequestOptions>;
		const sent = await authenticate(
			{ apiKey: '  fwtf_secret\n', baseUrl: 'x' },
			{ url: '/forms', headers: { Accept: 'application/json' } },
		);
		expect(sent.headers).toEqual({
			Accept: 'application/json',
			Authorization: 'Bearer fwtf_secret',
		});
		expect(sent.disableFollowRedirect).toBe(true);
	});

	it('warns in the editor about a plain-http Base URL of another machine, not of this one', () => {
		// As the editor decides it: n8n-workflow's displayParameter over the credential's values.
		const notice = credential.properties.find((property) => property.name === 'plainHttpWarning');
		const warns = (baseUrl: string) =>
			NodeHelpers.displayParameter({ apiKey: 'k', baseUrl }, notice as INodeProperties, null, null);
		for (const url of [
			'http://forms.example.com/api/v1',
			'HTTP://10.0.0.5:3000/api/v1',
			'http://localhost.evil.com/api/v1',
		])
			expect(warns(url)).toBe(true);
		for (const url of [
			'https://forms.wtf/api/v1',
			'http://localhost:3000/api/v1',
			'http://127.0.0.1/api/v1',
			'http://[::1]:8080/api/v1',
		])
			expect(warns(url)).toBe(false);
	});
});

/** The credential tested the way n8n does on Save (test/runner/credential-test.ts). */
describe('Forms.wtf API credential, tested through n8n', () => {
	isolateNetwork();
	const test = (data: { apiKey?: string; baseUrl?: string } = {}) =>
		testCredential(credential, { apiKey: API_KEY, baseUrl: BASE_URL, ...data });

	it('a list of forms: Connection successful, with the key trimmed', async () => {
		nock(ORIGIN, { reqheaders: { authorization: `Bearer ${API_KEY}` } })
			.get('/api/v1/forms')
			.reply(200, { forms: [] });
		expect(await test({ apiKey: ` ${API_KEY}  ` })).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	it.each([
		['a web page', '<!doctype html><html><body>Welcome</body></html>', 'text/html'],
		['JSON without forms', '{"status":"ok"}', 'application/json'],
		['forms that are not a list', '{"forms":"none"}', 'application/json'],
		['forms: null', '{"forms":null}', 'application/json'],
		['a list of something else', '[{"id":1}]', 'application/json'],
	])('a 200 that is not a list of forms (%s) fails', async (_case, body, contentType) => {
		nock(ORIGIN).get('/api/v1/forms').reply(200, body, { 'content-type': contentType });
		const result = await test();
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/not with a list of forms: it is not the Forms.wtf API/);
	});

	it.each([301, 302, 303, 307, 308])(
		'a %i to another host is not followed: the key stays, the message says why',
		async (status) => {
			const foreign: Array<string | undefined> = [];
			nock('http://localhost:9')
				.persist()
				.get(/.*/)
				.reply(function () {
					foreign.push(this.req.headers.authorization as string | undefined);
					return [200, { forms: [] }];
				});
			nock(ORIGIN)
				.get('/api/v1/forms')
				.reply(status, '', { location: 'http://localhost:9/api/v1/forms' });
			const result = await test();
			expect(result).toEqual({
				status: 'Error',
				message: expect.stringMatching(/redirects to another address/),
			});
			expect(foreign).toEqual([]);
		},
	);

	it('a Base URL with a password: refused before any request, the password not shown', async () => {
		const result = await test({ baseUrl: 'http://admin:hunter22@127.0.0.1:9/api/v1' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/contains a user name or password/);
		expect(result.message).not.toContain('hunter22');
	});

	it('401 says the key is invalid', async () => {
		// n8n's helper asks twice when a request without a body challenge fails with 401.
		nock(ORIGIN).get('/api/v1/forms').times(2).reply(401, { error: 'Unauthorized' });
		expect((await test()).message).toMatch(/invalid or has been revoked/);
	});
});
