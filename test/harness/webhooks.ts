/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Webhooks, as Forms.wtf sends them: configured per form (the form builder's Settings →
 * Webhooks: an endpoint URL and an optional secret), a POST for each submission, fire-and-forget
 * with a 5-second timeout and no retry. The service's two public pages describe two payloads and
 * two signature headers; each webhook here sends one of them (`format`):
 *
 *   reference     API reference page: { event, formId, data: { wallet, ensName, answers,
 *                 submittedAt }, timestamp }, signed `X-Webhook-Signature: <hex>`
 *   integrations  integrations page: { event, form: { id, title, slug }, response: { id,
 *                 walletAddress, ensName, submittedAt, durationSeconds, answers (with
 *                 questionType) } }, signed `X-Forms-Signature: sha256=<hex>`
 *
 * The signature is HMAC-SHA256(secret, raw body); a webhook without a secret sends none.
 * Updates of a response (PATCH) send nothing: the pages speak of submissions only.
 */
import { createHmac } from 'crypto';

import { HarnessInputError } from './errors';
import type { HarnessForm } from './data';
import type { FormResponse } from './types';

export const WEBHOOK_FORMATS = ['reference', 'integrations'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** The service's timeout for a delivery. */
export const WEBHOOK_TIMEOUT_MS = 5_000;
const DELIVERY_LOG_LIMIT = 1_000;

export interface WebhookSpec {
	formId: string;
	url: string;
	secret?: string;
	/** Default `integrations`. */
	format?: WebhookFormat;
	/** Default true; a disabled webhook sends nothing. */
	enabled?: boolean;
}

export interface HarnessWebhook {
	id: number;
	/** The id the API shows for it (`GET /forms/:id/webhooks`) and deletes it by. */
	apiId: string;
	formId: string;
	url: string;
	/** Whether it signs; the secret itself is never listed. */
	signed: boolean;
	format: WebhookFormat;
	enabled: boolean;
	/** Service clock, ISO. */
	createdAt: string;
	/** Who made it: the control API (a test, standing for the form builder) or the API. */
	source: 'control' | 'api';
}

export interface WebhookDelivery {
	webhookId: number;
	formId: string;
	responseId: string;
	/** When the POST was sent (host clock, ISO). */
	sentAt: string;
	/** The receiver's status; null while in flight, or when it failed or timed out (see error). */
	status: number | null;
	error?: string;
	/** Milliseconds until the receiver answered, or gave up. */
	durationMs?: number;
}

/** The body a webhook of this format sends for a response, and the headers that sign it. */
export function webhookRequest(
	format: WebhookFormat,
	form: Pick<HarnessForm, 'id' | 'detail'>,
	response: FormResponse,
	secret: string | undefined,
	nowIso: string,
): { body: string; headers: Record<string, string> } {
	const questionType = new Map(form.detail.questions.map((q) => [q.id, q.type]));
	const payload =
		format === 'reference'
			? {
					event: 'form.submission',
					formId: form.id,
					data: {
						wallet: response.walletAddress,
						ensName: response.ensName,
						answers: response.answers,
						submittedAt: response.submittedAt,
					},
					timestamp: nowIso,
				}
			: {
					event: 'form.submission',
					form: { id: form.id, title: form.detail.title, slug: form.detail.slug },
					response: {
						...response,
						answers: response.answers.map((answer) => ({
							questionId: answer.questionId,
							questionLabel: answer.questionLabel,
							questionType: questionType.get(answer.questionId) ?? null,
							value: answer.value,
						})),
					},
				};
	const body = JSON.stringify(payload);
	const headers: Record<string, string> = { 'Content-Type': 'application/json' };
	if (secret !== undefined && secret !== '') {
		const hex = createHmac('sha256', secret).update(body).digest('hex');
		if (format === 'reference') headers['X-Webhook-Signature'] = hex;
		else headers['X-Forms-Signature'] = `sha256=${hex}`;
	}
	return { body, headers };
}

export function parseWebhookSpec(input: unknown): WebhookSpec {
	if (typeof input !== 'object' || input === null || Array.isArray(input))
		throw new HarnessInputError('a webhook must be a JSON object');
	const { formId, url, secret, format, enabled, ...rest } = input as Record<string, unknown>;
	const unknown = Object.keys(rest);
	if (unknown.length) throw new HarnessInputError(`unknown webhook field ${unknown[0]}`);
	if (typeof formId !== 'string' || formId === '')
		throw new HarnessInputError('formId must be a form id');
	if (typeof url !== 'string' || !/^https?:\/\//.test(url))
		throw new HarnessInputError('url must be an http(s) URL');
	if (secret !== undefined && typeof secret !== 'string')
		throw new HarnessInputError('secret must be a string');
	if (format !== undefined && !WEBHOOK_FORMATS.includes(format as WebhookFormat))
		throw new HarnessInputError(`format must be one of ${WEBHOOK_FORMATS.join(', ')}`);
	if (enabled !== undefined && typeof enabled !== 'boolean')
		throw new HarnessInputError('enabled must be a boolean');
	const spec: WebhookSpec = { formId, url, format: (format as WebhookFormat) ?? 'integrations' };
	if (secret !== undefined) spec.secret = secret;
	if (enabled !== undefined) spec.enabled = enabled;
	return spec;
}

export class WebhookSender {
	private webhooks: Array<HarnessWebhook & { secret?: string }> = [];
	private deliveries: WebhookDelivery[] = [];
	private readonly inFlight = new Set<AbortController>();
	private nextId = 1;

	add(
		spec: WebhookSpec,
		source: HarnessWebhook['source'] = 'control',
		nowMs: number = Date.now(),
	): HarnessWebhook {
		const id = this.nextId++;
		const webhook = {
			id,
			apiId: `wh_${String(id).padStart(6, '0')}`,
			formId: spec.formId,
			url: spec.url,
			signed: spec.secret !== undefined && spec.secret !== '',
			format: spec.format ?? 'integrations',
			enabled: spec.enabled ?? true,
			createdAt: new Date(nowMs).toISOString(),
			source,
			secret: spec.secret,
		};
		this.webhooks.push(webhook);
		return this.describe(webhook);
	}

	list(): HarnessWebhook[] {
		return this.webhooks.map((webhook) => this.describe(webhook));
	}

	/** Removes the webhook of this form with this API id; false if the form has none such. */
	remove(formId: string, apiId: string): boolean {
		const index = this.webhooks.findIndex((w) => w.formId === formId && w.apiId === apiId);
		if (index < 0) return false;
		this.webhooks.splice(index, 1);
		return true;
	}

	/** Removes every webhook of a form (the form was deleted). */
	removeForm(formId: string): void {
		this.webhooks = this.webhooks.filter((webhook) => webhook.formId !== formId);
	}

	deliveryLog(): WebhookDelivery[] {
		return this.deliveries.map((delivery) => ({ ...delivery }));
	}

	/** Forgets every webhook and delivery; deliveries in flight are abandoned. */
	clear(): void {
		this.webhooks = [];
		this.deliveries = [];
		for (const controller of this.inFlight) controller.abort();
		this.inFlight.clear();
	}

	/** Sends each new response to each webhook of its form, without waiting for the answers. */
	submitted(form: HarnessForm, responses: FormResponse[]): void {
		const sending = this.webhooks.filter((hook) => hook.formId === form.id && hook.enabled);
		for (const webhook of sending)
			for (const response of responses) void this.send(webhook, form, response);
	}

	private describe(webhook: HarnessWebhook & { secret?: string }): HarnessWebhook {
		// eslint-disable-next-line @typescript-eslint/no-unused-vars -- left out of the rest on purpose
		const { secret: _secret, ...listed } = webhook;
		return listed;
	}

	private async send(
		webhook: HarnessWebhook & { secret?: string },
		form: HarnessForm,
		response: FormResponse,
	): Promise<void> {
		const startedMs = Date.now();
		const delivery: WebhookDelivery = {
			webhookId: webhook.id,
			formId: form.id,
			responseId: response.id,
			sentAt: new Date(startedMs).toISOString(),
			status: null,
		};
		this.deliveries.push(delivery);
		if (this.deliveries.length > DELIVERY_LOG_LIMIT) this.deliveries.shift();
		const { body, headers } = webhookRequest(
			webhook.format,
			form,
			response,
			webhook.secret,
			delivery.sentAt,
		);
		const controller = new AbortController();
		this.inFlight.add(controller);
		const timer = setTimeout(() => controller.abort(), WEBHOOK_TIMEOUT_MS);
		try {
			const answer = await fetch(webhook.url, {
				method: 'POST',
				headers,
				body,
				signal: controller.signal,
			});
			delivery.status = answer.status;
			// The service reads nothing but the status; the body is drained so the socket is freed.
			await answer.arrayBuffer().catch(() => undefined);
		} catch (error) {
			delivery.error = controller.signal.aborted
				? `no answer within ${WEBHOOK_TIMEOUT_MS} ms`
				: (error as Error).message;
		} finally {
			clearTimeout(timer);
			this.inFlight.delete(controller);
			delivery.durationMs = Date.now() - startedMs;
		}
	}
}
