import type { ICredentialTestRequest } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { FormsWtfApi } from '../../credentials/FormsWtfApi.credentials';
import { ensureRunnerReady, RunnerNodeTypeRegistry } from '../runner';
import { formsWtfNode, nodeTypes } from '../support/formsWtf';

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
			rules.map((rule) => [(rule.properties as { value: number }).value, rule.properties.message]),
		);
		expect(Object.keys(byStatus).sort()).toEqual(['401', '403', '404', '429']);
		expect(byStatus[401]).toMatch(/invalid or has been revoked/);
		expect(byStatus[403]).toMatch(/Team plan/);
		expect(byStatus[404]).toMatch(/\/api\/v1/);
		expect(new Set(Object.values(byStatus)).size).toBe(4);
	});

	it('keeps the key in a password field and sends it only as a bearer header', () => {
		const apiKey = credential.properties.find((property) => property.name === 'apiKey');
		expect(apiKey?.typeOptions?.password).toBe(true);
		const header = credential.authenticate.properties.headers?.Authorization;
		expect(resolve(String(header), { apiKey: 'fwtf_secret', baseUrl: 'x' })).toBe(
			'Bearer fwtf_secret',
		);
	});
});
