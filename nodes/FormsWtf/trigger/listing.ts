/**
 * Which forms a poll watches: one form; or the list of forms (one request), which also says which
 * forms changed, filtered to the selected ones with Selected Forms.
 */
import type { IDataObject } from 'n8n-workflow';

import type { FormsWtfClient } from '../shared/transport';
import { errorForMalformedBody } from '../shared/transport/errors';
import { listForms } from '../shared/transport/forms';
import type { TriggerSettings } from './settings';

/** A watched form; with several forms, also what the listing says about it. */
export interface WatchedForm {
	id: string;
	title?: string;
	responseCount?: number;
	updatedAt?: string;
	/** Selected Forms: a selected form the listing lacks. It is read all the same. */
	unlisted?: boolean;
}

export async function listWatchedForms(
	settings: TriggerSettings,
	client: FormsWtfClient,
	deadlineMs?: number,
): Promise<WatchedForm[]> {
	if (settings.watch === 'form') return [{ id: settings.formId as string }];
	const forms = watchedForms((await listForms(client, { deadlineMs })).forms);
	// A listing we cannot read fails the poll: taken as "no forms", it would look like every form went away.
	if (!forms)
		throw errorForMalformedBody(
			client.context.getNode(),
			'the list of forms, { "forms": [ … ] }',
			{},
		);
	if (settings.watch === 'allForms') return forms;
	// Selected Forms: the listing tells which of them changed. One it lacks is read directly,
	// since a listing may leave out a form that is still there.
	const listed = new Map(forms.map((form) => [form.id, form]));
	return (settings.formIds ?? []).map((id) => listed.get(id) ?? { id, unlisted: true });
}

/** The forms of a listing the trigger can watch, or undefined when not one of them has an id. */
function watchedForms(list: IDataObject[]): WatchedForm[] | undefined {
	const forms: WatchedForm[] = [];
	for (const { id, title, responseCount, updatedAt } of list) {
		// One entry the trigger cannot name is left out; it must not hold up the other forms.
		const formId = typeof id === 'number' && Number.isFinite(id) ? String(id) : id;
		if (typeof formId !== 'string' || formId === '') continue;
		forms.push({
			id: formId,
			title: typeof title === 'string' ? title : undefined,
			responseCount: typeof responseCount === 'number' ? responseCount : undefined,
			updatedAt: typeof updatedAt === 'string' ? updatedAt : undefined,
		});
	}
	// Not one form with an id: this is no list of forms, and taking it as one would look like
	// every form went away.
	if (list.length && !forms.length) return undefined;
	return forms;
}
