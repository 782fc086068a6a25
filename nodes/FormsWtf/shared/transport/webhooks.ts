/**
 * A form's webhooks at Forms.wtf (`/forms/:id/webhooks`), which the contract does not show: the
 * service's official MCP server called them (service-notes.md). The shapes of the answers are not
 * public either, so they are read leniently: a list as `{ "webhooks": [...] }` or a bare array, a
 * created webhook as itself or as `{ "webhook": {...} }`, an id as a string or a number.
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { ApiRequest, ExpectedBody, FormsWtfClient } from './index';
import { asNodeError, isObject } from './errors';

export interface ServiceWebhook extends IDataObject {
	id: string;
	url: string;
}

type Call = Pick<ApiRequest, 'itemIndex' | 'timeoutMs'>;

/** An object with an id (string or number) and a URL: a webhook, whatever else it carries. */
function asWebhook(value: unknown): ServiceWebhook | undefined {
	if (!isObject(value) || typeof value.url !== 'string') return undefined;
	const id = value.id;
	if (!((typeof id === 'string' && id !== '') || typeof id === 'number')) return undefined;
	return { ...(value as IDataObject), id: String(id), url: value.url };
}

function listIn(body: unknown): unknown[] | undefined {
	if (Array.isArray(body)) return body;
	if (isObject(body) && Array.isArray(body.webhooks)) return body.webhooks;
	return undefined;
}

function oneIn(body: unknown): ServiceWebhook | undefined {
	return asWebhook(body) ?? (isObject(body) ? asWebhook(body.webhook) : undefined);
}

const WEBHOOK_LIST: ExpectedBody = {
	what: '{ "webhooks": [ … ] }, a list of webhooks each with an "id" and a "url"',
	accepts: (body) => listIn(body)?.every((entry) => asWebhook(entry) !== undefined) === true,
};

const ONE_WEBHOOK: ExpectedBody = {
	what: 'the webhook made, { "id": …, "url": … }',
	accepts: (body) => oneIn(body) !== undefined,
};

/** The webhooks of a form, as Forms.wtf lists them (never with their secrets). */
export async function listWebhooks(
	client: FormsWtfClient,
	formId: string,
	call: Call = {},
): Promise<ServiceWebhook[]> {
	const { body } = await client.request<unknown>({
		path: ['forms', formId, 'webhooks'],
		formId,
		...call,
		expect: WEBHOOK_LIST,
	});
	return (listIn(body) ?? []).map((entry) => asWebhook(entry) as ServiceWebhook);
}

export interface NewWebhook extends IDataObject {
	url: string;
	secret?: string;
	enabled?: boolean;
}

/** Adds a webhook to a form: Forms.wtf then POSTs each submission to its URL. */
export async function createWebhook(
	client: FormsWtfClient,
	formId: string,
	webhook: NewWebhook,
	call: Call = {},
): Promise<ServiceWebhook> {
	const { body } = await client.request<unknown>({
		method: 'POST',
		path: ['forms', formId, 'webhooks'],
		body: webhook,
		formId,
		...call,
		expect: ONE_WEBHOOK,
	});
	return oneIn(body) as ServiceWebhook;
}

/**
 * Removes a webhook from a form. `gone` when Forms.wtf answers 404: it is not there (any more),
 * which is what was wanted.
 */
export async function deleteWebhook(
	client: FormsWtfClient,
	formId: string,
	webhookId: string,
	call: Call = {},
): Promise<'deleted' | 'gone'> {
	try {
		await client.request<unknown>({
			method: 'DELETE',
			path: ['forms', formId, 'webhooks', webhookId],
			formId,
			...call,
		});
		return 'deleted';
	} catch (error) {
		if (statusOf(error) === 404) return 'gone';
		throw asNodeError(client.context.getNode(), error, call.itemIndex);
	}
}

/** What every refusal ends with: the way that needs no webhooks API. */
const MANUAL_WAY_OUT =
	', or choose Registration: Manual and add it in Forms.wtf (the form → Settings → Webhooks)';

/** The HTTP status of an error of the transport, if it came from one. */
export function statusOf(error: unknown): number | undefined {
	if (!(error instanceof NodeApiError) || error.httpCode === null) return undefined;
	const status = Number(error.httpCode);
	return Number.isInteger(status) ? status : undefined;
}

/**
 * A refusal of the webhooks endpoint (404/405: this API has none; 403: the plan; 400: the URL
 * or the body), told as what to do. n8n shows only the message of an activation that fails
 * (its publication status), so the advice is in the message. Other errors pass unchanged.
 */
export function explainWebhookRefusal(
	node: INode,
	error: unknown,
	formId: string,
	url?: string,
): unknown {
	const status = statusOf(error);
	const description = error instanceof NodeApiError ? (error.description ?? '') : '';
	const quoted = /Forms\.wtf said: "(.*)"\.$/.exec(description)?.[1];
	const because = quoted === undefined ? '' : ` ("${quoted}")`;
	let message: string | undefined;
	if (status === 404 || status === 405) {
		message = `No webhooks API here (${status}, form "${formId}"). Check the Base URL${MANUAL_WAY_OUT}`;
	} else if (status === 403) {
		message = `Webhooks need the Team plan (form "${formId}"). Upgrade, use the Forms.wtf Trigger${MANUAL_WAY_OUT}`;
	} else if (status === 400) {
		message = `Forms.wtf will not call ${url ?? 'this URL'}${because}: only public https URLs. Set n8n's WEBHOOK_URL${MANUAL_WAY_OUT}`;
	}
	if (message === undefined) return error;
	return new NodeOperationError(node, message, { description: description || undefined });
}
