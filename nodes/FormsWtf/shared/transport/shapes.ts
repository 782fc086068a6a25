import type { ExpectedBody } from './index';
import { isObject } from './errors';

/**
 * The shapes of the API's JSON answers that the nodes rely on, checked where an answer arrives
 * (`ApiRequest.expect`): a 200 of any other shape fails with a message that says what came
 * back, never as an empty success or a TypeError. Fields beyond these pass through untouched.
 */

/** `{ "forms": [ … ] }` with an object for each form: anything else is not a list of forms. */
export const FORM_LIST: ExpectedBody = {
	what: '{ "forms": [ … ] }, a list of forms',
	accepts: (body) => isObject(body) && Array.isArray(body.forms) && body.forms.every(isObject),
};

/** A form: an object with its id. Its other fields pass through as the API sends them. */
export const FORM_DETAIL: ExpectedBody = {
	what: 'a form, { "id": …, "title": …, "questions": [ … ] }',
	accepts: (body) =>
		isObject(body) && (typeof body.id === 'string' ? body.id !== '' : typeof body.id === 'number'),
};

/**
 * A page of responses: every response an object with an id (paging and the trigger tell
 * responses apart by it), and `hasMore` — or, without it, a `total` to tell whether more exist.
 */
export const RESPONSES_PAGE: ExpectedBody = {
	what: 'a page of responses, { "responses": [ … ], "hasMore": … }, each response with an "id"',
	accepts: (body) =>
		isObject(body) &&
		Array.isArray(body.responses) &&
		body.responses.every(
			(response) => isObject(response) && typeof response.id === 'string' && response.id !== '',
		) &&
		(readFlag(body.hasMore) !== undefined || readCount(body.total) !== undefined),
};

/** `true`/`false`, also as the strings a loose serializer sends; undefined otherwise. */
export function readFlag(value: unknown): boolean | undefined {
	if (value === true || value === 'true') return true;
	if (value === false || value === 'false') return false;
	return undefined;
}

/** A count, also as a numeric string; undefined otherwise. */
export function readCount(value: unknown): number | undefined {
	const count = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
	return typeof count === 'number' && Number.isSafeInteger(count) && count >= 0 ? count : undefined;
}
