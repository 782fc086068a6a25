/**
 * The two deliveries Forms.wtf's public pages describe, turned into one shape: the Response
 * the API returns (as the polling trigger emits it), plus the form's id and, when the delivery
 * names it, its title. A field a delivery lacks stays absent: nothing is invented.
 *
 *   API reference page:  { event, formId, data: { wallet, ensName, answers, submittedAt }, timestamp }
 *   integrations page:   { event, form: { id, title, slug }, response: { id, walletAddress, … } }
 */
import type { IDataObject } from 'n8n-workflow';

export const SUBMISSION_EVENT = 'form.submission';

export interface Delivery {
	formId: string;
	/** The form's title, when the delivery carries it (the integrations page's payload). */
	formTitle?: string;
	/** The response as the API would return it, with the fields the delivery carries. */
	response: IDataObject;
}

export type ParsedDelivery = { delivery: Delivery } | { error: string };

function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
	return typeof value === 'string' && value.trim() !== '';
}

const EXPECTED =
	'Expected a Forms.wtf webhook delivery: { "event": "form.submission", "formId", "data": { … } } or { "event": "form.submission", "form": { "id", … }, "response": { … } }.';

/**
 * More answers than any form has questions. Simplified keys a repeated label "label (2)",
 * "label (3)", … at a cost that grows with the square of the repeats: 16,000 answers with one
 * label take 19 s, in which the n8n process answers nothing else. Refused before shaping.
 */
export const MAX_ANSWERS = 1000;

/**
 * The answers must be a list of objects, each question ID (when there) text or a number: the
 * item's answers are keyed by label, else by question ID. What each answer holds is passed on.
 */
function answersProblem(container: IDataObject, path: string): string | undefined {
	if (!('answers' in container)) return undefined;
	const { answers } = container;
	if (!Array.isArray(answers)) return `${path}.answers is not a list. ${EXPECTED}`;
	if (answers.length > MAX_ANSWERS)
		return `${path}.answers has ${answers.length} answers; a Forms.wtf delivery has at most ${MAX_ANSWERS}.`;
	for (const [index, answer] of answers.entries()) {
		if (!isRecord(answer)) return `${path}.answers[${index}] is not an object. ${EXPECTED}`;
		const { questionId } = answer;
		if (typeof questionId === 'object' && questionId !== null)
			return `${path}.answers[${index}].questionId is not text. ${EXPECTED}`;
	}
	return undefined;
}

/** The API reference page's payload: `data.wallet` is the response's `walletAddress`. */
function fromReferencePayload(body: IDataObject): ParsedDelivery {
	const { formId, data } = body;
	if (!nonEmptyString(formId)) return { error: `formId is missing or empty. ${EXPECTED}` };
	if (!isRecord(data)) return { error: `data is not an object. ${EXPECTED}` };
	const problem = answersProblem(data, 'data');
	if (problem) return { error: problem };
	// fromEntries defines keys as own properties: a "__proto__" key stays a plain field.
	const response: IDataObject = Object.fromEntries(
		Object.entries(data).map(([key, value]) => [key === 'wallet' ? 'walletAddress' : key, value]),
	);
	return { delivery: { formId, response } };
}

/** The integrations page's payload: `response` is already the API's Response. */
function fromIntegrationsPayload(body: IDataObject): ParsedDelivery {
	const { form, response } = body;
	if (!isRecord(form) || !nonEmptyString(form.id))
		return { error: `form.id is missing or empty. ${EXPECTED}` };
	if (!isRecord(response)) return { error: `response is not an object. ${EXPECTED}` };
	const problem = answersProblem(response, 'response');
	if (problem) return { error: problem };
	const delivery: Delivery = { formId: form.id, response: { ...response } };
	if (typeof form.title === 'string') delivery.formTitle = form.title;
	return { delivery };
}

/** Reads a delivery from the raw body; an error says, for a person, what was wrong with it. */
export function parseDelivery(rawBody: Buffer): ParsedDelivery {
	let body: unknown;
	try {
		// A leading byte-order mark is dropped, as n8n 2.x's JSON body parser does (1.x answers 422).
		body = JSON.parse(rawBody.toString('utf8').replace(/^\ufeff/, ''));
	} catch {
		return { error: `The body is not JSON. ${EXPECTED}` };
	}
	if (!isRecord(body)) return { error: `The body is JSON but not an object. ${EXPECTED}` };
	if (body.event !== SUBMISSION_EVENT) {
		const event = typeof body.event === 'string' ? `"${body.event.slice(0, 100)}"` : 'missing';
		return { error: `The event is ${event}, not "${SUBMISSION_EVENT}". ${EXPECTED}` };
	}
	if ('response' in body || 'form' in body) return fromIntegrationsPayload(body);
	if ('data' in body || 'formId' in body) return fromReferencePayload(body);
	return { error: `Neither data nor response is in the body. ${EXPECTED}` };
}

/** The delivery as the polling trigger's item carries it, before Simplified or Raw shaping. */
export function responseWithForm(delivery: Delivery): IDataObject {
	const item: IDataObject = { ...delivery.response, formId: delivery.formId };
	if (delivery.formTitle !== undefined) item.formTitle = delivery.formTitle;
	return item;
}
