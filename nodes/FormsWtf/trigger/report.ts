/** What the trigger tells the user: warnings in n8n's log, and the error naming a form that cannot move. */
import type { IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isDeadlineError } from '../shared/transport/errors';
import { statusOf } from '../shared/transport/webhooks';
import type { WatchedForm } from './listing';
import type { TriggerSettings } from './settings';

/** Polls in a row without progress before a form is named by an error; each one before is a warning. */
export const POLLS_BEFORE_ERROR = 5;

export function warn(context: IPollFunctions, message: string): void {
	context.logger.warn(`Forms.wtf Trigger: ${message}`, {
		workflowId: context.getWorkflow().id,
		node: context.getNode().name,
	});
}

/**
 * Whether a run of `polls` without progress, `sinceNamed` of them since its last error (or its
 * start), calls for one: every 5th while it lasts (a response that arrives meanwhile is not
 * left unsaid, and a cause that changes is named again), and a selected form the service does
 * not have at once.
 */
export function isErrorDue(
	polls: number,
	sinceNamed: number,
	form: WatchedForm,
	cause: unknown,
): boolean {
	const gone = form.unlisted === true && statusOf(cause) === 404;
	return sinceNamed >= POLLS_BEFORE_ERROR || (gone && polls === 1);
}

/** Words for a form that made no progress, naming it and the cause, and what to do. */
export function errorForStuckForm(
	context: IPollFunctions,
	settings: TriggerSettings,
	form: WatchedForm,
	cause: unknown,
	polls: number,
): NodeOperationError {
	const name = form.title ? `"${form.title}" (${form.id})` : `"${form.id}"`;
	const status = statusOf(cause);
	const others = settings.watch === 'form' ? '' : ' The trigger goes on with the other forms.';
	let message: string;
	let description: string;
	if (cause === undefined || isDeadlineError(cause)) {
		const why = cause instanceof Error ? cause.message : 'the poll ran out of time';
		message = `Form ${name} made no progress: ${why}`;
		description = `No page of its responses could be read within the time n8n gives a poll: the service asked to wait longer (a rate limit: the API key's 60 requests per minute may be used by other workflows), or answered too slowly.${others}`;
	} else if (status === 404) {
		message = `${settings.watch === 'selectedForms' ? 'Selected form' : 'Form'} ${name} could not be found`;
		description = form.unlisted
			? 'It is not in the list of your forms either: it may have been deleted, or the ID may be wrong. Remove it from "Form Names or IDs" (or fix its ID).'
			: `It may have been deleted, or the ID may be wrong.${others}`;
	} else if (status === 403) {
		message = `Access to form ${name} was denied`;
		description = `The API key's account may no longer be a member of the team that owns the form, or the plan does not include the API.${others}`;
	} else {
		const text = cause instanceof Error ? cause.message : String(cause);
		message = `Form ${name} could not be read: ${text}`;
		description = `It is tried again on every poll.${others}`;
	}
	return new NodeOperationError(context.getNode(), message, {
		description: `${description} It has made no progress on ${polls} polls in a row; its responses are not lost: they are emitted once it can be read again.`,
	});
}
