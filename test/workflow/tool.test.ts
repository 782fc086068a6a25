/**
 * The action node as an AI Agent's tool, in n8n's engine against the local Forms.wtf API. n8n
 * 2.41's AI Agent hands each tool call back to the workflow engine, which runs the tool node
 * (type `n8n-nodes-formswtf.formsWtfTool`) with the model's arguments as its input item, and
 * its parameters read them with `$fromAI(…)`: the workflow here does the same, with the
 * runner's start node in the agent's place. What the agent then shows the model is the JSON of
 * the node's output items, or the error's message when it throws. test/e2e/agent.ts proves the
 * same in a real n8n with the real AI Agent.
 */
import type { IConnections, IDataObject, INode } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { startHarness } from '../harness';
import { runnerStartNode, runWorkflow } from '../runner';
import {
	TOOL_MAX_CHARACTERS,
	TOOL_MAX_RESPONSES,
	TOOL_MAX_TEXT,
} from '../../nodes/FormsWtf/shared/helpers/tool';
import { credentialsFor, formById, NODE_TYPE, nodeTypes } from '../support/formsWtf';

const TOOL_TYPE = `${NODE_TYPE}Tool`;
const LARGE = 1_500;
let harness: RunningHarness;
let feedbackId: string;
let largeId: string;

beforeAll(async () => {
	harness = await startHarness({ rateLimit: false, largeFormResponses: LARGE });
	feedbackId = (await harness.control.form('feedback')).id;
	largeId = (await harness.control.form('large')).id;
});
afterAll(async () => await harness.close());

/** The parameters of a Get Many responses tool whose form, limit, offset and since the model fills. */
const GET_RESPONSES = {
	resource: 'response',
	operation: 'getAll',
	formId: { __rl: true, mode: 'id', value: "={{ $fromAI('Form', 'The form ID', 'string') }}" },
	limit: "={{ $fromAI('Limit', 'How many responses', 'number') }}",
	options: {
		offset: "={{ $fromAI('Offset', 'How many to skip', 'number') }}",
		since: "={{ $fromAI('Since', 'ISO 8601 date and time', 'string') }}",
	},
};

/** Runs the node as a tool once, with these arguments of the model's; `type` tells a tool from a plain node. */
async function callTool(parameters: IDataObject, args: IDataObject, type = TOOL_TYPE) {
	const start = runnerStartNode('Agent');
	const node: INode = {
		id: 'forms-tool',
		name: 'Get responses',
		type,
		typeVersion: 1,
		position: [200, 0],
		parameters: parameters as INode['parameters'],
		credentials: { formsWtfApi: { id: '1', name: 'Forms.wtf account' } },
	};
	const connections: IConnections = {
		[start.name]: { main: [[{ node: node.name, type: 'main', index: 0 }]] },
	};
	return await runWorkflow({
		workflow: { nodes: [start, node], connections },
		nodeTypes: { ...nodeTypes, [TOOL_TYPE]: nodeTypes[NODE_TYPE] },
		credentials: credentialsFor(harness.baseUrl, harness.keys.team),
		// n8n merges the model's arguments into the agent's input item, with the call's id.
		inputItems: [{ json: { chatInput: 'How did people rate us?', ...args, toolCallId: 'call_1' } }],
	});
}

const answerOf = async (parameters: IDataObject, args: IDataObject) => {
	const result = await callTool(parameters, args);
	expect(result.error).toBeUndefined();
	const items = result.outputOf('Get responses');
	expect(items).toHaveLength(1);
	return items[0].json as IDataObject & { responses: IDataObject[] };
};

describe('Get Many responses as a tool', () => {
	it('answers with one object: the responses asked for, their count, and whether more exist', async () => {
		const answer = await answerOf(GET_RESPONSES, {
			Form: feedbackId,
			Limit: 3,
			Offset: 0,
			Since: '',
		});
		expect(answer).toMatchObject({
			formId: feedbackId,
			returned: 3,
			hasMore: true,
			nextOffset: 3,
			total: 2500,
		});
		expect(answer.responses).toHaveLength(3);
		// Simplified: answers keyed by question label.
		expect(Object.keys(answer.responses[0].answers as IDataObject)).toContain(
			'How would you rate the product?',
		);
		expect(answer.note).toBe(
			`More responses exist than this answer holds (3 returned of 2500; a call returns at most ${TOOL_MAX_RESPONSES} responses, or its limit). To see more, call again with Offset 3 for the next ones, or ask for a shorter time span with Since.`,
		);
	});

	it('reads on from the offset the note gives', async () => {
		const first = await answerOf(GET_RESPONSES, { Form: largeId, Limit: 5, Offset: 0, Since: '' });
		const next = await answerOf(GET_RESPONSES, {
			Form: largeId,
			Limit: 5,
			Offset: first.nextOffset,
			Since: '',
		});
		const both = await answerOf(GET_RESPONSES, { Form: largeId, Limit: 10, Offset: 0, Since: '' });
		expect([...first.responses, ...next.responses].map((response) => response.id)).toEqual(
			both.responses.map((response) => response.id),
		);
		expect(next.nextOffset).toBe(10);
	});

	it(`never returns more than ${TOOL_MAX_RESPONSES} responses, whatever the Limit`, async () => {
		await harness.control.clearRequestLog();
		const answer = await answerOf(GET_RESPONSES, {
			Form: largeId,
			Limit: 100_000,
			Offset: 0,
			Since: '',
		});
		expect(answer).toMatchObject({
			returned: TOOL_MAX_RESPONSES,
			hasMore: true,
			nextOffset: TOOL_MAX_RESPONSES,
			total: LARGE,
		});
		expect(answer.responses).toHaveLength(TOOL_MAX_RESPONSES);
		// One request of one more response than returned: enough to know that more exist.
		const requests = (await harness.control.requestLog()).filter((entry) =>
			entry.path.endsWith('/responses'),
		);
		expect(requests.map((entry) => entry.query.limit)).toEqual([String(TOOL_MAX_RESPONSES + 1)]);
	});

	it(`reads Return All as "up to ${TOOL_MAX_RESPONSES}"`, async () => {
		const answer = await answerOf(
			{ resource: 'response', operation: 'getAll', formId: formById(largeId), returnAll: true },
			{},
		);
		expect(answer).toMatchObject({ returned: TOOL_MAX_RESPONSES, hasMore: true, total: LARGE });
		// No parameter is left to the model: the note names no way to read on.
		expect(answer.note).toBe(
			`More responses exist than this answer holds (${TOOL_MAX_RESPONSES} returned of ${LARGE}; a call returns at most ${TOOL_MAX_RESPONSES} responses, or its limit).`,
		);
	});

	it('says when every response matching Since is there, without the form’s total', async () => {
		const all = (await (
			await fetch(`${harness.baseUrl}/forms/${feedbackId}/responses?limit=1000`, {
				headers: { Authorization: `Bearer ${harness.keys.team}` },
			})
		).json()) as { responses: Array<{ submittedAt: string }> };
		const times = all.responses.map((response) => response.submittedAt).sort();
		const since = times[times.length - 8];
		const answer = await answerOf(GET_RESPONSES, {
			Form: feedbackId,
			Limit: 50,
			Offset: 0,
			Since: since,
		});
		expect(answer).toMatchObject({ returned: 7, hasMore: false });
		expect(answer).not.toHaveProperty('total');
		expect(answer).not.toHaveProperty('note');
		expect(answer.responses.every((response) => String(response.submittedAt) > since)).toBe(true);
	});

	it(`keeps the answer under ${TOOL_MAX_CHARACTERS} characters, cutting long answers`, async () => {
		const form = await harness.control.form('research');
		const long = 'x'.repeat(TOOL_MAX_TEXT * 3);
		await harness.control.submitResponses(
			form.id,
			Array.from({ length: 40 }, () => ({
				answers: [{ questionId: 'q-long', questionLabel: 'Tell us more', value: long }],
			})),
		);
		const answer = await answerOf(GET_RESPONSES, {
			Form: form.id,
			Limit: 100,
			Offset: 0,
			Since: '',
		});
		expect(JSON.stringify(answer.responses).length).toBeLessThanOrEqual(TOOL_MAX_CHARACTERS);
		expect(answer.hasMore).toBe(true);
		expect(answer.note).toMatch(/kept under 50000 characters/);
		const cut = answer.responses
			.map((response) => (response.answers as IDataObject)['Tell us more'])
			.find(Boolean);
		expect(cut).toBe(`${'x'.repeat(TOOL_MAX_TEXT)}… [cut: ${TOOL_MAX_TEXT * 3} characters in all]`);
	});

	it('stops at the character budget before the count on a form of many questions', async () => {
		// About 600 characters per response of the feedback form (11 answers): some 80 fit.
		const answer = await answerOf(GET_RESPONSES, {
			Form: feedbackId,
			Limit: 100,
			Offset: 0,
			Since: '',
		});
		expect(answer.returned).toBeGreaterThan(50);
		expect(answer.returned).toBeLessThan(TOOL_MAX_RESPONSES);
		expect(answer).toMatchObject({ hasMore: true, nextOffset: answer.returned });
		expect(JSON.stringify(answer).length).toBeLessThanOrEqual(TOOL_MAX_CHARACTERS + 1_000);
		expect(answer.note).toContain(
			`the answer is kept under ${TOOL_MAX_CHARACTERS} characters). To see more, call again with Offset ${answer.returned}`,
		);
	});

	it('is unchanged outside a tool: one item per response', async () => {
		const result = await callTool(
			GET_RESPONSES,
			{ Form: feedbackId, Limit: 3, Offset: 0, Since: '' },
			NODE_TYPE,
		);
		expect(result.outputOf('Get responses')).toHaveLength(3);
		expect(result.outputOf('Get responses')[0].json).toHaveProperty('walletAddress');
	});
});

describe('errors a model can act on', () => {
	it('an unknown form: the message says so and what to check', async () => {
		const result = await callTool(GET_RESPONSES, {
			Form: 'no-such-form',
			Limit: 5,
			Offset: 0,
			Since: '',
		});
		expect(result.error?.message).toMatch(/^Form "no-such-form" was not found\. Check the form ID/);
	});

	it('a Since that is not a date: the message gives the format', async () => {
		const result = await callTool(GET_RESPONSES, {
			Form: feedbackId,
			Limit: 5,
			Offset: 0,
			Since: 'last Tuesday',
		});
		expect(result.error?.message).toBe(
			'"Since" is not a date. Got "last Tuesday". Use a date such as 2025-05-01T09:30:00Z, or pick one in the date field.',
		);
	});

	it('outside a tool the message stays short, the description apart', async () => {
		const result = await callTool(
			GET_RESPONSES,
			{ Form: feedbackId, Limit: 5, Offset: 0, Since: 'last Tuesday' },
			NODE_TYPE,
		);
		expect(result.error?.message).toBe('"Since" is not a date');
	});

	it('never carries the API key', async () => {
		const result = await callTool(GET_RESPONSES, {
			Form: 'no-such-form',
			Limit: 5,
			Offset: 0,
			Since: '',
		});
		expect(JSON.stringify(result.run)).not.toContain(harness.keys.team);
	});
});

describe('Get Many forms as a tool', () => {
	it('lists the forms, one item each, when they fit', async () => {
		const result = await callTool({ resource: 'form', operation: 'getAll' }, {});
		const own = (await harness.control.listForms()).filter((form) => form.owner === 'demo');
		expect(
			result
				.outputOf('Get responses')
				.map((item) => item.json.id)
				.sort(),
		).toEqual(own.map((form) => form.id).sort());
	});
});
