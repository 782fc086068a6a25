/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import { Readable } from 'stream';
import type { IHttpRequestOptions } from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';

import { simplifyResponse } from '../../nodes/FormsWtf/shared/helpers/output';
import { pollTrigger } from '../support/formsWtf';
import type { FormResponse } from '../../nodes/FormsWtf/shared/transport/types';

const base: FormResponse = {
	id: 'r1',
	walletAddress: 'anon_1d2f7c1e-8a55-4b8a-9d70-3c7e7d3f0a11',
	ensName: null,
	submittedAt: '2025-05-01T09:30:00.123Z',
	durationSeconds: 42,
	answers: [],
};

describe('simplifyResponse', () => {
	it('keys answers by label and keeps the other fields as sent', () => {
		const simplified = simplifyResponse({
			...base,
			extra: 'kept',
			answers: [
				{ questionId: 'q1', questionLabel: 'What is your name?', value: 'Ada' },
				{ questionId: 'q2', questionLabel: 'Rating', value: '5' },
			],
		});
		expect(simplified).toEqual({
			...base,
			extra: 'kept',
			answers: { 'What is your name?': 'Ada', Rating: '5' },
		});
	});

	it('does not let repeated labels overwrite each other', () => {
		const simplified = simplifyResponse({
			...base,
			answers: [
				{ questionId: 'q1', questionLabel: 'Email', value: 'a@x.io' },
				{ questionId: 'q2', questionLabel: 'Email', value: 'b@x.io' },
				{ questionId: 'q3', questionLabel: 'Email', value: 'c@x.io' },
				{ questionId: 'q4', questionLabel: 'Email (2)', value: 'd@x.io' },
			],
		});
		expect(simplified.answers).toEqual({
			Email: 'a@x.io',
			'Email (2)': 'b@x.io',
			'Email (3)': 'c@x.io',
			'Email (2) (2)': 'd@x.io',
		});
	});

	it('passes unknown types and non-string values through, and keys a missing label by question id', () => {
		const simplified = simplifyResponse({
			...base,
			answers: [
				{ questionId: 'q1', questionLabel: 'Score', value: 7 },
				{ questionId: 'q2', questionLabel: 'Picks', value: ['a', 'b'] as unknown as string },
				{ questionId: 'q3', questionLabel: '', value: 'x' },
				{ questionId: 'q4', questionLabel: 'Nothing', value: undefined as unknown as string },
			],
		});
		expect(simplified.answers).toEqual({ Score: 7, Picks: ['a', 'b'], q3: 'x', Nothing: null });
		expect(simplified.ensName).toBeNull();
	});

	it('labels "__proto__" and "constructor" are answers like any other, with a string or an object value', () => {
		const simplified = simplifyResponse({
			...base,
			answers: [
				{ questionId: 'q1', questionLabel: '__proto__', value: 'text' },
				{ questionId: 'q2', questionLabel: '__proto__', value: { polluted: true } as never },
				{ questionId: '__proto__', questionLabel: '', value: 'by id' },
				{ questionId: 'q4', questionLabel: 'constructor', value: 'c' },
				{ questionId: 'q5', questionLabel: 'hasOwnProperty', value: 'h' },
			],
		});
		const answers = simplified.answers as Record<string, unknown>;
		expect(Object.getPrototypeOf(answers)).toBe(Object.prototype);
		expect('polluted' in answers).toBe(false);
		expect(JSON.parse(JSON.stringify(answers))).toEqual({
			'__proto__ (2)': 'text',
			'__proto__ (3)': { polluted: true },
			'__proto__ (4)': 'by id',
			'constructor (2)': 'c',
			hasOwnProperty: 'h',
		});
		// n8n copies items by assignment: the copy holds every answer, and no foreign prototype.
		const copied = deepCopy(simplified).answers as Record<string, unknown>;
		expect(Object.keys(copied)).toHaveLength(5);
		expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
	});

	it('entries that are not answers are passed through by their place, never a TypeError', () => {
		const simplified = simplifyResponse({
			...base,
			answers: [null, 'loose text', 42, ['a'], { value: 'no label or id' }] as never,
		});
		expect(simplified.answers).toEqual({
			'answer 1': null,
			'answer 2': 'loose text',
			'answer 3': 42,
			'answer 4': ['a'],
			'answer 5': 'no label or id',
		});
	});

	it('answers that are not a list are passed through as they came', () => {
		for (const answers of [null, 'x', { q1: 'a' }]) {
			expect(simplifyResponse({ ...base, answers: answers as never }).answers).toEqual(answers);
		}
	});
});

describe('the trigger, through the same output shaping', () => {
	it('a response with odd answer entries is emitted, and so is every other response', async () => {
		const responses = [
			{ ...base, id: 'r3', submittedAt: '2026-01-03T00:00:00.000Z', answers: [null, 'x'] },
			{
				...base,
				id: 'r2',
				submittedAt: '2026-01-02T00:00:00.000Z',
				answers: [{ questionId: 'q', questionLabel: '__proto__', value: { polluted: 1 } }],
			},
			{
				...base,
				id: 'r1',
				submittedAt: '2026-01-01T00:00:00.000Z',
				answers: [{ questionId: 'q', questionLabel: 'Name', value: 'Ada' }],
			},
		];
		const httpRequest = async (_type: string, options: IHttpRequestOptions) => {
			const path = new URL(options.url).pathname;
			const body = path.endsWith('/responses')
				? { responses, total: responses.length, hasMore: false }
				: { forms: [{ id: 'f1', title: 'F', responseCount: 3 }] };
			return {
				statusCode: 200,
				headers: { 'content-type': 'application/json' },
				body: Readable.from([Buffer.from(JSON.stringify(body))]),
			};
		};
		const result = await pollTrigger({
			baseUrl: 'http://127.0.0.1:9/api/v1',
			apiKey: 'fwtf_output_test_key',
			parameters: {
				watch: 'form',
				formId: { __rl: true, mode: 'id', value: 'f1' },
				onActivation: 'newest',
				existingCount: 10,
				options: {},
			},
			typeVersion: 2,
			mode: 'trigger',
			httpRequest,
			throwOnError: false,
		});
		expect(result.error).toBeUndefined();
		const items = result.items?.[0] ?? [];
		expect(items.map((item) => item.json.id).sort()).toEqual(['r1', 'r2', 'r3']);
		const odd = items.find((item) => item.json.id === 'r3');
		expect(odd?.json.answers).toEqual({ 'answer 1': null, 'answer 2': 'x' });
	});
});
