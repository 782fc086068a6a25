import type { IDataObject, IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

import type { FormResponse } from '../transport/types';

export type OutputMode = 'simplified' | 'raw';

/**
 * The simplified shape of a response: its own fields as the API sent them, with `answers` as
 * one object keyed by question label, so that a message can say
 * `{{ $json.answers["What is your name?"] }}`. A label that repeats in a form gets " (2)",
 * " (3)", … so no answer overwrites another; an answer without a label is keyed by question id.
 * Values pass through untouched, whatever their type.
 */
export function simplifyResponse(response: FormResponse): IDataObject {
	const answers: IDataObject = {};
	for (const answer of Array.isArray(response.answers) ? response.answers : []) {
		const base =
			typeof answer.questionLabel === 'string' && answer.questionLabel !== ''
				? answer.questionLabel
				: String(answer.questionId);
		let key = base;
		for (let n = 2; Object.prototype.hasOwnProperty.call(answers, key); n++) key = `${base} (${n})`;
		answers[key] = answer.value === undefined ? null : answer.value;
	}
	return { ...response, answers };
}

export function formatResponse(response: FormResponse, mode: OutputMode): IDataObject {
	return mode === 'raw' ? response : simplifyResponse(response);
}

export function getOutputMode(
	this: IExecuteFunctions | IPollFunctions,
	itemIndex?: number,
): OutputMode {
	const value =
		itemIndex === undefined
			? this.getNodeParameter('output', 'simplified')
			: this.getNodeParameter('output', itemIndex, 'simplified');
	return value === 'raw' ? 'raw' : 'simplified';
}
