/** A form's webhooks through the transport: what is sent, how answers of either shape are read, what is retried. */
import { NodeOperationError } from 'n8n-workflow';

import {
	createWebhook,
	deleteWebhook,
	explainWebhookRefusal,
	listWebhooks,
} from '../../nodes/FormsWtf/shared/transport/webhooks';
import { API_KEY } from './fixtures';
import { scriptedClient, TRANSPORT_TEST_NODE, useScriptedClock } from './transportClient';

useScriptedClock();

const json = (status: number, body: unknown) => ({ status, body: JSON.stringify(body) });

describe('listWebhooks', () => {
	test('reads an envelope or a bare array, ids as strings', async () => {
		const hook = { id: 7, url: 'https://a.example/x', enabled: true };
		for (const body of [{ webhooks: [hook] }, [hook]]) {
			const { transport, sent } = scriptedClient([json(200, body)], { apiKey: API_KEY });
			expect(await listWebhooks(transport, 'f1')).toEqual([{ ...hook, id: '7' }]);
			expect([sent[0].method, sent[0].url]).toEqual([
				'GET',
				'http://127.0.0.1:9/api/v1/forms/f1/webhooks',
			]);
		}
	});

	test('a list whose entries lack an id or a url is refused, saying what was expected', async () => {
		const { transport } = scriptedClient([json(200, { webhooks: [{ url: 'x' }] })], {
			apiKey: API_KEY,
		});
		const error = (await listWebhooks(transport, 'f1').catch((caught: unknown) => caught)) as {
			message: string;
			description: string;
		};
		expect(error.message).toBe('Forms.wtf sent an answer that could not be read');
		expect(error.description).toContain('a list of webhooks each with an "id" and a "url"');
	});
});

describe('createWebhook', () => {
	test('POSTs the URL, secret and enabled as JSON; reads the webhook bare or wrapped', async () => {
		for (const body of [
			{ webhook: { id: 'wh_1', url: 'https://n8n.example/webhook/x' } },
			{ id: 'wh_1', url: 'https://n8n.example/webhook/x' },
		]) {
			const { transport, sent } = scriptedClient([json(201, body)], { apiKey: API_KEY });
			const made = await createWebhook(transport, 'f1', {
				url: 'https://n8n.example/webhook/x',
				secret: 's',
				enabled: true,
			});
			expect(made.id).toBe('wh_1');
			expect(sent[0].method).toBe('POST');
			expect(sent[0].headers).toMatchObject({ 'Content-Type': 'application/json' });
			expect(JSON.parse(String(sent[0].body))).toEqual({
				url: 'https://n8n.example/webhook/x',
				secret: 's',
				enabled: true,
			});
		}
	});

	test('a POST answered 502, or whose connection dropped, is not sent again (it may have made one)', async () => {
		for (const failure of [
			{ status: 502, body: '{"error":"Bad gateway"}' },
			{ code: 'ECONNRESET' },
		]) {
			const { transport, sent } = scriptedClient([failure, json(201, { id: 'x', url: 'u' })], {
				apiKey: API_KEY,
			});
			await expect(createWebhook(transport, 'f1', { url: 'u' })).rejects.toThrow();
			expect(sent).toHaveLength(1);
		}
	});

	test('a POST refused before it was sent (ECONNREFUSED) or rate limited (429) is sent again', async () => {
		for (const first of [{ code: 'ECONNREFUSED' }, { status: 429, body: '{"error":"slow"}' }]) {
			const { transport, sent } = scriptedClient([first, json(201, { id: 'x', url: 'u' })], {
				apiKey: API_KEY,
			});
			expect((await createWebhook(transport, 'f1', { url: 'u' })).id).toBe('x');
			expect(sent).toHaveLength(2);
		}
	});
});

describe('deleteWebhook', () => {
	test('DELETE answered 204 without a body, or 200 with one: deleted', async () => {
		for (const answer of [{ status: 204 }, json(200, { success: true })]) {
			const { transport, sent } = scriptedClient([answer], { apiKey: API_KEY });
			expect(await deleteWebhook(transport, 'f1', 'wh_1')).toBe('deleted');
			expect([sent[0].method, sent[0].url]).toEqual([
				'DELETE',
				'http://127.0.0.1:9/api/v1/forms/f1/webhooks/wh_1',
			]);
		}
	});

	test('404: already gone, which is what was wanted; a 500 is retried, a DELETE being safe to repeat', async () => {
		const gone = scriptedClient([json(404, { error: 'Webhook not found' })], { apiKey: API_KEY });
		expect(await deleteWebhook(gone.transport, 'f1', 'wh_1')).toBe('gone');
		const flaky = scriptedClient([json(500, { error: 'x' }), { status: 204 }], { apiKey: API_KEY });
		expect(await deleteWebhook(flaky.transport, 'f1', 'wh_1')).toBe('deleted');
		expect(flaky.sent).toHaveLength(2);
	});
});

describe('explainWebhookRefusal', () => {
	test('404, 405, 403 and 400 become what to do, each with the way out through Manual', async () => {
		const messages: string[] = [];
		for (const status of [404, 405, 403, 400]) {
			const { transport } = scriptedClient(
				[json(status, { error: 'url must be a public https URL' })],
				{ apiKey: API_KEY },
			);
			const error = await createWebhook(transport, 'f1', { url: 'http://x' }).catch(
				(caught: unknown) => caught,
			);
			const explained = explainWebhookRefusal(TRANSPORT_TEST_NODE, error, 'f1', 'http://x');
			expect(explained).toBeInstanceOf(NodeOperationError);
			messages.push((explained as Error).message);
		}
		for (const message of messages)
			expect(message).toContain('choose Registration: Manual and add it in Forms.wtf');
		expect(messages[0]).toMatch(/^No webhooks API here \(404/);
		expect(messages[2]).toMatch(/^Webhooks need the Team plan/);
		expect(messages[3]).toContain('("url must be a public https URL")');
	});

	test('other errors pass unchanged', async () => {
		const { transport } = scriptedClient([json(401, { error: 'Invalid API key' })], {
			apiKey: API_KEY,
		});
		const error = await listWebhooks(transport, 'f1').catch((caught: unknown) => caught);
		expect(explainWebhookRefusal(TRANSPORT_TEST_NODE, error, 'f1')).toBe(error);
	});
});
