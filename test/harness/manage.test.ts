/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/** The management endpoints (manage.ts): webhooks, forms and the account, as the service notes describe them. */
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';

import type { FormDetail } from './index';
import { apiGet, useHarness } from './testHelpers';

const ctx = useHarness();

interface Answer {
	status: number;
	headers: Headers;
	body: unknown;
}

async function call(
	method: string,
	path: string,
	body?: unknown,
	key: string = ctx.h.keys.team,
): Promise<Answer> {
	const response = await fetch(`${ctx.h.baseUrl}${path}`, {
		method,
		headers: {
			Authorization: `Bearer ${key}`,
			...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	return {
		status: response.status,
		headers: response.headers,
		body: text === '' ? undefined : (JSON.parse(text) as unknown),
	};
}

const errorOf = (answer: Answer) => (answer.body as { error: string }).error;

/** A receiver on 127.0.0.1 that counts the POSTs it gets. */
async function receiver(): Promise<{ url: string; bodies: string[]; close: () => Promise<void> }> {
	const bodies: string[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			bodies.push(Buffer.concat(chunks).toString('utf8'));
			res.writeHead(200).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		bodies,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

async function until(condition: () => boolean, ms = 3_000): Promise<void> {
	const end = Date.now() + ms;
	while (!condition()) {
		if (Date.now() > end) throw new Error('condition not met');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

describe('webhooks of a form', () => {
	test('POST creates one that GET lists (never its secret) and DELETE removes', async () => {
		const formId = ctx.fixture('bugs').id;
		const created = await call('POST', `/forms/${formId}/webhooks`, {
			url: 'https://example.com/hook',
			secret: 'a-secret-of-the-test',
			enabled: true,
		});
		expect(created.status).toBe(201);
		const { webhook } = created.body as { webhook: Record<string, unknown> };
		expect(webhook).toEqual({
			id: expect.stringMatching(/^wh_/),
			formId,
			url: 'https://example.com/hook',
			enabled: true,
			createdAt: expect.stringMatching(/Z$/),
		});
		const listed = await call('GET', `/forms/${formId}/webhooks`);
		expect(listed.status).toBe(200);
		expect(listed.body).toEqual({ webhooks: [webhook] });
		expect(JSON.stringify(listed.body)).not.toContain('a-secret-of-the-test');

		const deleted = await call('DELETE', `/forms/${formId}/webhooks/${String(webhook.id)}`);
		expect([deleted.status, deleted.body]).toEqual([200, { success: true }]);
		expect((await call('GET', `/forms/${formId}/webhooks`)).body).toEqual({ webhooks: [] });
		const again = await call('DELETE', `/forms/${formId}/webhooks/${String(webhook.id)}`);
		expect([again.status, errorOf(again)]).toEqual([404, 'Webhook not found']);
	});

	test('the list holds the webhooks made in the form builder too, and only this form’s', async () => {
		const form = ctx.fixture('bugs');
		await ctx.h.control.addWebhook({ formId: form.id, url: 'https://builder.example/hook' });
		await ctx.h.control.addWebhook({ formId: ctx.fixture('rsvp').id, url: 'https://other/hook' });
		const listed = await call('GET', `/forms/${form.id}/webhooks`);
		const urls = (listed.body as { webhooks: Array<{ url: string }> }).webhooks.map((w) => w.url);
		expect(urls).toEqual(['https://builder.example/hook']);
	});

	test('a webhook made through the API delivers each submission, signed; a disabled one sends nothing', async () => {
		const hook = await receiver();
		try {
			const formId = ctx.fixture('bugs').id;
			await call('POST', `/forms/${formId}/webhooks`, { url: hook.url, secret: 's3cret' });
			await call('POST', `/forms/${formId}/webhooks`, { url: `${hook.url}/off`, enabled: false });
			const response = await ctx.h.control.submitResponse(formId);
			await until(() => hook.bodies.length === 1);
			const delivered = JSON.parse(hook.bodies[0]) as { response: { id: string } };
			expect(delivered.response.id).toBe(response.id);
			const { deliveries } = await ctx.h.control.webhooks();
			expect(deliveries).toHaveLength(1);
			await new Promise((resolve) => setTimeout(resolve, 100));
			expect(hook.bodies).toHaveLength(1);
		} finally {
			await hook.close();
		}
	});

	test('400 for a URL that is not http(s), and for http when the service asks for https', async () => {
		const formId = ctx.fixture('bugs').id;
		const notUrl = await call('POST', `/forms/${formId}/webhooks`, { url: 'ftp://x' });
		expect([notUrl.status, errorOf(notUrl)]).toEqual([400, 'url must be an http(s) URL']);
		await ctx.h.control.updateSettings({ webhookUrls: 'https' });
		const plain = await call('POST', `/forms/${formId}/webhooks`, { url: 'http://127.0.0.1/x' });
		expect([plain.status, errorOf(plain)]).toEqual([400, 'url must be a public https URL']);
		const secret = await call('POST', `/forms/${formId}/webhooks`, {
			url: 'https://a.example/x',
			secret: 5,
		});
		expect(secret.status).toBe(400);
	});

	test('404 for another account’s form and for a webhook of another form', async () => {
		const foreign = await call('GET', `/forms/${ctx.fixture('foreign').id}/webhooks`);
		expect([foreign.status, errorOf(foreign)]).toEqual([404, 'Form not found']);
		const created = await call('POST', `/forms/${ctx.fixture('bugs').id}/webhooks`, {
			url: 'https://a.example/x',
		});
		const id = (created.body as { webhook: { id: string } }).webhook.id;
		const elsewhere = await call('DELETE', `/forms/${ctx.fixture('rsvp').id}/webhooks/${id}`);
		expect(elsewhere.status).toBe(404);
		expect((await ctx.h.control.webhooks()).webhooks).toHaveLength(1);
	});

	test('bare answers: the list as an array, the webhook itself, a delete as 204', async () => {
		await ctx.h.control.updateSettings({ answerShape: 'bare' });
		const formId = ctx.fixture('bugs').id;
		const created = await call('POST', `/forms/${formId}/webhooks`, { url: 'https://a.example/x' });
		const webhook = created.body as { id: string; url: string };
		expect(webhook.url).toBe('https://a.example/x');
		expect((await call('GET', `/forms/${formId}/webhooks`)).body).toEqual([webhook]);
		const deleted = await call('DELETE', `/forms/${formId}/webhooks/${webhook.id}`);
		expect([deleted.status, deleted.body]).toEqual([204, undefined]);
	});

	test('fault injection reaches the webhooks endpoint: 404, 405 and 403 as a service without it would answer', async () => {
		const path = `/forms/${ctx.fixture('bugs').id}/webhooks`;
		for (const status of [404, 405, 403] as const) {
			await ctx.h.control.injectFault({ kind: 'status', status, pathIncludes: '/webhooks' });
			const answer = await call('POST', path, { url: 'https://a.example/x' });
			expect(answer.status).toBe(status);
		}
		expect((await ctx.h.control.webhooks()).webhooks).toEqual([]);
	});

	test('the methods a webhook route does not answer get 405', async () => {
		const path = `/forms/${ctx.fixture('bugs').id}/webhooks`;
		const put = await call('PUT', path, {});
		expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, POST']);
		const get = await call('GET', `${path}/wh_000001`);
		expect([get.status, get.headers.get('allow')]).toEqual([405, 'DELETE']);
	});
});

describe('forms', () => {
	test('POST /forms creates an empty unpublished form that the listing and GET show', async () => {
		const created = await call('POST', '/forms', {
			title: 'Launch feedback',
			description: 'Two minutes',
		});
		expect(created.status).toBe(201);
		const form = (created.body as { form: FormDetail & { description: string } }).form;
		expect(form).toMatchObject({
			title: 'Launch feedback',
			description: 'Two minutes',
			slug: 'launch-feedback',
			published: false,
			questions: [],
			gateRules: [],
			responseCount: 0,
		});
		const listing = JSON.parse((await apiGet(ctx.h, '/forms')).text) as {
			forms: Array<{ id: string }>;
		};
		expect(listing.forms[0].id).toBe(form.id);
		expect((await call('GET', `/forms/${form.id}`)).body).toMatchObject({ id: form.id });
		const second = await call('POST', '/forms', { title: 'Launch feedback' });
		expect((second.body as { form: FormDetail }).form.slug).toBe('launch-feedback-2');
	});

	test('POST /forms: 400 without a title of 1 to 200 characters or with a description over 1000', async () => {
		for (const body of [{}, { title: '' }, { title: 'x'.repeat(201) }]) {
			const answer = await call('POST', '/forms', body);
			expect([answer.status, errorOf(answer)]).toEqual([
				400,
				'title must be a string of 1 to 200 characters',
			]);
		}
		const long = await call('POST', '/forms', { title: 'ok', description: 'x'.repeat(1001) });
		expect(long.status).toBe(400);
		const notJson = await fetch(`${ctx.h.baseUrl}/forms`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${ctx.h.keys.team}` },
			body: '{',
		});
		expect(notJson.status).toBe(400);
	});

	test('PUT changes only the fields given; questions replace the list, keeping the ids given', async () => {
		const feedback = ctx.fixture('rsvp');
		const before = (await call('GET', `/forms/${feedback.id}`)).body as FormDetail;
		const kept = before.questions[0];
		const answer = await call('PUT', `/forms/${feedback.id}`, {
			published: true,
			questions: [
				{ id: kept.id, type: kept.type, label: 'Renamed', order: 0 },
				{ type: 'DROPDOWN', label: 'Which day?', order: 1, options: ['Fri', 'Sat'] },
			],
		});
		expect(answer.status).toBe(200);
		const form = (answer.body as { form: FormDetail }).form;
		expect(form.title).toBe(before.title);
		expect(form.published).toBe(true);
		expect(form.questions.map((q) => [q.label, q.type])).toEqual([
			['Renamed', kept.type],
			['Which day?', 'DROPDOWN'],
		]);
		expect(form.questions[0].id).toBe(kept.id);
		expect(form.questions[1].id).not.toBe(kept.id);
		expect((await call('GET', `/forms/${feedback.id}`)).body).toMatchObject({ published: true });
		const unpublished = await call('PUT', `/forms/${feedback.id}`, { published: false });
		expect((unpublished.body as { form: FormDetail }).form.published).toBe(false);
	});

	test('PUT refuses an unknown question type, an unknown question id, options missing and a taken slug', async () => {
		const id = ctx.fixture('rsvp').id;
		const takenSlug = ((await call('GET', `/forms/${ctx.fixture('bugs').id}`)).body as FormDetail)
			.slug;
		const bad = [
			{ questions: [{ type: 'SLIDER', label: 'x' }] },
			{ questions: [{ id: 'nope', type: 'SHORT_TEXT', label: 'x' }] },
			{ questions: [{ type: 'CHECKBOX', label: 'x' }] },
			{ slug: takenSlug },
			{ slug: 'Not A Slug' },
			{ published: 'yes' },
		];
		for (const body of bad) expect((await call('PUT', `/forms/${id}`, body)).status).toBe(400);
		const custom = await call('PUT', `/forms/${id}`, { slug: 'side-event-rsvp' });
		expect((custom.body as { form: FormDetail }).form.slug).toBe('side-event-rsvp');
	});

	test('DELETE removes the form, its responses and its webhooks; then it is 404', async () => {
		const form = ctx.fixture('waitlist');
		await call('POST', `/forms/${form.id}/webhooks`, { url: 'https://a.example/x' });
		const deleted = await call('DELETE', `/forms/${form.id}`);
		expect([deleted.status, deleted.body]).toEqual([200, { success: true }]);
		expect((await call('GET', `/forms/${form.id}`)).status).toBe(404);
		expect((await call('GET', `/forms/${form.id}/responses`)).status).toBe(404);
		expect((await ctx.h.control.webhooks()).webhooks).toEqual([]);
		const foreign = await call('DELETE', `/forms/${ctx.fixture('foreign').id}`);
		expect(foreign.status).toBe(404);
	});
});

describe('account', () => {
	test('GET /account: plan, limits and usage of the key’s account', async () => {
		const answer = await call('GET', '/account');
		expect(answer.status).toBe(200);
		const demoForms = ctx.forms.filter((form) => form.owner === 'demo').length;
		expect(answer.body).toEqual({
			account: {
				plan: 'team',
				limits: { forms: null, aiGenerationsPerMonth: 200, webhooks: true },
				usage: { forms: demoForms, aiGenerationsThisMonth: 0 },
			},
		});
		const business = await call('GET', '/account', undefined, ctx.h.keys.business);
		expect((business.body as { account: { plan: string } }).account.plan).toBe('business');
	});

	test('keys below Team get 403 here as everywhere; a revoked key 401', async () => {
		expect((await call('GET', '/account', undefined, ctx.h.keys.pro)).status).toBe(403);
		expect((await call('POST', '/forms', { title: 'x' }, ctx.h.keys.free)).status).toBe(403);
		expect((await call('GET', '/account', undefined, ctx.h.keys.revoked)).status).toBe(401);
	});
});
