/**
 * The trigger's parameters, read and checked once per poll: what is watched, what counts as new,
 * and what the activation emits. Version 1 keeps Existing Responses to Emit and Updated Responses
 * in its options; version 2 has Trigger On and On Activation, Emit.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getOutputMode } from '../shared/helpers/output';
import type { OutputMode } from '../shared/helpers/output';
import { getFormId, parseFormIds, toApiTimestamp } from '../shared/helpers/parameters';
import { isSinglePathSegment } from '../shared/transport';

type Watch = 'form' | 'selectedForms' | 'allForms';

/** The most newest existing responses: one poll reads them (40 pages of 100 hold them). */
export const MAX_NEWEST = 2000;

/** What the first poll after activation emits besides the responses that arrive later. */
type OnActivation =
	| { emit: 'newOnly' }
	/** The newest `count` responses that exist at activation. */
	| { emit: 'newest'; count: number }
	/** Every response submitted at or after `sinceMs`. */
	| { emit: 'since'; sinceMs: number };

export interface TriggerSettings {
	/** How far behind the newest response each read looks again. */
	lookBackMs: number;
	updatedResponses: 'emit' | 'ignore';
	watch: Watch;
	formId?: string;
	/** Selected Forms: the forms picked, without repeats. */
	formIds?: string[];
	outputMode: OutputMode;
	onActivation: OnActivation;
}

/** What is watched: a stored state of another scope is not this trigger's, and it starts afresh. */
export function scopeOf(settings: TriggerSettings): string {
	if (settings.watch === 'form') return `form:${settings.formId}`;
	return settings.watch === 'selectedForms' ? 'selected' : 'all';
}

export function readSettings(context: IPollFunctions): TriggerSettings {
	const node = context.getNode();
	const watchParameter = context.getNodeParameter('watch', 'form');
	const watch: Watch =
		watchParameter === 'allForms' || watchParameter === 'selectedForms' ? watchParameter : 'form';
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const lookBackMinutes = Number(options.lookBackMinutes ?? 10);
	if (!Number.isFinite(lookBackMinutes) || lookBackMinutes < 0) {
		throw new NodeOperationError(node, '"Look-Back Window" must be 0 minutes or more');
	}
	let updatedResponses: TriggerSettings['updatedResponses'];
	let onActivation: OnActivation;
	if (node.typeVersion >= 2) {
		updatedResponses =
			context.getNodeParameter('event', 'newOrUpdatedResponse') === 'newResponse'
				? 'ignore'
				: 'emit';
		onActivation = readOnActivation(context);
	} else {
		// Version 1 keeps both in its options.
		updatedResponses = options.updatedResponses === 'ignore' ? 'ignore' : 'emit';
		const backfill = Number(options.backfill ?? 0);
		if (!Number.isInteger(backfill) || backfill < 0) {
			throw new NodeOperationError(
				node,
				'"Existing Responses to Emit" must be a whole number, 0 or more',
			);
		}
		// Version 1 took any number: more than one poll reads is read as many as it does.
		const count = Math.min(backfill, MAX_NEWEST);
		onActivation = backfill > 0 ? { emit: 'newest', count } : { emit: 'newOnly' };
	}
	return {
		watch,
		formId: watch === 'form' ? getFormId.call(context) : undefined,
		formIds: watch === 'selectedForms' ? getSelectedFormIds(context) : undefined,
		outputMode: getOutputMode.call(context),
		lookBackMs: lookBackMinutes * 60_000,
		updatedResponses,
		onActivation,
	};
}

function readOnActivation(context: IPollFunctions): OnActivation {
	const node = context.getNode();
	const choice = context.getNodeParameter('onActivation', 'newOnly');
	if (choice === 'newest') {
		const count = Number(context.getNodeParameter('existingCount', 10));
		if (!Number.isInteger(count) || count < 1 || count > MAX_NEWEST) {
			throw new NodeOperationError(
				node,
				`"Number of Existing Responses" must be a whole number from 1 to ${MAX_NEWEST}`,
				{ description: 'For more, choose "Every Response Since a Date" in "On Activation, Emit".' },
			);
		}
		return { emit: 'newest', count };
	}
	if (choice === 'since') {
		const value: unknown = context.getNodeParameter('submittedSince', '');
		if (value === '' || value === null || value === undefined) {
			throw new NodeOperationError(node, 'No date in "Submitted Since"', {
				description:
					'Pick the date from which existing responses are emitted, or choose another "On Activation, Emit".',
			});
		}
		return {
			emit: 'since',
			sinceMs: Date.parse(toApiTimestamp.call(context, value, 'Submitted Since')),
		};
	}
	return { emit: 'newOnly' };
}

/** Selected Forms: the forms picked, from the list or by an expression (a list of IDs, or IDs in a text). */
function getSelectedFormIds(context: IPollFunctions): string[] {
	const node = context.getNode();
	const formIds = [...new Set(parseFormIds(context.getNodeParameter('formIds', [])))];
	const notAnId = formIds.find((formId) => !isSinglePathSegment(formId));
	if (notAnId !== undefined) {
		throw new NodeOperationError(node, `"${notAnId}" is not a form ID`, {
			description:
				'"." and ".." cannot be form IDs. Pick the forms from the list, or copy their IDs again.',
		});
	}
	if (!formIds.length) {
		throw new NodeOperationError(node, 'No forms selected', {
			description: 'Pick the forms to watch in "Form Names or IDs", or choose "All Forms".',
		});
	}
	return formIds;
}
