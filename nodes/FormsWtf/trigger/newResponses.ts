/**
 * A later poll: every form it reads, from its cursor on; versions not handled yet are emitted,
 * oldest first; a form that fails never holds up the others.
 */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { formatResponse } from '../shared/helpers/output';
import { isTransientError } from '../shared/transport/errors';
import type { FormResponse } from '../shared/transport/types';
import type { HandledVersion, ReadOfForm } from './cursor';
import {
	advanceCursor,
	compareOldestFirst,
	isNewUndated,
	isNewVersion,
	rememberHandled,
	submittedAtMs,
} from './cursor';
import type { FormCursor, ResumePoint, TriggerState } from './state';
import { fromDate, startedAt } from './state';
import type { PollAllowance } from './allowance';
import { readExisting } from './existing';
import { formsToRead, keepUnlistedForms, listedAs, triedAt } from './formsToRead';
import type { Listing, WatchedForm } from './listing';
import { warn } from './log';
import type { TriggerSettings } from './settings';
import { watchesSeveral } from './settings';

export interface Candidate extends HandledVersion {
	response: FormResponse;
}

/** Responses without a usable date come after the dated ones of a poll. */
const UNDATED_ORDER = Number.MAX_SAFE_INTEGER;

/**
 * Several forms: polls in a row a form may fail before it is reported as an error of the
 * workflow (see reportFailingForm in poll.ts); FORM_FAILURES_REPORTED_AGAIN: how many more
 * failed polls before it is reported again.
 */
const FORM_FAILURES_REPORTED = 5;

/**
 * Selected Forms: a selected form that the listing lacks and the API does not find is gone for
 * good; it is reported on the first poll that finds it so.
 */
const GONE_FORM_FAILURES_REPORTED = 1;

/** Several forms: reads of different forms that may fail one after the other before a poll stops reading. */
const MAX_FAILED_READS_IN_A_ROW = 3;

const FORM_FAILURES_REPORTED_AGAIN = 60;

/** A form whose failures are due to be reported as an error of the workflow. */
interface FormFailure {
	formId: string;
	error: Error;
}

/** A later poll: everything after each form's cursor that was not handled yet, oldest first. */
export async function pollOnce(
	context: IPollFunctions,
	settings: TriggerSettings,
	state: TriggerState,
	listing: Listing,
	allowance: PollAllowance,
): Promise<{ items: INodeExecutionData[]; next: TriggerState; failingForm?: FormFailure }> {
	const next: TriggerState = { ...state, rev: state.rev + 1, forms: { ...state.forms } };
	if (next.backfill) {
		await readExisting(settings, next, listing, allowance);
		if (next.backfill) return { items: [], next };
	}
	if (settings.watch === 'allForms') keepUnlistedForms(next, listing);

	const fresh: Candidate[] = [];
	let failingForm: FormFailure | undefined;
	let failedInARow = 0;
	for (const form of formsToRead(next, listing, settings)) {
		// Forms failing one after the other (the service is struggling): the rest wait for the
		// next poll rather than add to the load.
		if (!allowance.mayRead() || failedInARow >= MAX_FAILED_READS_IN_A_ROW) break;
		// A form that appeared after activation: all of its responses are new (or since the date asked for).
		const cursor =
			next.forms[form.id] ??
			(state.emitSinceMs === undefined
				? startedAt(state.activatedAtMs, settings.lookBackMs)
				: fromDate(state.emitSinceMs));
		const handled: HandledVersion[] = [];
		const undated: string[] = [];
		const sinceMs = Date.parse(cursor.since);
		const read = await allowance.readForm(
			{ formId: form.id, since: cursor.since },
			cursor.resume,
			(page) => {
				for (const response of page) {
					const atMs = submittedAtMs(response);
					// Before the bound: a server that compares `since` coarsely (or not at all) returns
					// responses the window has let go of, and that may have been emitted long ago.
					if (atMs !== undefined && atMs < sinceMs) continue;
					if (atMs === undefined) {
						undated.push(response.id);
						if (isNewUndated(cursor, response.id)) {
							fresh.push(
								withForm({ id: response.id, atMs: UNDATED_ORDER, response }, form, settings),
							);
							allowance.onItem();
						}
						continue;
					}
					handled.push({ id: response.id, atMs });
					if (isNewVersion(cursor, response.id, atMs, settings)) {
						fresh.push(withForm({ id: response.id, atMs, response }, form, settings));
						allowance.onItem();
					}
				}
			},
		);
		if (read.failure !== undefined && settings.watch === 'form') throw read.failure;
		const failure = read.failure;
		const readOfForm: ReadOfForm = {
			handled,
			undated,
			fromStart: read.fromStart,
			startedAtMs: read.startedAtMs,
		};
		const goOn = (resume: ResumePoint): ResumePoint =>
			read.startedAtMs === undefined ? resume : { ...resume, startedAtMs: read.startedAtMs };
		if (failure !== undefined) {
			// One form failing never holds up the others: what it read is remembered, and it is
			// read again from where it was on the next poll.
			const failedPolls = (cursor.failedPolls ?? 0) + 1;
			next.forms[form.id] = {
				...rememberHandled(cursor, readOfForm, cursor.resume ?? { offset: 0, anchors: [] }),
				...triedAt(next.rev, settings),
				failedPolls,
			};
			if (!cursor.resume) delete next.forms[form.id].resume;
			const error = errorForFailingForm(context, settings, form, failure, failedPolls);
			warn(context, `${error.message} (${failedPolls} polls in a row); the other forms go on.`);
			const reportedAt = cursor.failureReportedAt;
			const gone = form.unlisted && httpCodeOf(failure) === '404';
			const due =
				failedPolls >= (gone ? GONE_FORM_FAILURES_REPORTED : FORM_FAILURES_REPORTED) &&
				(reportedAt === undefined || failedPolls - reportedAt >= FORM_FAILURES_REPORTED_AGAIN);
			if (due) failingForm ??= { formId: form.id, error };
			// A denied or missing form costs one request; a struggling service costs retries.
			if (isTransientError(failure)) failedInARow++;
			continue;
		}
		failedInARow = 0;
		let updated: FormCursor;
		if (read.cut) {
			updated = {
				...rememberHandled(cursor, readOfForm, goOn({ offset: read.end, anchors: read.anchors })),
				...triedAt(next.rev, settings),
			};
		} else if (!read.proven) {
			// Responses before where the read went on were deleted or moved: read again from the start.
			updated = {
				...rememberHandled(cursor, readOfForm, goOn({ offset: 0, anchors: [] })),
				...triedAt(next.rev, settings),
			};
		} else {
			updated = {
				...advanceCursor(cursor, readOfForm, settings),
				...listedAs(form, next.rev, settings),
			};
		}
		delete updated.failedPolls;
		delete updated.failureReportedAt;
		next.forms[form.id] = updated;
	}
	fresh.sort(compareOldestFirst);
	return { items: fresh.map((candidate) => toItem(candidate, settings)), next, failingForm };
}

/** Words for a form of several that cannot be read, naming it. */
function errorForFailingForm(
	context: IPollFunctions,
	settings: TriggerSettings,
	form: WatchedForm,
	failure: unknown,
	failedPolls: number,
): NodeOperationError {
	const name = form.title ? `"${form.title}" (${form.id})` : `"${form.id}"`;
	const status = httpCodeOf(failure);
	const cause = failure instanceof Error ? failure.message : String(failure);
	let message: string;
	let description: string;
	if (status === '404' && settings.watch === 'selectedForms') {
		message = `Selected form ${name} could not be found`;
		description = form.unlisted
			? 'It is not in the list of your forms either: it may have been deleted, or the ID may be wrong. Remove it from "Form Names or IDs" (or fix its ID). The trigger goes on with the other selected forms.'
			: 'It may have been deleted since the list of forms was read. The trigger goes on with the other selected forms and tries this one again on every poll.';
	} else if (status === '404') {
		message = `Form ${name} could not be found`;
		description =
			'It may have been deleted since the list of forms was read. The trigger goes on with the other forms and stops trying this one once it is no longer listed.';
	} else if (status === '403') {
		message = `Access to form ${name} was denied`;
		description =
			"The API key's account may no longer be a member of the team that owns the form. The trigger goes on with the other forms and tries this one again on every poll.";
	} else {
		message = `Form ${name} could not be read: ${cause}`;
		description =
			'The trigger goes on with the other forms and tries this one again on every poll.';
	}
	return new NodeOperationError(context.getNode(), message, {
		description: `${description} It has failed on ${failedPolls} polls in a row; its responses are not lost, they are emitted once it can be read again.`,
	});
}

function httpCodeOf(failure: unknown): unknown {
	return failure && typeof failure === 'object'
		? (failure as { httpCode?: unknown }).httpCode
		: undefined;
}

export function withForm(
	candidate: Candidate,
	form: WatchedForm,
	settings: TriggerSettings,
): Candidate {
	if (!watchesSeveral(settings)) return candidate;
	return {
		...candidate,
		response: { ...candidate.response, formId: form.id, formTitle: form.title ?? null },
	};
}

export function toItem(candidate: Candidate, settings: TriggerSettings): INodeExecutionData {
	return { json: formatResponse(candidate.response, settings.outputMode) };
}
