import type { IDataObject, IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

import type { FormResponse } from '../transport/types';

export type OutputMode = 'simplified' | 'raw';

/**
 * The simplified shape of a response: its own fields as the API sent them, with `answers` as
 * one object keyed by question label, so that a message can say
 * `{{ $json.answers["What is your name?"] }}`. A label that repeats in a form gets " (2)",
 * " (3)", … so no answer overwrites another; an answer without a label is keyed by question id,
 * and one without either (or an entry that is not an answer object at all: null, a text) by its
 * place, "answer 3". Values pass through untouched, whatever their type; an entry that is not
 * an object is its own value. `answers` that is not a list is passed through as it came.
 *
 * Safe by construction whatever the labels: the keys are gathered in a Map, and no key is
 * `__proto__`, `constructor` or `prototype` (a label "__proto__" is keyed "__proto__ (2)"), so
 * the object built from them is an ordinary one, every answer an own, enumerable field that
 * n8n's copies keep, and nothing set on a prototype by whoever copies it later.
 */
export function simplifyResponse(response: FormResponse): IDataObject {
	if (!Array.isArray(response.answers)) return { ...response };
	const byKey = new Map<string, unknown>();
	// The next suffix to try per label, so that many answers of one label cost each a step,
	// not a walk over every suffix taken before.
	const nextSuffix = new Map<string, number>();
	response.answers.forEach((entry: unknown, index) => {
		const answer = isRecord(entry) ? entry : undefined;
		const base =
			textOf(answer?.questionLabel) ?? textOf(answer?.questionId) ?? `answer ${index + 1}`;
		let key = base;
		let n = nextSuffix.get(base) ?? 2;
		while (byKey.has(key) || FORBIDDEN_KEYS.has(key)) key = `${base} (${n++})`;
		nextSuffix.set(base, n);
		const value = answer === undefined ? entry : answer.value;
		byKey.set(key, value === undefined ? null : value);
	});
	const answers: IDataObject = {};
	for (const [key, value] of byKey) answers[key] = value as IDataObject[string];
	return { ...response, answers };
}

/**
 * Keys an answer cannot have: assigning `__proto__` sets an object's prototype, and n8n's
 * deepCopy (which copies every item) drops all three (n8n-workflow's reservedCopyKeys).
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A label or id as a key: a non-empty text, or a number as text. */
function textOf(value: unknown): string | undefined {
	if (typeof value === 'string') return value === '' ? undefined : value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
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
