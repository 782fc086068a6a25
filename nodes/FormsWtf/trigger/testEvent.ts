/** "Fetch Test Event": the newest response, found cheaply, without touching the stored state. */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError } from '../shared/transport/errors';
import type { FormsWtfClient } from '../shared/transport';
import { getResponsesPage, MAX_PAGE_SIZE } from '../shared/transport/paging';
import type { PageRequest } from '../shared/transport/paging';
import type { FormResponse } from '../shared/transport/types';
import { compareOldestFirst, submittedAtMs } from './cursor';
import type { WatchedForm } from './listing';
import { listWatchedForms } from './listing';
import type { Candidate } from './newResponses';
import { toItem, withForm } from './newResponses';
import type { TriggerSettings } from './settings';
import { DAY_MS, HOUR_MS } from './time';

/**
 * Fetch Test Event with All Forms asks this many forms, those the listing shows changed last:
 * a sample, found in a handful of requests however many forms the account has.
 */
const SAMPLED_FORMS = 3;

/** Growing windows of recent time in which "Fetch Test Event" looks for the newest response. */
const SAMPLE_WINDOWS_MS = [HOUR_MS / 12, HOUR_MS, DAY_MS, 7 * DAY_MS, 31 * DAY_MS, 366 * DAY_MS];

/**
 * "Fetch Test Event": the newest response, without touching the trigger's state. One page of
 * each form holds all of a small form; for a form with more, growing windows of recent time
 * find its newest (the API's order is not guaranteed). With All Forms only the forms the
 * listing shows changed last are asked, so the cost does not grow with the number of forms.
 */
export async function sampleNewest(
	context: IPollFunctions,
	settings: TriggerSettings,
	client: FormsWtfClient,
): Promise<INodeExecutionData[][]> {
	const listing = await listWatchedForms(settings, client);
	let serviceNowMs = listing.serviceNowMs;
	let best: Candidate | undefined;
	const consider = (responses: FormResponse[], form: WatchedForm) => {
		for (const response of responses) {
			const candidate = withForm(
				{ id: response.id, atMs: submittedAtMs(response) ?? 0, response },
				form,
				settings,
			);
			if (!best || compareOldestFirst(candidate, best) > 0) best = candidate;
		}
	};
	const larger: WatchedForm[] = [];
	let failure: unknown;
	// One form of several that cannot be read does not keep the others from showing one.
	const readPage = async (request: PageRequest) =>
		await getResponsesPage(client, request).then(
			(answer) => answer,
			(error: unknown) => {
				failure ??= error ?? new Error('The read failed');
				return undefined;
			},
		);
	for (const form of formsToSample(listing.forms)) {
		const page = await readPage({ formId: form.id, limit: MAX_PAGE_SIZE, offset: 0 });
		if (!page) {
			if (settings.watch === 'form') break;
			continue;
		}
		serviceNowMs ??= page.serviceTimeMs;
		consider(page.responses, form);
		if (page.hasMore) larger.push(form);
	}
	for (const windowMs of SAMPLE_WINDOWS_MS) {
		if (!larger.length || serviceNowMs === undefined) break;
		const sinceMs = serviceNowMs - windowMs;
		for (const form of larger) {
			const since = new Date(sinceMs).toISOString();
			const page = await readPage({ formId: form.id, since, limit: MAX_PAGE_SIZE, offset: 0 });
			if (page) consider(page.responses, form);
		}
		// Anything newer than what was found lies in this window, and was read.
		if (best && best.atMs >= sinceMs) break;
	}
	if (!best && failure !== undefined) throw asNodeError(context.getNode(), failure);
	if (!best) {
		throw new NodeOperationError(
			context.getNode(),
			{
				form: 'This form has no responses yet',
				selectedForms: 'None of the selected forms has any responses yet',
				allForms: 'None of your forms has any responses yet',
			}[settings.watch],
			{ description: 'Submit a response to the form, then click "Fetch Test Event" again.' },
		);
	}
	return [[toItem(best, settings)]];
}

/** Several forms: those with responses that the listing shows changed last (see SAMPLED_FORMS). */
function formsToSample(forms: WatchedForm[]): WatchedForm[] {
	const changedMs = (form: WatchedForm) => (form.updatedAt ? Date.parse(form.updatedAt) || 0 : 0);
	return forms
		.filter((form) => form.responseCount !== 0)
		.sort((a, b) => changedMs(b) - changedMs(a) || (b.responseCount ?? 0) - (a.responseCount ?? 0))
		.slice(0, SAMPLED_FORMS);
}
