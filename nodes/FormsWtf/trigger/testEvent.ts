/** "Fetch Test Event": the newest response, without touching the trigger's state. */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { FormsWtfClient } from '../shared/transport';
import { asNodeError } from '../shared/transport/errors';
import { listWatchedForms } from './listing';
import { readNewest } from './newest';
import { toItem } from './forms';
import { compareVersions, PollBudget } from './read';
import type { TriggerSettings } from './settings';

/** With several forms, the ones the list shows changed last are asked: a few requests, however many forms. */
const SAMPLED_FORMS = 3;

const SAMPLE_BUDGET_MS = 60_000;

export async function sampleNewest(
	context: IPollFunctions,
	settings: TriggerSettings,
	client: FormsWtfClient,
): Promise<INodeExecutionData[][]> {
	const forms = await listWatchedForms(settings, client);
	const changedMs = (updatedAt?: string) => Date.parse(updatedAt ?? '') || 0;
	const sampled = forms
		.filter((form) => form.responseCount !== 0)
		.sort((a, b) => changedMs(b.updatedAt) - changedMs(a.updatedAt))
		.slice(0, SAMPLED_FORMS);
	const budget = new PollBudget(client, Date.now() + SAMPLE_BUDGET_MS);
	let best: ({ form: (typeof forms)[0] } & Parameters<typeof toItem>[0]) | undefined;
	let failure: unknown;
	for (const form of sampled) {
		// One form of several that cannot be read does not keep the others from showing one.
		const [newest] = (await readNewest(budget, form.id, 1, Infinity).catch((error: unknown) => {
			failure ??= error;
		})) ?? [undefined];
		if (newest && (!best || compareVersions(newest, best) > 0)) best = { ...newest, form };
	}
	if (best) return [[toItem(best, best.form, settings)]];
	if (failure !== undefined) throw asNodeError(context.getNode(), failure);
	const none = {
		form: 'This form has no responses yet',
		selectedForms: 'None of the selected forms has any responses yet',
		allForms: 'None of your forms has any responses yet',
	}[settings.watch];
	throw new NodeOperationError(context.getNode(), none, {
		description: 'Submit a response to the form, then click "Fetch Test Event" again.',
	});
}
