/**
 * Registration: Automatic. n8n calls `checkExists` on activation (and, on 1.x, at each start),
 * `create` when it answers false, and `delete` on deactivation, on deleting or changing the
 * workflow, and when "Listen for test event" ends (then with the Test URL). What was registered
 * lives in the node's static data, one entry per form and URL: the webhook's id at Forms.wtf
 * and the secret it signs with, which the node made and nobody is shown.
 *
 * Rules: never two of ours on a form (an entry whose webhook still exists is kept, not made
 * again), never a webhook that is not in our entries deleted (someone else's), and what a
 * failed activation made is removed before the error is thrown (n8n retries activations).
 */
import { randomBytes } from 'crypto';
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { FormsWtfClient, type TransportSettings } from '../shared/transport';
import { asNodeError } from '../shared/transport/errors';
import {
	createWebhook,
	deleteWebhook,
	explainWebhookRefusal,
	listWebhooks,
} from '../shared/transport/webhooks';
import { parseFormIds } from '../shared/helpers/parameters';

/** 32 random bytes, as hex: HMAC-SHA256 gains nothing from a longer key. */
const SECRET_BYTES = 32;

export type Registration = 'automatic' | 'manual';

/** One webhook this node made at Forms.wtf. */
export interface Registered extends IDataObject {
	formId: string;
	/** The URL it calls: n8n's Production or Test URL of this node. */
	url: string;
	webhookId: string;
	secret: string;
}

interface RegistrationData extends IDataObject {
	registered?: Registered[];
}

/** Version 1 workflows were set up by hand; from version 2 the node registers itself. */
export function registrationOf(context: IHookFunctions | IWebhookFunctions): Registration {
	const fallback = context.getNode().typeVersion >= 2 ? 'automatic' : 'manual';
	return context.getNodeParameter('registration', fallback) === 'automatic'
		? 'automatic'
		: 'manual';
}

function dataOf(context: IHookFunctions | IWebhookFunctions): RegistrationData {
	return context.getWorkflowStaticData('node') as RegistrationData;
}

/** What this node registered (at any URL): the webhook trigger verifies deliveries with their secrets. */
export function registeredWebhooks(context: IHookFunctions | IWebhookFunctions): Registered[] {
	const registered = dataOf(context).registered;
	return Array.isArray(registered) ? registered : [];
}

function saveRegistered(context: IHookFunctions, registered: Registered[]): void {
	const data = dataOf(context);
	if (registered.length > 0) data.registered = registered;
	else delete data.registered;
}

/** The forms Registration: Automatic watches, without repeats. */
export function watchedForms(context: IHookFunctions | IWebhookFunctions): string[] {
	return [...new Set(parseFormIds(context.getNodeParameter('forms', [])))];
}

/** This node's URL in the mode at hand: n8n's Production URL, or its Test URL while listening. */
function urlOf(context: IHookFunctions): string {
	// Never undefined for this node: its webhook's path is fixed.
	return context.getNodeWebhookUrl('default') as string;
}

/** Whether each watched form has our webhook at this URL, and we hold nothing else at it. */
export async function registrationExists(
	this: IHookFunctions,
	transport: TransportSettings = {},
): Promise<boolean> {
	const url = urlOf(this);
	const ours = registeredWebhooks(this).filter((entry) => entry.url === url);
	const wanted = registrationOf(this) === 'automatic' ? watchedForms(this) : [];
	if (ours.length !== wanted.length) return false;
	if (!wanted.every((formId) => ours.some((entry) => entry.formId === formId))) return false;
	const client = new FormsWtfClient(this, transport);
	for (const entry of ours) {
		const webhooks = await listOrExplain(this, client, entry.formId);
		// Someone may have deleted it in Forms.wtf: then create() makes it again.
		if (!webhooks.some((hook) => hook.id === entry.webhookId && hook.url === url)) return false;
	}
	return true;
}

async function listOrExplain(context: IHookFunctions, client: FormsWtfClient, formId: string) {
	try {
		return await listWebhooks(client, formId);
	} catch (error) {
		throw explainWebhookRefusal(context.getNode(), error, formId);
	}
}

/**
 * Makes what registrationExists found missing: a webhook at this URL for each watched form that
 * has none of ours, and removes ours at this URL for forms no longer watched.
 */
export async function createRegistration(
	this: IHookFunctions,
	transport: TransportSettings = {},
): Promise<boolean> {
	// Manual: only what an earlier Automatic left at this URL is removed, as far as it can be.
	if (registrationOf(this) === 'manual') {
		await deleteRegistration.call(this, transport);
		return true;
	}
	const url = urlOf(this);
	const client = new FormsWtfClient(this, transport);
	const wanted = watchedForms(this);
	if (wanted.length === 0)
		throw new NodeOperationError(this.getNode(), 'No form chosen', {
			description:
				'Pick at least one form in Form Names or IDs: the trigger adds its webhook to each.',
		});
	const kept: Registered[] = [];
	const made: Registered[] = [];
	const others = registeredWebhooks(this).filter((entry) => entry.url !== url);
	try {
		for (const entry of registeredWebhooks(this).filter((candidate) => candidate.url === url)) {
			const live = wanted.includes(entry.formId)
				? (await listOrExplain(this, client, entry.formId)).some(
						(hook) => hook.id === entry.webhookId && hook.url === url,
					)
				: false;
			if (live) kept.push(entry);
			else await deleteWebhook(client, entry.formId, entry.webhookId);
		}
		for (const formId of wanted.filter((id) => !kept.some((entry) => entry.formId === id))) {
			const secret = randomBytes(SECRET_BYTES).toString('hex');
			const webhook = await createWebhook(client, formId, { url, secret, enabled: true }).catch(
				(error: unknown) => {
					throw explainWebhookRefusal(this.getNode(), error, formId, url);
				},
			);
			made.push({ formId, url, webhookId: webhook.id, secret });
		}
	} catch (error) {
		// n8n retries a failed activation: what this one made must not stay behind as a second webhook.
		for (const entry of made)
			await deleteWebhook(client, entry.formId, entry.webhookId).catch(() => undefined);
		saveRegistered(this, [...others, ...kept]);
		throw asNodeError(this.getNode(), error);
	}
	saveRegistered(this, [...others, ...kept, ...made]);
	return true;
}

/** Removes our webhooks at this URL (only those: never one we did not make), and forgets them. */
export async function deleteRegistration(
	this: IHookFunctions,
	transport: TransportSettings = {},
): Promise<boolean> {
	const url = urlOf(this);
	const ours = registeredWebhooks(this).filter((entry) => entry.url === url);
	if (ours.length === 0) return true;
	const client = new FormsWtfClient(this, transport);
	const left: Registered[] = [];
	for (const entry of ours) {
		try {
			await deleteWebhook(client, entry.formId, entry.webhookId);
		} catch {
			// Kept, so that a later deactivation can try again; n8n only logs a failed delete.
			left.push(entry);
		}
	}
	saveRegistered(this, [...registeredWebhooks(this).filter((e) => e.url !== url), ...left]);
	return left.length === 0;
}
