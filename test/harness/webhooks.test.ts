/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import { createHmac } from 'crypto';
import { createServer, type IncomingMessage, type Server } from 'http';
import type { AddressInfo } from 'net';

import { startHarness, WEBHOOK_TIMEOUT_MS, type RunningHarness } from './index';
import { HarnessControlError } from './client';

interface Received {
	headers: IncomingMessage['headers'];
	body: string;
}

/** A receiver that records each POST and answers with the status `answer` gives (null: never). */
async function receiver(answer: () => number | null): Promise<{
	url: string;
	received: Received[];
	close: () => Promise<void>;
}> {
	const received: Received[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
			const status = answer();
			if (status !== null) res.writeHead(status).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		received,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}

async function until(condition: () => boolean | Promise<boolean>, ms = 3_000): Promise<void> {
	const end = Date.now() + ms;
	while (!(await condition())) {
		if (Date.now() > end) throw new Error('condition not met');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

const hmac = (body: string, secret: string) =>
	createHmac('sha256', secret).update(body).digest('hex');

describe('harness webhooks', () => {
	let harness: RunningHarness;
	beforeAll(async () => {
		harness = await startHarness({ rateLimit: false });
	});
	afterAll(() => harness.close());
	afterEach(() => harness.control.clearWebhooks());

	it('integrations format: the form and the response, signed X-Forms-Signature: sha256=<hex>', async () => {
		const sink = await receiver(() => 204);
		try {
			const form = await harness.control.form('feedback');
			await harness.control.addWebhook({ formId: form.id, url: sink.url, secret: 's3cret' });
			const response = await harness.control.submitResponse(form.id);
			await until(() => sink.received.length === 1);
			const [{ headers, body }] = sink.received;
			expect(headers['content-type']).toBe('application/json');
			expect(headers['x-forms-signature']).toBe(`sha256=${hmac(body, 's3cret')}`);
			expect(headers['x-webhook-signature']).toBeUndefined();
			const payload = JSON.parse(body);
			expect(payload.event).toBe('form.submission');
			expect(payload.form).toEqual({ id: form.id, title: form.title, slug: form.slug });
			expect(payload.response.id).toBe(response.id);
			expect(payload.response.answers[0]).toHaveProperty('questionType');
			await until(async () => (await harness.control.webhooks()).deliveries[0]?.status === 204);
		} finally {
			await sink.close();
		}
	});

	it('reference format: formId and data.wallet, signed X-Webhook-Signature: <hex>; one POST per response', async () => {
		const sink = await receiver(() => 200);
		try {
			const form = await harness.control.form('bugs');
			await harness.control.addWebhook({
				formId: form.id,
				url: sink.url,
				secret: 'k',
				format: 'reference',
			});
			const responses = await harness.control.submitResponses(form.id, [{}, {}]);
			await until(() => sink.received.length === 2);
			for (const { headers, body } of sink.received) {
				expect(headers['x-webhook-signature']).toBe(hmac(body, 'k'));
				const payload = JSON.parse(body);
				expect(payload.formId).toBe(form.id);
				expect(Object.keys(payload.data).sort()).toEqual(
					['answers', 'ensName', 'submittedAt', 'wallet'].sort(),
				);
			}
			const wallets = sink.received.map((r) => JSON.parse(r.body).data.wallet).sort();
			expect(wallets).toEqual(responses.map((r) => r.walletAddress).sort());
		} finally {
			await sink.close();
		}
	});

	it('without a secret, no signature header; another form’s submissions are not sent', async () => {
		const sink = await receiver(() => 200);
		try {
			const form = await harness.control.form('feedback');
			await harness.control.addWebhook({ formId: form.id, url: sink.url });
			await harness.control.submitResponse((await harness.control.form('bugs')).id);
			await harness.control.submitResponse(form.id);
			await until(() => sink.received.length === 1);
			await new Promise((resolve) => setTimeout(resolve, 100));
			expect(sink.received).toHaveLength(1);
			expect(sink.received[0].headers['x-forms-signature']).toBeUndefined();
			expect((await harness.control.webhooks()).webhooks[0]).not.toHaveProperty('secret');
		} finally {
			await sink.close();
		}
	});

	it('no retry: a receiver answering 500 gets the delivery once', async () => {
		const sink = await receiver(() => 500);
		try {
			const form = await harness.control.form('feedback');
			await harness.control.addWebhook({ formId: form.id, url: sink.url, secret: 'x' });
			await harness.control.submitResponse(form.id);
			await until(async () => (await harness.control.webhooks()).deliveries[0]?.status === 500);
			await new Promise((resolve) => setTimeout(resolve, 300));
			expect(sink.received).toHaveLength(1);
		} finally {
			await sink.close();
		}
	});

	it('the submission is answered without waiting for the receiver, which is given up after 5 s', async () => {
		const sink = await receiver(() => null);
		try {
			const form = await harness.control.form('feedback');
			await harness.control.addWebhook({ formId: form.id, url: sink.url });
			const before = Date.now();
			await harness.control.submitResponse(form.id);
			expect(Date.now() - before).toBeLessThan(1_000);
			await until(async () => {
				const [delivery] = (await harness.control.webhooks()).deliveries;
				return delivery?.error !== undefined;
			}, WEBHOOK_TIMEOUT_MS + 3_000);
			const [delivery] = (await harness.control.webhooks()).deliveries;
			expect(delivery.status).toBeNull();
			expect(delivery.error).toMatch(/no answer within 5000 ms/);
			expect(delivery.durationMs).toBeGreaterThanOrEqual(WEBHOOK_TIMEOUT_MS - 50);
			expect(sink.received).toHaveLength(1);
		} finally {
			await sink.close();
		}
	}, 15_000);

	it('a receiver that is down is recorded as a failed delivery', async () => {
		const form = await harness.control.form('feedback');
		await harness.control.addWebhook({ formId: form.id, url: 'http://127.0.0.1:9/down' });
		await harness.control.submitResponse(form.id);
		await until(async () => (await harness.control.webhooks()).deliveries[0]?.error !== undefined);
		expect((await harness.control.webhooks()).deliveries[0].status).toBeNull();
	});

	it('refuses bad webhook specs', async () => {
		const form = await harness.control.form('feedback');
		const bad = [
			{ formId: form.id, url: 'ftp://x' },
			{ formId: form.id, url: 'http://x', format: 'xml' },
			{ formId: form.id, url: 'http://x', secret: 3 },
			{ formId: form.id, url: 'http://x', retries: 3 },
		];
		for (const spec of bad)
			await expect(
				harness.control.addWebhook(spec as Parameters<typeof harness.control.addWebhook>[0]),
			).rejects.toMatchObject({ status: 400 });
		await expect(
			harness.control.addWebhook({ formId: 'nope', url: 'http://x' }),
		).rejects.toBeInstanceOf(HarnessControlError);
	});

	it('reset removes the webhooks', async () => {
		const form = await harness.control.form('feedback');
		await harness.control.addWebhook({ formId: form.id, url: 'http://127.0.0.1:9/x' });
		await harness.control.reset();
		expect((await harness.control.webhooks()).webhooks).toEqual([]);
	});
});
