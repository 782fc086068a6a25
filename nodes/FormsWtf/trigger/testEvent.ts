/** "Fetch Test Event": the newest response, found cheaply, without touching the stored state. */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { FormsWtfClient } from '../shared/transport';
import { asNodeError } from '../shared/transport/errors';
import { getResponsesPage, MAX_PAGE_SIZE } from '../shared/transport/paging';
import type { PageRequest } from '../shared/transport/paging';
import type { WatchedForm } from './listing';
import { listWatchedForms } from './listing';
import { toItem } from './poll';
import type { Version } from './read';
import { compareVersions, submittedAtMs } from './read';
import type { TriggerSettings } from './settings';

/** With several forms, this many are asked: those the list of forms shows changed last. */
const SAMPLED_FORMS = 3;

/** Growing windows of recent time in which the newest response of a large form is looked for. */
const HOUR_MS = 3_600_000;
const SAMPLE_WINDOWS_MS = [
	HOUR_MS / 12,
	HOUR_MS,
	24 * HOUR_MS,
	7 * 24 * HOUR_MS,
	366 * 24 * HOUR_MS,
];

/**
 * The newest response, without touching the trigger's state. One page holds all of a small
 * form; for a larger one, growing windows of recent time find its newest (whatever the API's
 * order). With several forms only those the list shows changed last are asked.
 */
export async function sampleNewest(
	context: IPollFunctions,
	settings: TriggerSettings,
	client: FormsWtfClient,
): Promise<INodeExecutionData[][]> {
	const listing = await listWatchedForms(settings, client);
	let serviceNowMs = listing.serviceNowMs;
	let best: { version: Version; form: WatchedForm } | undefined;
	let failure: unknown;
	// One form of several that cannot be read does not keep the others from showing one.
	const read = async (form: WatchedForm, request: Omit<PageRequest, 'formId'>) => {
		const page = await getResponsesPage(client, { formId: form.id, ...request }).catch(
			(error: unknown) => void (failure ??= error ?? new Error('The read failed')),
		);
		for (const response of page?.responses ?? []) {
			const version = { id: response.id, atMs: submittedAtMs(response) ?? 0, response };
			if (!best || compareVersions(version, best.version) > 0) best = { version, form };
		}
		serviceNowMs ??= page?.serviceTimeMs;
		return page;
	};
	const larger: WatchedForm[] = [];
	for (const form of formsToSample(listing.forms)) {
		const page = await read(form, { limit: MAX_PAGE_SIZE, offset: 0 });
		if (page?.hasMore) larger.push(form);
	}
	for (const windowMs of SAMPLE_WINDOWS_MS) {
		if (!larger.length || serviceNowMs === undefined) break;
		const sinceMs = serviceNowMs - windowMs;
		const since = new Date(sinceMs).toISOString();
		for (const form of larger) await read(form, { since, limit: MAX_PAGE_SIZE, offset: 0 });
		// Anything newer than what was found lies in this window, and was read.
		if (best && best.version.atMs >= sinceMs) break;
	}
	if (!best && failure !== undefined) throw asNodeError(context.getNode(), failure);
	if (!best) {
		const none = {
			form: 'This form has no responses yet',
			selectedForms: 'None of the selected forms has any responses yet',
			allForms: 'None of your forms has any responses yet',
		}[settings.watch];
		throw new NodeOperationError(context.getNode(), none, {
			description: 'Submit a response to the form, then click "Fetch Test Event" again.',
		});
	}
	return [[toItem(best.version, best.form, settings)]];
}

/** Several forms: those with responses that the list shows changed last (see SAMPLED_FORMS). */
function formsToSample(forms: WatchedForm[]): WatchedForm[] {
	const changedMs = (form: WatchedForm) => (form.updatedAt ? Date.parse(form.updatedAt) || 0 : 0);
	return forms
		.filter((form) => form.responseCount !== 0)
		.sort((a, b) => changedMs(b) - changedMs(a) || (b.responseCount ?? 0) - (a.responseCount ?? 0))
		.slice(0, SAMPLED_FORMS);
}
