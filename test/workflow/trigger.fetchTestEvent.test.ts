/**
 * "Fetch Test Event" on an account of many forms, against the in-memory service (test/sim):
 * what it costs in requests, against the 60 a minute the key allows, and what it returns.
 */
import type { IDataObject } from 'n8n-workflow';

import { SIM_BASE_URL, SimServer } from '../sim/server';
import { pollTrigger } from '../support/formsWtf';

const DAY_MS = 86_400_000;
const START_MS = Date.parse('2026-03-02T09:00:00.000Z');

/** 100 forms of 50 responses, the newest two days old (form i's i minutes older); one form of 2,500. */
function accountOfManyForms(): SimServer {
	const server = new SimServer(
		{ since: 'exclusive', order: 'newestFirst', pageCap: 1000, totalAbsent: false, requestMs: 1 },
		START_MS,
		100,
	);
	for (let form = 0; form < 100; form++)
		server.seed(form, form === 7 ? 2_500 : 50, 2 * DAY_MS + form * 60_000, 60_000);
	return server;
}

async function fetchTestEvent(server: SimServer, parameters: IDataObject) {
	return await pollTrigger({
		baseUrl: SIM_BASE_URL,
		apiKey: 'fwtf_sim_key',
		parameters,
		mode: 'manual',
		httpRequest: server.handle,
		throwOnError: false,
	});
}

describe('Forms.wtf Trigger, Fetch Test Event on many forms', () => {
	it('All Forms costs a handful of requests, whatever the number of forms, and returns a recent response', async () => {
		const server = accountOfManyForms();
		const result = await fetchTestEvent(server, { watch: 'allForms', options: {} });
		expect(result.error).toBeUndefined();
		expect(server.log.length).toBeLessThanOrEqual(10);
		const [item] = result.items?.[0] ?? [];
		expect(item.json.formId).toMatch(/^form\d+$/);
		// The newest response of the form it came from.
		const newestOfForm = Math.max(
			...server.responses
				.filter((r) => r.formId === item.json.formId)
				.map((r) => r.versions[r.versions.length - 1].atMs),
		);
		expect(Date.parse(item.json.submittedAt as string)).toBe(newestOfForm);
	});

	it('one form of 2,500 responses: the newest, found by windows of recent time', async () => {
		const server = accountOfManyForms();
		const result = await fetchTestEvent(server, {
			watch: 'form',
			formId: { __rl: true, mode: 'id', value: 'form7' },
			options: {},
		});
		expect(result.error).toBeUndefined();
		const newest = Math.max(
			...server.responses.filter((r) => r.formId === 'form7').map((r) => r.versions[0].atMs),
		);
		expect(Date.parse(result.items?.[0][0].json.submittedAt as string)).toBe(newest);
		expect(server.log.length).toBeLessThanOrEqual(6);
	});
});

describe('Forms.wtf Trigger, Fetch Test Event on a form without responses', () => {
	it('says the form has no responses yet', async () => {
		const server = new SimServer(
			{ since: 'exclusive', order: 'newestFirst', pageCap: 1000, totalAbsent: false, requestMs: 1 },
			START_MS,
			1,
		);
		const result = await fetchTestEvent(server, {
			watch: 'form',
			formId: { __rl: true, mode: 'id', value: 'form0' },
			options: {},
		});
		expect(result.error?.message).toBe('This form has no responses yet');
	});
});
