/**
 * Several forms: which forms a poll reads (those the list of forms shows changed, the rest in
 * rotation), how forms that leave the list or the selection are let go, and the item a response
 * becomes (naming its form when there are several).
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { formatResponse } from '../shared/helpers/output';
import type { WatchedForm } from './listing';
import type { Version } from './read';
import type { TriggerSettings } from './settings';
import type { TriggerState } from './state';

/**
 * A form the list shows unchanged (same responseCount and updatedAt) is still read once every
 * SWEEP_POLLS polls, at most MAX_SWEEP_READS of them a poll, so that updates and a response
 * added while another was deleted are caught.
 */
export const SWEEP_POLLS = 10;

const MAX_SWEEP_READS = 10;

/** All Forms: a form the list lacks keeps its place this long, so that a glitch of the list emits nothing twice. */
const KEEP_UNLISTED_FORM_MS = 30 * 24 * 3_600_000;

/** What the list said of a form, to tell whether it changed since its last complete read. */
export function listedAs(form: WatchedForm): string | undefined {
	return form.responseCount === undefined ? undefined : `${form.responseCount}/${form.updatedAt}`;
}

/**
 * The forms this poll reads, those read longest ago first, so that a poll that runs out of time
 * never starves a form. Forms whose newest existing responses are read wait for the choice.
 */
export function formsToRead(
	state: TriggerState,
	forms: WatchedForm[],
	settings: TriggerSettings,
): WatchedForm[] {
	if (settings.watch === 'form') return forms;
	const lastRead = (form: WatchedForm) => state.forms[form.id]?.readAtRev ?? -1;
	const waiting = new Set(state.choice?.done);
	const changed: WatchedForm[] = [];
	const unchanged: WatchedForm[] = [];
	for (const form of forms) {
		if (waiting.has(form.id)) continue;
		const cursor = state.forms[form.id];
		const looksUnchanged =
			cursor?.readAtRev !== undefined &&
			!cursor.failedPolls &&
			!state.choice?.pending.includes(form.id) &&
			listedAs(form) !== undefined &&
			cursor.listed === listedAs(form);
		(looksUnchanged ? unchanged : changed).push(form);
	}
	const byLastRead = (a: WatchedForm, b: WatchedForm) =>
		lastRead(a) - lastRead(b) || (a.id < b.id ? -1 : 1);
	const sweep = Math.min(MAX_SWEEP_READS, Math.ceil(forms.length / SWEEP_POLLS));
	const due = unchanged
		.filter((form) => state.rev - lastRead(form) >= SWEEP_POLLS)
		.sort(byLastRead);
	return [...changed, ...due.slice(0, sweep)].sort(byLastRead);
}

/** All Forms: a form missing from the list keeps its cursor for KEEP_UNLISTED_FORM_MS. */
export function keepUnlistedForms(state: TriggerState, listed: Set<string>, nowMs: number): void {
	for (const [formId, cursor] of Object.entries(state.forms)) {
		if (listed.has(formId)) delete cursor.unlistedSinceMs;
		else if (cursor.unlistedSinceMs === undefined) cursor.unlistedSinceMs = nowMs;
		else if (nowMs - cursor.unlistedSinceMs > KEEP_UNLISTED_FORM_MS) delete state.forms[formId];
	}
}

/** An item of the output; with several forms it names its form. */
export function toItem(
	version: Version,
	form: WatchedForm,
	settings: TriggerSettings,
): INodeExecutionData {
	const response =
		settings.watch === 'form'
			? version.response
			: { ...version.response, formId: form.id, formTitle: form.title ?? null };
	return { json: formatResponse(response, settings.outputMode) };
}
