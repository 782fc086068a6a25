import fc from 'fast-check';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	boundedForTool,
	explainedForTool,
	fitForTool,
	fromAiKey,
	isToolCall,
	shortenTexts,
	TOOL_MAX_CHARACTERS,
	TOOL_MAX_TEXT,
	ToolResponses,
} from '../../nodes/FormsWtf/shared/helpers/tool';

const NODE = {
	id: 'n',
	name: 'Forms.wtf',
	typeVersion: 1,
	position: [0, 0] as [number, number],
	parameters: {},
};

function context(type: string, isToolExecution?: boolean): IExecuteFunctions {
	const base = { getNode: () => ({ ...NODE, type }) };
	return (isToolExecution === undefined
		? base
		: { ...base, isToolExecution: () => isToolExecution }) as unknown as IExecuteFunctions;
}

describe('isToolCall', () => {
	it('knows the tool variant by its type, as n8n 2.x runs it through the engine', () => {
		expect(isToolCall(context('n8n-nodes-formswtf.formsWtfTool', false))).toBe(true);
		expect(isToolCall(context('CUSTOM.formsWtfTool'))).toBe(true);
	});
	it('trusts isToolExecution() where n8n calls the tool inside the agent', () => {
		expect(isToolCall(context('n8n-nodes-formswtf.formsWtf', true))).toBe(true);
	});
	it('is false for the node in a workflow, with or without isToolExecution()', () => {
		expect(isToolCall(context('n8n-nodes-formswtf.formsWtf', false))).toBe(false);
		expect(isToolCall(context('n8n-nodes-formswtf.formsWtf'))).toBe(false);
	});
});

describe('fromAiKey', () => {
	it('finds the key of a $fromAI() expression, in any quotes, in a string or a resource locator', () => {
		expect(fromAiKey("={{ $fromAI('Offset', 'how many to skip', 'number') }}")).toBe('Offset');
		expect(
			fromAiKey('={{ /*n8n-auto-generated-fromAI-override*/ $fromAI("Since", ``, \'string\') }}'),
		).toBe('Since');
		expect(fromAiKey({ __rl: true, mode: 'id', value: '={{ $fromAI(`Form`) }}' })).toBe('Form');
	});
	it('is undefined for a fixed value or none', () => {
		expect(fromAiKey(10)).toBeUndefined();
		expect(fromAiKey('2025-05-01')).toBeUndefined();
		expect(fromAiKey(undefined)).toBeUndefined();
	});
});

describe('shortenTexts', () => {
	it('cuts long texts anywhere in the value and says how long they were', () => {
		const long = 'a'.repeat(TOOL_MAX_TEXT + 5);
		expect(
			shortenTexts({ id: 'r1', answers: { Comments: long, Rating: 5, Tags: [long] } }),
		).toEqual({
			id: 'r1',
			answers: {
				Comments: `${'a'.repeat(TOOL_MAX_TEXT)}… [cut: ${TOOL_MAX_TEXT + 5} characters in all]`,
				Rating: 5,
				Tags: [`${'a'.repeat(TOOL_MAX_TEXT)}… [cut: ${TOOL_MAX_TEXT + 5} characters in all]`],
			},
		});
	});
	it('leaves short texts, numbers and null alone', () => {
		const value = { a: 'short', b: null, c: 1, d: true };
		expect(shortenTexts(value)).toEqual(value);
	});
});

describe('boundedForTool', () => {
	const item = (i: number): INodeExecutionData => ({
		json: { id: `f${i}`, title: 't'.repeat(990) },
		pairedItem: { item: 0 },
	});
	it('passes a list that fits unchanged', () => {
		const items = [item(1), item(2)];
		expect(boundedForTool(items, 0, 'forms')).toEqual(items);
	});
	it('keeps what fits and says how many more there are', () => {
		const items = Array.from({ length: 80 }, (_, i) => item(i));
		const bounded = boundedForTool(items, 0, 'forms');
		const kept = bounded.slice(0, -1);
		expect(JSON.stringify(kept.map((entry) => entry.json)).length).toBeLessThanOrEqual(
			TOOL_MAX_CHARACTERS,
		);
		expect(bounded[bounded.length - 1].json.note).toBe(
			`${80 - kept.length} more forms are not shown (${kept.length} of 80 returned), to keep the answer under ${TOOL_MAX_CHARACTERS} characters.`,
		);
	});
});

describe('explainedForTool', () => {
	const error = () =>
		new NodeOperationError({ ...NODE, type: 't' }, '"Since" is not a date', {
			description: 'Use a date such as 2025-05-01T09:30:00Z.',
		});
	it('puts the description into the message in a tool call, once', () => {
		const explained = explainedForTool(context('x.formsWtfTool'), error());
		expect(explained.message).toBe(
			'"Since" is not a date. Use a date such as 2025-05-01T09:30:00Z.',
		);
		expect(explainedForTool(context('x.formsWtfTool'), explained).message).toBe(explained.message);
	});
	it('leaves the error alone outside a tool call', () => {
		expect(explainedForTool(context('x.formsWtf'), error()).message).toBe('"Since" is not a date');
	});
});

describe('a tool answer stays under its bound, however large one response is', () => {
	const oneResponse = (answers: IDataObject): INodeExecutionData => ({
		json: { id: 'r1', submittedAt: '2026-01-01T00:00:00.000Z', answers },
	});
	const answerOf = (items: INodeExecutionData[]) =>
		(ToolResponses.of(context('n8n-nodes-formswtf.formsWtfTool')) as ToolResponses).answer(items, {
			formId: 'f1',
			itemIndex: 0,
			startOffset: 0,
		})[0].json;

	it.each([
		[
			'100 answers of 5,000 characters',
			Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`Q${i}`, 'a'.repeat(5_000)])),
		],
		[
			'100 labels of 3,000 characters',
			Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`${i}`.padEnd(3_000, 'l'), 'x'])),
		],
		[
			'20,000 short answers',
			Object.fromEntries(
				Array.from({ length: 20_000 }, (_, i) => [`question ${i}`, `answer ${i}`]),
			),
		],
		['one answer of quotes and line breaks', { Q: '"\n'.repeat(60_000) }],
	])('%s: cut to fit, and the note says so', (_case, answers) => {
		const answer = answerOf([oneResponse(answers), oneResponse({ Q: 'short' })]);
		expect(JSON.stringify(answer).length).toBeLessThanOrEqual(TOOL_MAX_CHARACTERS);
		expect(answer.note).toMatch(/were cut to keep the answer under 50000 characters/);
		expect((answer.responses as IDataObject[])[0].id).toBe('r1');
	});

	it('a response that fits is returned whole, with no note about cutting', () => {
		const answer = answerOf([oneResponse({ Name: 'Ada' })]);
		expect(answer.responses).toEqual([oneResponse({ Name: 'Ada' }).json]);
		expect(answer.note).toBeUndefined();
	});

	it('fitForTool: any JSON value fits any budget from 200 characters on', () => {
		fc.assert(
			fc.property(
				fc.jsonValue({ maxDepth: 4 }),
				fc.integer({ min: 200, max: 5_000 }),
				(value, budget) => {
					const { value: fitted, cut } = fitForTool(value, budget);
					expect(JSON.stringify(fitted)?.length ?? 0).toBeLessThanOrEqual(budget);
					if (!cut) expect(fitted).toEqual(value);
				},
			),
			// JSON.parse makes "__proto__" an own field, as a raw response from the API can have.
			{ numRuns: 300, examples: [[JSON.parse('{"__proto__":{"a":1},"b":"x"}') as never, 200]] },
		);
	});
});
