/**
 * What the webhook trigger does with one request: it answers at once, and starts the workflow
 * only for a delivery it trusts and wants. Refusals are answered through the response object
 * with `noWebhookResponse`, as n8n's GitHub and Stripe triggers do: n8n then starts no
 * execution (throwing would answer 500 and save a failed execution for each bad request).
 *
 * Order of checks, cheapest first: size (413), signature (401), payload (400), form filter
 * (200, nothing started). Forms.wtf does not retry, so a refusal is final for that delivery.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { formatResponse, type OutputMode } from '../shared/helpers/output';
import type { FormResponse } from '../shared/transport/types';
import { parseFormIds } from '../shared/helpers/parameters';
import { parseDelivery, responseWithForm } from './payload';
import { registeredWebhooks, registrationOf, watchedForms } from './registration';
import { checkSignature } from './signature';

export { parseFormIds };

export const WEBHOOK_CREDENTIAL = 'formsWtfWebhookApi';

/**
 * A Forms.wtf delivery is a few kilobytes; n8n itself accepts bodies up to 16 MB. Anything
 * above this is refused before its signature is computed.
 */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface WebhookSettings {
	/** Automatic: the node made the webhooks, and verifies with the secrets it gave them. */
	automatic: boolean;
	verify: boolean;
	outputMode: OutputMode;
	/** Empty: every form. */
	formIds: string[];
}

export function readSettings(context: IWebhookFunctions): WebhookSettings {
	const outputMode =
		context.getNodeParameter('output', 'simplified') === 'raw' ? 'raw' : 'simplified';
	if (registrationOf(context) === 'automatic')
		return { automatic: true, verify: true, outputMode, formIds: watchedForms(context) };
	const options = context.getNodeParameter('options', {}) as IDataObject;
	return {
		automatic: false,
		verify: context.getNodeParameter('authentication', 'signingSecret') !== 'none',
		outputMode,
		formIds: parseFormIds(options.formIds),
	};
}

function answerOnly(
	context: IWebhookFunctions,
	status: number,
	body: IDataObject,
): IWebhookResponseData {
	context.getResponseObject().status(status).json(body);
	return { noWebhookResponse: true };
}

const UNREADABLE_BODY =
	'The body could not be read (a multipart/form-data body is read by n8n as a form). Forms.wtf sends JSON: Content-Type application/json.';

async function rawBodyOf(context: IWebhookFunctions): Promise<Buffer | { error: string }> {
	const request = context.getRequestObject();
	// n8n reads the body itself only for some content types and node versions; otherwise it is
	// still unread. The signature covers these bytes: never a re-serialised req.body.
	if (!Buffer.isBuffer(request.rawBody)) {
		try {
			await request.readRawBody();
		} catch {
			// n8n has consumed a multipart body with its form parser, or the sender aborted:
			// readRawBody rejects. Thrown on, it would be a 500 and a failed execution per request.
			return { error: UNREADABLE_BODY };
		}
	}
	return Buffer.isBuffer(request.rawBody) ? request.rawBody : Buffer.alloc(0);
}

/** What a refused signature is told: [Registration: Manual, Registration: Automatic]. */
const SIGNATURE_ERRORS: Record<'missing' | 'mismatch', [string, string]> = {
	missing: [
		'No signature: the request has neither an X-Webhook-Signature nor an X-Forms-Signature header. Give the webhook in Forms.wtf the secret of this node’s credential.',
		'No signature: the request has neither an X-Webhook-Signature nor an X-Forms-Signature header. Only the webhooks this trigger added in Forms.wtf are accepted.',
	],
	mismatch: [
		'The signature does not match: the webhook’s secret in Forms.wtf differs from this node’s credential, or the body was changed on the way.',
		'The signature does not match any webhook this trigger added in Forms.wtf. Deactivate and activate the workflow to add it again.',
	],
};

async function secretOf(context: IWebhookFunctions): Promise<string> {
	// getCredentials throws when the node has none set: answered as a missing secret below.
	if (context.getNode().credentials?.[WEBHOOK_CREDENTIAL] === undefined) return '';
	const credential = await context.getCredentials<{ secret?: unknown }>(WEBHOOK_CREDENTIAL);
	return typeof credential.secret === 'string' ? credential.secret : '';
}

/**
 * A delivery to a webhook the node made is signed with one of the secrets it gave them (a form
 * each, and the Test URL's while listening); the first that matches is the one.
 */
function checkRegisteredSignature(
	context: IWebhookFunctions,
	rawBody: Buffer,
): ReturnType<typeof checkSignature> {
	const secrets = registeredWebhooks(context).map((entry) => entry.secret);
	if (secrets.length === 0) return checkSignature(rawBody, context.getHeaderData(), '');
	for (const secret of secrets) {
		const check = checkSignature(rawBody, context.getHeaderData(), secret);
		if (check !== 'mismatch') return check;
	}
	return 'mismatch';
}

export async function receiveDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const settings = readSettings(context);
	const rawBody = await rawBodyOf(context);
	if (!Buffer.isBuffer(rawBody)) return answerOnly(context, 400, rawBody);
	if (rawBody.length === 0)
		return answerOnly(context, 400, {
			error: 'The body is empty. Expected a Forms.wtf webhook delivery.',
		});
	if (rawBody.length > MAX_BODY_BYTES)
		return answerOnly(context, 413, {
			error: `The body is ${rawBody.length} bytes; a Forms.wtf delivery is at most ${MAX_BODY_BYTES}.`,
		});

	if (settings.verify) {
		const check = settings.automatic
			? checkRegisteredSignature(context, rawBody)
			: checkSignature(rawBody, context.getHeaderData(), await secretOf(context));
		if (check !== 'valid')
			return answerOnly(context, 401, {
				error: SIGNATURE_ERRORS[check][settings.automatic ? 1 : 0],
			});
	}

	const parsed = parseDelivery(rawBody);
	if ('error' in parsed) return answerOnly(context, 400, { error: parsed.error });
	const { delivery } = parsed;
	if (settings.formIds.length > 0 && !settings.formIds.includes(delivery.formId))
		return answerOnly(context, 200, {
			ignored: `Form ${delivery.formId} is not one of this trigger's forms; the workflow was not started.`,
		});

	// A delivery may lack fields of the API's Response (the reference payload has no id or
	// durationSeconds); output.ts shapes whatever fields are there.
	const json = formatResponse(responseWithForm(delivery) as FormResponse, settings.outputMode);
	return { workflowData: [[{ json }]] };
}
