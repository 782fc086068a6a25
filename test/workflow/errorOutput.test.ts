/**
 * "On Error → Continue (using error output)" through n8n-core's engine against the local API:
 * a failed item goes down the node's error output, with a message a no-code user can act on,
 * and the other items down the success output.
 */
import type { IConnections } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { startHarness } from '../harness';
import { runnerStartNode, runWorkflow } from '../runner';
import { credentialsFor, formsWtfNode, nodeTypes } from '../support/formsWtf';

let harness: RunningHarness;
let feedbackId: string;

beforeAll(async () => {
	harness = await startHarness({ rateLimit: false });
	feedbackId = (await harness.control.form('feedback')).id;
});
afterAll(async () => await harness.close());

async function runWithErrorOutput(onError: 'continueErrorOutput' | 'continueRegularOutput') {
	const start = runnerStartNode();
	const node = formsWtfNode(
		{
			resource: 'response',
			operation: 'getAll',
			formId: { __rl: true, mode: 'id', value: '={{ $json.formId }}' },
			limit: 2,
		},
		{ onError },
	);
	const succeeded = runnerStartNode('Succeeded', [400, 0]);
	const failed = runnerStartNode('Failed', [400, 200]);
	const connections: IConnections = {
		[start.name]: { main: [[{ node: node.name, type: 'main', index: 0 }]] },
		[node.name]: {
			main: [
				[{ node: succeeded.name, type: 'main', index: 0 }],
				[{ node: failed.name, type: 'main', index: 0 }],
			],
		},
	};
	return await runWorkflow({
		workflow: { nodes: [start, node, succeeded, failed], connections },
		nodeTypes,
		credentials: credentialsFor(harness.baseUrl, harness.keys.team),
		inputItems: [{ json: { formId: feedbackId } }, { json: { formId: 'no-such-form' } }],
	});
}

describe('Continue (using error output)', () => {
	it('sends the failed item down the error output, with a message, a description and the status', async () => {
		const result = await runWithErrorOutput('continueErrorOutput');
		expect(result.status).toBe('success');
		const succeeded = result.outputOf('Succeeded');
		expect(succeeded).toHaveLength(2);
		expect(succeeded.every((item) => typeof item.json.id === 'string')).toBe(true);
		const failed = result.outputOf('Failed');
		expect(failed).toHaveLength(1);
		// The error travels with the item; n8n 2.x shows its message as the item's JSON (its
		// normalizeNodeErrors), n8n 1.x keeps the description and status beside it.
		expect(failed[0].json.error).toBe('Form "no-such-form" was not found');
		expect(failed[0].error).toMatchObject({
			message: 'Form "no-such-form" was not found',
			description: expect.stringContaining('pick the form from the list'),
			httpCode: '404',
		});
		expect(result.outputOf('Forms.wtf', 1).map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
	});

	it('Continue (regular output): the error item stays on the one output, with its description and status', async () => {
		const result = await runWithErrorOutput('continueRegularOutput');
		const items = result.outputOf('Succeeded');
		expect(items.map((item) => item.json.error ?? 'ok')).toEqual([
			'ok',
			'ok',
			'Form "no-such-form" was not found',
		]);
		expect(items[2].json).toMatchObject({
			description: expect.stringContaining('pick the form from the list'),
			httpCode: '404',
		});
	});
});
