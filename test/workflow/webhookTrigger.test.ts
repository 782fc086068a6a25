/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The Webhook Trigger through n8n-core's WebhookContext: what each request is answered, whether
 * an execution starts, and the item it starts with, beside the polling trigger's item for the
 * same response (read from the local API).
 */
import { createHmac } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { startHarness, webhookRequest, type RunningHarness } from '../harness';
import { RUNNER_START_NODE_TYPE } from '../runner';
import { pollTrigger } from '../support/formsWtf';
import {
	delivery,
	SAMPLE_FORM,
	SAMPLE_RESPONSE,
	sendToTrigger,
	WEBHOOK_NODE_NAME,
} from '../support/webhookTrigger';

const SECRET = 'whsec_3f9c1b7e2a';

function started(result: Awaited<ReturnType<typeof sendToTrigger>>): IDataObject[] {
	return (result.items ?? []).map((item) => item.json);
}

describe('Forms.wtf Webhook Trigger: what starts a workflow', () => {
	it.each(['integrations', 'reference'] as const)(
		'a signed %s delivery starts one execution with one item, answered at once',
		async (format) => {
			const result = await sendToTrigger({ secret: SECRET, request: delivery(format, SECRET) });
			expect(result.returned.noWebhookResponse).toBeUndefined();
			expect(result.status).toBe(200);
			expect(started(result)).toHaveLength(1);
			expect(result.run?.status).toBe('success');
			expect(result.run?.outputOf(WEBHOOK_NODE_NAME)).toHaveLength(1);
		},
	);

	it('a node after the trigger gets the item', async () => {
		const result = await sendToTrigger({
			secret: SECRET,
			request: delivery('integrations', SECRET),
			after: {
				nodes: [
					{
						id: 'next',
						name: 'Next',
						type: RUNNER_START_NODE_TYPE,
						typeVersion: 1,
						position: [200, 0],
						parameters: {},
					},
				],
				connections: {
					[WEBHOOK_NODE_NAME]: { main: [[{ node: 'Next', type: 'main', index: 0 }]] },
				},
				nodeTypes: {},
			},
		});
		expect(result.run?.outputOf('Next').map((item) => item.json.id)).toEqual([SAMPLE_RESPONSE.id]);
	});

	it('Simplified: answers keyed by label, formId and formTitle (integrations payload)', async () => {
		const result = await sendToTrigger({
			secret: SECRET,
			request: delivery('integrations', SECRET),
		});
		expect(started(result)[0]).toEqual({
			id: SAMPLE_RESPONSE.id,
			walletAddress: SAMPLE_RESPONSE.walletAddress,
			ensName: 'alice.eth',
			submittedAt: SAMPLE_RESPONSE.submittedAt,
			durationSeconds: 87,
			answers: { 'What is your name?': 'Alice', 'What is your role?': 'Developer' },
			formId: SAMPLE_FORM.id,
			formTitle: 'DAO Contributor Survey',
		});
	});

	it('the reference payload lacks id, durationSeconds and the title: they stay absent', async () => {
		const result = await sendToTrigger({ secret: SECRET, request: delivery('reference', SECRET) });
		expect(started(result)[0]).toEqual({
			walletAddress: SAMPLE_RESPONSE.walletAddress,
			ensName: 'alice.eth',
			submittedAt: SAMPLE_RESPONSE.submittedAt,
			answers: { 'What is your name?': 'Alice', 'What is your role?': 'Developer' },
			formId: SAMPLE_FORM.id,
		});
	});

	it('Raw: the answers as the delivery listed them', async () => {
		const result = await sendToTrigger({
			secret: SECRET,
			parameters: { output: 'raw' },
			request: delivery('reference', SECRET),
		});
		expect(started(result)[0].answers).toEqual(SAMPLE_RESPONSE.answers);
	});

	it('Simplified: labels named like Object’s own members are plain keys, "constructor" as n8n keeps it', async () => {
		const body = JSON.stringify({
			event: 'form.submission',
			formId: 'f1',
			data: {
				answers: [
					{ questionId: 'q1', questionLabel: 'constructor', value: 'a' },
					{ questionId: 'q2', questionLabel: 'hasOwnProperty', value: 'b' },
					{ questionId: 'q3', questionLabel: 'toString', value: null },
				],
			},
		});
		const signature = createHmac('sha256', SECRET).update(body).digest('hex');
		const result = await sendToTrigger({
			secret: SECRET,
			request: { body, headers: { 'X-Webhook-Signature': signature } },
		});
		// n8n's copies of an item drop a "constructor" key: the shared output keys it "constructor (2)".
		expect(started(result)[0].answers).toEqual({
			'constructor (2)': 'a',
			hasOwnProperty: 'b',
			toString: null,
		});
	});

	it('Simplified: a "__proto__" label is a plain key, not the answers’ prototype', async () => {
		const body = JSON.stringify({
			event: 'form.submission',
			formId: 'f1',
			data: {
				answers: [
					{ questionId: 'q1', questionLabel: '__proto__', value: { polluted: true } },
					{ questionId: 'q2', questionLabel: '__proto__', value: 'second' },
				],
			},
		});
		const signature = createHmac('sha256', SECRET).update(body).digest('hex');
		const result = await sendToTrigger({
			secret: SECRET,
			request: { body, headers: { 'X-Webhook-Signature': signature } },
		});
		const answers = started(result)[0].answers as IDataObject;
		expect(Object.getPrototypeOf(answers)).toBe(Object.prototype);
		expect(Object.keys(answers)).toEqual(['__proto__ (2)', '__proto__ (3)']);
		expect(answers['__proto__ (2)']).toEqual({ polluted: true });
		expect(answers['__proto__ (3)']).toBe('second');
	});

	it('"Listen for test event" (the test URL) starts a manual execution the same way', async () => {
		const result = await sendToTrigger({
			mode: 'manual',
			secret: SECRET,
			request: delivery('integrations', SECRET),
		});
		expect(started(result)).toHaveLength(1);
		expect(result.run?.run.mode).toBe('manual');
	});

	it('a header name in another case is the same header', async () => {
		const { body, headers } = delivery('reference', SECRET);
		const result = await sendToTrigger({
			secret: SECRET,
			request: { body, headers: { 'X-WEBHOOK-SIGNATURE': headers['X-Webhook-Signature'] } },
		});
		expect(started(result)).toHaveLength(1);
	});

	it('a body n8n did not read (text/plain on a later n8n) is read by the node', async () => {
		const result = await sendToTrigger({
			secret: SECRET,
			request: { ...delivery('integrations', SECRET), bodyRead: false },
		});
		expect(started(result)).toHaveLength(1);
	});

	it('version 2 on Registration Manual: a delivery signed with the secret credential starts the workflow', async () => {
		const manual = { registration: 'manual' };
		const result = await sendToTrigger({
			typeVersion: 2,
			parameters: manual,
			secret: SECRET,
			request: delivery('integrations', SECRET),
		});
		expect(started(result)).toHaveLength(1);
		const otherSecret = await sendToTrigger({
			typeVersion: 2,
			parameters: manual,
			secret: SECRET,
			request: delivery('integrations', 'whsec_someone_else'),
		});
		expect(otherSecret.status).toBe(401);
		expect(otherSecret.items).toBeUndefined();
	});

	it('Signature Verification None: an unsigned delivery starts the workflow', async () => {
		const result = await sendToTrigger({
			parameters: { authentication: 'none' },
			withCredential: false,
			request: delivery('integrations', undefined),
		});
		expect(started(result)).toHaveLength(1);
	});

	it('Only These Form IDs: a listed form starts the workflow, another is answered 200 and starts nothing', async () => {
		const listed = await sendToTrigger({
			secret: SECRET,
			parameters: { options: { formIds: `frm_other, ${SAMPLE_FORM.id}` } },
			request: delivery('integrations', SECRET),
		});
		expect(started(listed)).toHaveLength(1);
		const other = await sendToTrigger({
			secret: SECRET,
			parameters: { options: { formIds: 'frm_other' } },
			request: delivery('integrations', SECRET),
		});
		expect(other.status).toBe(200);
		expect(other.items).toBeUndefined();
		expect(other.run).toBeUndefined();
		expect(other.body).toEqual({ ignored: expect.stringContaining(SAMPLE_FORM.id) });
	});

	it.each([
		['semicolons', `frm_other;${SAMPLE_FORM.id}`],
		['pipes and line breaks', `frm_other |\n${SAMPLE_FORM.id}`],
		['a pasted list', `["frm_other", "${SAMPLE_FORM.id}"]`],
		['a zero-width space pasted with the ID', `\u200b${SAMPLE_FORM.id}\u200b`],
		['a full-width comma', `frm_other，${SAMPLE_FORM.id}`],
		['a list from an expression', [' frm_other ', ` ${SAMPLE_FORM.id} `]],
	])(
		'Only These Form IDs separated by %s: the listed form starts the workflow',
		async (_n, ids) => {
			const result = await sendToTrigger({
				secret: SECRET,
				parameters: { options: { formIds: ids } },
				request: delivery('integrations', SECRET),
			});
			expect(started(result)).toHaveLength(1);
		},
	);

	it.each([
		['a prefix of it', SAMPLE_FORM.id.slice(0, -1)],
		['it with more after it', `${SAMPLE_FORM.id}x`],
		['it in another case', SAMPLE_FORM.id.toUpperCase()],
	])('Only These Form IDs with %s lets no other form through', async (_name, ids) => {
		const result = await sendToTrigger({
			secret: SECRET,
			parameters: { options: { formIds: ids } },
			request: delivery('integrations', SECRET),
		});
		expect(result.items).toBeUndefined();
	});
});

describe('Forms.wtf Webhook Trigger: what is refused, starting nothing', () => {
	async function refused(args: Parameters<typeof sendToTrigger>[0]) {
		const result = await sendToTrigger(args);
		expect(result.returned).toEqual({ noWebhookResponse: true });
		expect(result.items).toBeUndefined();
		expect(result.run).toBeUndefined();
		const error = (result.body as { error: string }).error;
		expect(error).not.toContain(SECRET);
		return { status: result.status, error };
	}

	it('no signature: 401', async () => {
		const { status, error } = await refused({
			secret: SECRET,
			request: delivery('integrations', undefined),
		});
		expect(status).toBe(401);
		expect(error).toMatch(/No signature/);
	});

	it.each(['integrations', 'reference'] as const)(
		'%s signed with another secret: 401',
		async (format) => {
			const { status, error } = await refused({
				secret: SECRET,
				request: delivery(format, 'whsec_someone_else'),
			});
			expect(status).toBe(401);
			expect(error).toMatch(/does not match/);
		},
	);

	it('a body changed by one byte after signing: 401', async () => {
		const { body, headers } = delivery('integrations', SECRET);
		const changed = body.replace('"Alice"', '"Alicf"');
		expect(changed).not.toBe(body);
		const { status } = await refused({ secret: SECRET, request: { body: changed, headers } });
		expect(status).toBe(401);
	});

	it('a signing node without a credential refuses signed deliveries too', async () => {
		const { status } = await refused({
			withCredential: false,
			request: delivery('integrations', SECRET),
		});
		expect(status).toBe(401);
	});

	function signed(body: string | Buffer) {
		return {
			body,
			headers: {
				'X-Forms-Signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
			},
		};
	}

	it('a signed body that is not JSON: 400', async () => {
		const { status, error } = await refused({
			secret: SECRET,
			request: { ...signed('event=form.submission'), bodyRead: false },
		});
		expect(status).toBe(400);
		expect(error).toMatch(/not JSON/);
	});

	it('signed JSON that is not a delivery: 400 saying what was expected', async () => {
		const { status, error } = await refused({
			secret: SECRET,
			request: signed(JSON.stringify({ event: 'form.submission', hello: 'world' })),
		});
		expect(status).toBe(400);
		expect(error).toMatch(/Expected a Forms\.wtf webhook delivery/);
	});

	it.each([
		['signed', SECRET],
		['unsigned', undefined],
	])(
		'a multipart/form-data body (%s), which n8n has read as a form: 400, not a 500',
		async (_name, signer) => {
			const request = { ...delivery('integrations', signer), bodyConsumed: true };
			const { status, error } = await refused({ secret: SECRET, request });
			expect(status).toBe(400);
			expect(error).toMatch(/could not be read.*application\/json/);
		},
	);

	it.each([
		['null', 'null'],
		['a question ID n8n cannot turn into a key', '{"questionId":{"toString":1},"value":"a"}'],
	])('a signed delivery with an answer that is %s: 400, not a 500', async (_name, answer) => {
		const body = `{"event":"form.submission","formId":"f1","data":{"wallet":"0x1","answers":[${answer}]}}`;
		for (const output of ['simplified', 'raw']) {
			const { status, error } = await refused({
				secret: SECRET,
				parameters: { output },
				request: signed(body),
			});
			expect(status).toBe(400);
			expect(error).toMatch(/data\.answers\[0\]/);
		}
	});

	it('an empty body: 400', async () => {
		const { status } = await refused({
			secret: SECRET,
			request: { ...signed(''), bodyRead: false },
		});
		expect(status).toBe(400);
	});

	it('a 10 MB body, even correctly signed: 413, before its signature is computed', async () => {
		const big = Buffer.alloc(10 * 1024 * 1024, 0x20);
		const { status } = await refused({ secret: SECRET, request: signed(big) });
		expect(status).toBe(413);
	});
});

describe('Forms.wtf Webhook Trigger: the same item as the polling trigger', () => {
	let harness: RunningHarness;
	beforeAll(async () => {
		harness = await startHarness({ rateLimit: false });
	});
	afterAll(() => harness.close());

	it.each(['simplified', 'raw'] as const)(
		'%s: a response through the webhook (integrations payload) equals Selected Forms’ item for it',
		async (output) => {
			const form = await harness.control.form('research');
			const response = await harness.control.submitResponse(form.id);
			const poll = await pollTrigger({
				baseUrl: harness.baseUrl,
				apiKey: harness.keys.team,
				parameters: { watch: 'selectedForms', formIds: [form.id], output, options: {} },
				mode: 'manual',
			});
			const polled = poll.items?.[0][0].json;
			expect(polled?.id).toBe(response.id);

			const detail = (await (
				await fetch(`${harness.baseUrl}/forms/${form.id}`, {
					headers: { Authorization: `Bearer ${harness.keys.team}` },
				})
			).json()) as Parameters<typeof webhookRequest>[1]['detail'];
			const request = webhookRequest(
				'integrations',
				{ id: form.id, detail },
				response,
				SECRET,
				new Date().toISOString(),
			);
			const result = await sendToTrigger({ secret: SECRET, parameters: { output }, request });
			const item = started(result)[0];
			if (output === 'simplified') expect(item).toEqual(polled);
			// Raw is what each sent: the webhook's answers carry their question's type besides.
			else
				expect({
					...item,
					// eslint-disable-next-line @typescript-eslint/no-unused-vars -- left out of the rest on purpose
					answers: (item.answers as IDataObject[]).map(({ questionType: _t, ...answer }) => answer),
				}).toEqual(polled);
		},
	);
});
