import { MAX_ANSWERS, parseDelivery, responseWithForm } from '../../nodes/FormsWtf/webhook/payload';
import { delivery, SAMPLE_FORM, SAMPLE_RESPONSE } from '../support/webhookTrigger';

function parse(body: unknown) {
	return parseDelivery(Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)));
}

function errorOf(body: unknown): string {
	const parsed = parse(body);
	if (!('error' in parsed)) throw new Error('expected an error');
	return parsed.error;
}

describe('parseDelivery', () => {
	it('reads the integrations payload: the response as the API returns it, the form id and title', () => {
		const parsed = parseDelivery(Buffer.from(delivery('integrations', undefined).body));
		if ('error' in parsed) throw new Error(parsed.error);
		expect(parsed.delivery.formId).toBe(SAMPLE_FORM.id);
		expect(parsed.delivery.formTitle).toBe('DAO Contributor Survey');
		expect(parsed.delivery.response).toMatchObject({
			id: SAMPLE_RESPONSE.id,
			walletAddress: SAMPLE_RESPONSE.walletAddress,
			durationSeconds: 87,
		});
		expect(parsed.delivery.response.answers).toEqual(
			SAMPLE_RESPONSE.answers.map((answer, i) => ({
				...answer,
				questionType: SAMPLE_FORM.detail.questions[i].type,
			})),
		);
	});

	it('reads the API reference payload: data.wallet becomes walletAddress, nothing is invented', () => {
		const parsed = parseDelivery(Buffer.from(delivery('reference', undefined).body));
		if ('error' in parsed) throw new Error(parsed.error);
		expect(parsed.delivery.formId).toBe(SAMPLE_FORM.id);
		expect(parsed.delivery).not.toHaveProperty('formTitle');
		expect(parsed.delivery.response).toEqual({
			walletAddress: SAMPLE_RESPONSE.walletAddress,
			ensName: 'alice.eth',
			answers: SAMPLE_RESPONSE.answers,
			submittedAt: SAMPLE_RESPONSE.submittedAt,
		});
	});

	it('passes anonymous wallets, null ENS names and unknown fields through', () => {
		const parsed = parse({
			event: 'form.submission',
			formId: 'f1',
			data: { wallet: 'anon_6f1d', ensName: null, answers: [], submittedAt: 'x', extra: { a: 1 } },
		});
		if ('error' in parsed) throw new Error(parsed.error);
		expect(parsed.delivery.response).toEqual({
			walletAddress: 'anon_6f1d',
			ensName: null,
			answers: [],
			submittedAt: 'x',
			extra: { a: 1 },
		});
	});

	it('keeps a "__proto__" field a plain field', () => {
		const parsed = parse(
			'{"event":"form.submission","formId":"f1","data":{"wallet":"0x1","__proto__":{"polluted":true}}}',
		);
		if ('error' in parsed) throw new Error(parsed.error);
		expect(Object.getPrototypeOf(parsed.delivery.response)).toBe(Object.prototype);
		expect(Object.keys(parsed.delivery.response)).toContain('__proto__');
		expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
	});

	it('reads a body that starts with a byte-order mark, as n8n parses it', () => {
		const parsed = parseDelivery(Buffer.from(`\ufeff${delivery('reference', undefined).body}`));
		if ('error' in parsed) throw new Error(parsed.error);
		expect(parsed.delivery.formId).toBe(SAMPLE_FORM.id);
	});

	it.each([
		['not JSON', '{"event": "form.submission", ', /not JSON/],
		['JSON that is not an object', '[1, 2]', /not an object/],
		['a JSON string', '"form.submission"', /not an object/],
		[
			'another event',
			{ event: 'form.deleted', formId: 'f1', data: {} },
			/"form\.deleted", not "form\.submission"/,
		],
		['no event', { formId: 'f1', data: {} }, /event is missing/],
		['neither payload', { event: 'form.submission', hello: 'world' }, /Neither data nor response/],
		['reference without formId', { event: 'form.submission', data: {} }, /formId is missing/],
		[
			'reference with an empty formId',
			{ event: 'form.submission', formId: ' ', data: {} },
			/formId is missing/,
		],
		[
			'reference with data not an object',
			{ event: 'form.submission', formId: 'f1', data: [] },
			/data is not an object/,
		],
		[
			'reference with answers not a list',
			{ event: 'form.submission', formId: 'f1', data: { answers: {} } },
			/data\.answers is not a list/,
		],
		[
			'integrations without form id',
			{ event: 'form.submission', form: {}, response: {} },
			/form\.id is missing/,
		],
		[
			'integrations with a null response',
			{ event: 'form.submission', form: { id: 'f1' }, response: null },
			/response is not an object/,
		],
		[
			'integrations with answers not a list',
			{ event: 'form.submission', form: { id: 'f1' }, response: { answers: 'a' } },
			/response\.answers is not a list/,
		],
		[
			'an answer that is null',
			{ event: 'form.submission', formId: 'f1', data: { answers: [{ value: 'a' }, null] } },
			/data\.answers\[1\] is not an object/,
		],
		[
			'an answer that is a number',
			{ event: 'form.submission', form: { id: 'f1' }, response: { answers: [5] } },
			/response\.answers\[0\] is not an object/,
		],
		[
			'a question ID that is an object',
			{
				event: 'form.submission',
				formId: 'f1',
				data: { answers: [{ questionId: { toString: 1 }, value: 'a' }] },
			},
			/data\.answers\[0\]\.questionId is not text/,
		],
	])('refuses %s with a message that says what was expected', (_name, body, message) => {
		const error = errorOf(body);
		expect(error).toMatch(message);
		expect(error).toMatch(/Expected a Forms\.wtf webhook delivery/);
	});

	it.each([
		[
			'data',
			(answers: unknown[]) => ({ event: 'form.submission', formId: 'f1', data: { answers } }),
		],
		[
			'response',
			(answers: unknown[]) => ({
				event: 'form.submission',
				form: { id: 'f1' },
				response: { answers },
			}),
		],
	])('refuses more answers than any form has (%s.answers), before shaping them', (path, body) => {
		const answer = { questionId: 'q', questionLabel: 'Same label', value: 'a' };
		expect(errorOf(body(Array.from({ length: MAX_ANSWERS + 1 }, () => answer)))).toBe(
			`${path}.answers has ${MAX_ANSWERS + 1} answers; a Forms.wtf delivery has at most ${MAX_ANSWERS}.`,
		);
		expect(parse(body(Array.from({ length: MAX_ANSWERS }, () => answer)))).toHaveProperty(
			'delivery',
		);
	});
});

describe('responseWithForm', () => {
	it('adds formId, and formTitle only when the delivery has it', () => {
		expect(responseWithForm({ formId: 'f1', response: { id: 'r1' } })).toEqual({
			id: 'r1',
			formId: 'f1',
		});
		expect(responseWithForm({ formId: 'f1', formTitle: 'T', response: { id: 'r1' } })).toEqual({
			id: 'r1',
			formId: 'f1',
			formTitle: 'T',
		});
	});
});
