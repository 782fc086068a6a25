import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { RedirectRefusal } from './redirects';
import { MAX_REDIRECTS } from './redirects';
import type { ExportFormat } from './types';

/** What a request was for, so that its error can say something the user can act on. */
export interface RequestContext {
	itemIndex?: number;
	formId?: string;
	exportFormat?: ExportFormat;
}

export interface FailureDetails {
	/** How many times the request was sent. */
	attempts: number;
	/** The query parameters the request sent (limit, offset, since, format). */
	sentParameters?: string[];
	/** The `error` text of the API's JSON body, when there was one. */
	apiMessage?: string;
	/** Seconds spent waiting out rate limits. */
	waitedSeconds?: number;
}

/**
 * The field that marks an error worth waiting out (rate limit, server error, a garbled answer):
 * it travels with the error, through redaction and whoever passes it on.
 */
const TRANSIENT_MARKER = 'formsWtfTransient';

/**
 * Whether an error is worth waiting out (rate limit, server error, network, a garbled answer)
 * rather than something the user must fix (key, plan, form id, input).
 */
export function isTransientError(error: unknown): boolean {
	if (typeof error !== 'object' || error === null) return false;
	return (error as Record<string, unknown>)[TRANSIENT_MARKER] === true || isDeadlineError(error);
}

/** The field that marks an error as a deadline error (see errorForDeadline). */
const DEADLINE_MARKER = 'formsWtfDeadlineExceeded';

/**
 * Whether a request failed because waiting any longer would have passed the deadline its caller
 * gave (ApiRequest.deadlineMs): the server asked for a wait, or did not answer, and the caller
 * (the trigger's poll) has no time left for it. Always transient too.
 */
export function isDeadlineError(error: unknown): boolean {
	return (
		typeof error === 'object' &&
		error !== null &&
		(error as Record<string, unknown>)[DEADLINE_MARKER] === true
	);
}

/** Why a request could not wait for its next attempt within its deadline. */
export type DeadlineReason =
	| { kind: 'rateLimit'; askedMs: number }
	| { kind: 'serverError'; status: number }
	| { kind: 'connection'; code: string };

/**
 * The request stopped because its next attempt would start after the caller's deadline, or
 * because it timed out with the deadline passed. Marked with DEADLINE_MARKER and transient.
 */
export function errorForDeadline(
	node: INode,
	reason: DeadlineReason,
	context: RequestContext,
	attempts: number,
): NodeApiError {
	const what =
		reason.kind === 'rateLimit'
			? 'rate limit'
			: reason.kind === 'serverError'
				? `server error ${reason.status}`
				: 'no answer';
	const message = `Forms.wtf asked to wait (${what}) longer than this poll may take`;
	const description =
		reason.kind === 'rateLimit'
			? `The API allows 60 requests per minute per key and asked to wait ${Math.ceil(reason.askedMs / 1000)} s after ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'}. The trigger goes on at its next poll.`
			: `The request failed ${attempts} ${attempts === 1 ? 'time' : 'times'}${reason.kind === 'connection' ? ` (${reason.code})` : ''} and the next attempt would come after the time this poll may take. The trigger goes on at its next poll.`;
	const error = makeApiError(
		node,
		reason.kind === 'connection' ? undefined : reason.kind === 'rateLimit' ? 429 : reason.status,
		message,
		description,
		context,
	);
	Object.defineProperty(error, DEADLINE_MARKER, { value: true, enumerable: true, writable: false });
	return transient(error);
}

const KEYS_URL_HINT = 'Forms.wtf → Settings → API Keys';

/**
 * Builds the error a no-code user sees for an HTTP status. The error is made from plain
 * strings only, never from the HTTP client's error object: that object carries the request
 * headers, and with them the API key.
 */
export function errorForStatus(
	node: INode,
	status: number,
	context: RequestContext,
	details: FailureDetails,
): NodeApiError {
	const { message, description } = describeStatus(status, context, details);
	const error = makeApiError(node, status, message, description, context, details.apiMessage);
	return status === 429 || status >= 500 ? transient(error) : error;
}

function describeStatus(
	status: number,
	context: RequestContext,
	details: FailureDetails,
): { message: string; description: string } {
	const fromApi = details.apiMessage ? ` Forms.wtf said: "${details.apiMessage}".` : '';
	switch (status) {
		case 400: {
			const checks = (details.sentParameters ?? [])
				.map((name) => PARAMETER_CHECKS[name])
				.filter((check): check is string => check !== undefined);
			return {
				message: 'Forms.wtf rejected the request as invalid',
				description:
					checks.length > 0
						? `Check ${checks.join(', ')}.${fromApi}`
						: `The request carried no options, so the form ID or the credential's Base URL is the likely cause.${fromApi}`,
			};
		}
		case 401:
			return {
				message: 'Forms.wtf did not accept the API key',
				description: `The key in the credential is missing, invalid or has been revoked. Create a new key in ${KEYS_URL_HINT} (keys start with "fwtf_") and paste it into the credential.${fromApi}`,
			};
		case 403:
			if (context.exportFormat === 'merkle') {
				return {
					message: 'Merkle export needs the Forms.wtf Business plan',
					description: `Your plan does not include Merkle exports. Choose CSV or JSON as the format, or upgrade the account to the Business plan.${fromApi}`,
				};
			}
			// A request about one form can be refused for that form alone (access withdrawn from a
			// team form) as well as for the plan: the message must not claim which.
			if (context.formId !== undefined) {
				return {
					message: `Forms.wtf denied access to form "${context.formId}"`,
					description: `Either the account that owns the API key is on a plan without API access (it needs the Team plan or higher), or that account can no longer see this form, for example because it left the team that owns it.${fromApi}`,
				};
			}
			return {
				message: "Your Forms.wtf plan doesn't include API access",
				description: `The Forms.wtf API needs the Team plan or higher. Upgrade the account that owns the API key, or use a key of an account on the Team plan.${fromApi}`,
			};
		case 404:
			return context.formId !== undefined
				? {
						message: `Form "${context.formId}" was not found`,
						description: `Check the form ID, or pick the form from the list. The API key only sees forms its account can access.${fromApi}`,
					}
				: {
						message: 'Forms.wtf answered "not found"',
						description: `Check the Base URL in the credential: it should end in /api/v1.${fromApi}`,
					};
		case 429:
			return {
				message: 'Forms.wtf rate limit reached',
				description: `The API allows 60 requests per minute per key. The node waited ${details.waitedSeconds ?? 0} s over ${details.attempts} attempts and gave up. Run the workflow less often, or use a separate key for each workflow.${fromApi}`,
			};
		default:
			if (status >= 500) {
				return {
					message: `Forms.wtf had a server error (${status})`,
					description: `The request failed ${details.attempts} times. This is usually temporary: try again in a few minutes.${fromApi}`,
				};
			}
			return {
				message: `Forms.wtf answered with status ${status}`,
				description:
					fromApi.trim() || 'The API sent an answer this node does not know how to read.',
			};
	}
}

/** What the user can check for each query parameter a request may send. */
const PARAMETER_CHECKS: Record<string, string> = {
	limit: 'Limit (a whole number of 1 or more)',
	offset: 'Offset (0 or more)',
	since: 'Since (a valid date)',
	format: 'Format (CSV, JSON or Merkle Tree)',
};

/** The code the transport gives a body that stopped arriving in the middle (see index.ts). */
export const BODY_STALLED = 'FORMSWTF_BODY_STALLED';

/** Waiting for an answer, or for the rest of one, took longer than the timeout. */
const TIMEOUT_CODES = new Set([
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'ECONNABORTED',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
	BODY_STALLED,
]);
/** The server could not be reached at all. */
const UNREACHABLE_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EHOSTDOWN',
]);
/** The connection was there and went away. */
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE']);
/** Passing failures worth another attempt: a name lookup that failed for good (ENOTFOUND) is not. */
const RETRYABLE_CODES = new Set([...TIMEOUT_CODES, ...DROPPED_CODES, 'ECONNREFUSED', 'EAI_AGAIN']);

export function isRetryableConnectionCode(code: string): boolean {
	return RETRYABLE_CODES.has(code);
}

/** Whether a system error code says that waiting for an answer, or the rest of one, took too long. */
export function isTimeoutCode(code: string): boolean {
	return TIMEOUT_CODES.has(code);
}

export interface ConnectionFailure {
	attempts: number;
	/** The timeout in force, for the message when waiting took too long. */
	timeoutMs?: number;
}

/**
 * The request failed below HTTP: no answer in time, no server, a dropped connection, a
 * certificate, or a header that cannot be sent. Each says what to check.
 */
export function errorForConnection(
	node: INode,
	code: string,
	baseUrl: string,
	context: RequestContext,
	failure: ConnectionFailure,
): NodeApiError {
	const { attempts } = failure;
	if (code === 'ERR_INVALID_CHAR') {
		// Node refuses to send a header with a line break in it; ours carry only the key.
		return makeApiError(
			node,
			undefined,
			'The API key in the Forms.wtf credential contains a line break or another character that cannot be sent',
			'Open the credential and paste the key again as one line, without spaces or line breaks (keys start with "fwtf_").',
			context,
		);
	}
	if (TIMEOUT_CODES.has(code)) {
		const seconds = failure.timeoutMs === undefined ? '' : ` within ${failure.timeoutMs / 1000} s`;
		const what =
			code === BODY_STALLED
				? `stopped sending in the middle of an answer`
				: `did not answer${seconds}`;
		return transient(
			makeApiError(
				node,
				undefined,
				`Forms.wtf ${what}`,
				`The request timed out ${attempts} times${code === BODY_STALLED && seconds ? ` (no data${seconds})` : ''}. The server may be overloaded: try again later, or raise the node's Timeout option.`,
				context,
			),
		);
	}
	if (DROPPED_CODES.has(code)) {
		return transient(
			makeApiError(
				node,
				undefined,
				`Forms.wtf closed the connection`,
				`The connection to ${baseUrl} was dropped ${attempts} times (${code}). This is usually temporary: try again in a few minutes; if it persists, check proxies or firewalls between n8n and the server.`,
				context,
			),
		);
	}
	if (UNREACHABLE_CODES.has(code)) {
		return transient(
			makeApiError(
				node,
				undefined,
				`Could not connect to Forms.wtf at ${baseUrl}`,
				`The connection failed ${attempts} times (${code}). Check the Base URL in the credential and that the server is reachable from n8n.`,
				context,
			),
		);
	}
	if (/CERT|SSL|TLS|EPROTO|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
		return makeApiError(
			node,
			undefined,
			`Could not make a secure connection to Forms.wtf at ${baseUrl}`,
			`The server's certificate or TLS setup was refused (${code}). Check the Base URL in the credential (https://forms.wtf/api/v1 for the service).`,
			context,
		);
	}
	return transient(
		makeApiError(
			node,
			undefined,
			`The request to Forms.wtf at ${baseUrl} failed`,
			`It failed ${attempts} ${attempts === 1 ? 'time' : 'times'} before an answer came (${code}).`,
			context,
		),
	);
}

/**
 * An export whose body ended before its end: the connection dropped, or n8n's HTTP client
 * closed it after the Timeout passed without data. Not retried: part of the file has already
 * gone to n8n's binary data store, and a new run reads it again from the start.
 */
export function errorForInterruptedDownload(
	error: unknown,
	node: INode,
	context: RequestContext,
	timeoutMs: number,
): NodeApiError | undefined {
	const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as {
		code?: unknown;
		message?: unknown;
	};
	const interrupted =
		(typeof code === 'string' && (TIMEOUT_CODES.has(code) || DROPPED_CODES.has(code))) ||
		message === 'aborted';
	if (!interrupted) return undefined;
	return transient(
		makeApiError(
			node,
			undefined,
			'Forms.wtf stopped sending in the middle of an answer',
			`The export file stopped arriving (no data for ${timeoutMs / 1000} s, or the connection dropped). Try again; for a very large export, raise the node's Timeout option.`,
			context,
		),
	);
}

/**
 * A 2xx answer whose body is not the JSON the contract promises. With `got`, the description
 * says what came back (see describeBody; pass the key's forms so that it is cut out first).
 */
export function errorForMalformedBody(
	node: INode,
	what: string,
	context: RequestContext,
	got?: { body: unknown; secrets: readonly string[]; notJson?: boolean },
): NodeApiError {
	let gotText = '';
	if (got !== undefined) {
		gotText =
			got.notJson && typeof got.body === 'string'
				? `, got text that is not JSON (${quoteServerText(got.body, got.secrets)})`
				: `, got ${describeBody(got.body, got.secrets)}`;
	}
	return transient(
		makeApiError(
			node,
			undefined,
			'Forms.wtf sent an answer that could not be read',
			`Expected ${what}${gotText}. This is usually temporary: try again, and report it to Forms.wtf if it persists.`,
			context,
		),
	);
}

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A server's text as an error quotes it: the key's forms cut out, then shortened, in quotes;
 * `"…"` when the key is too short to cut out safely.
 */
function quoteServerText(text: string, secrets: readonly string[]): string {
	if (!canQuoteServerText(secrets)) return '"…"';
	return JSON.stringify(shorten(redactAll(text, secrets), MAX_QUOTED));
}

/** How much of a server's text an error quotes, at most. */
const MAX_QUOTED = 120;

/**
 * A short description of a JSON value that came back, for an error: `null`, `a string ("…")`,
 * `an empty array`, `an array of 3 values`, `{ "error": "…" }`, `{ "forms": null }` … The key's
 * forms are cut out of every text before it is shortened. A key too short to cut out safely
 * (see secretForms) leaves the server's texts out entirely.
 */
export function describeBody(body: unknown, secrets: readonly string[]): string {
	const quote = (text: string): string => quoteServerText(text, secrets);
	const brief = (value: unknown): string => {
		if (value === null) return 'null';
		if (typeof value === 'string') return quote(value);
		if (Array.isArray(value))
			return value.length === 0
				? '[]'
				: `[ ${value.length} ${value.length === 1 ? 'value' : 'values'} ]`;
		if (typeof value === 'object') return '{ … }';
		return String(value);
	};
	if (body === null) return 'null';
	if (body === undefined) return 'an empty answer';
	if (typeof body === 'string') return `a string (${quote(body)})`;
	if (typeof body === 'number' || typeof body === 'boolean')
		return `${typeof body === 'number' ? 'a number' : 'a boolean'} (${String(body)})`;
	if (Array.isArray(body)) {
		if (body.length === 0) return 'an empty array ([])';
		return `an array of ${body.length} ${body.length === 1 ? 'value' : 'values'}`;
	}
	if (typeof body === 'object') {
		const entries = Object.entries(body as Record<string, unknown>);
		if (entries.length === 0) return '{}';
		const shown = entries.slice(0, 4).map(([name, value]) => `${quote(name)}: ${brief(value)}`);
		if (entries.length > 4) shown.push('…');
		return `{ ${shown.join(', ')} }`;
	}
	return typeof body;
}

/**
 * A redirect the transport does not follow (see redirects.ts for the rule). Never retried: the
 * same request would be sent the same way. `keyHost` is the host of the Base URL.
 */
export function errorForRedirect(
	node: INode,
	refusal: RedirectRefusal,
	keyHost: string,
	context: RequestContext,
): NodeApiError {
	const check =
		"Check the Base URL in the credential (https://forms.wtf/api/v1 for the service): it must be the API's own address, not one that forwards elsewhere.";
	const statusOf = (status: number) => `status ${status}`;
	let message: string;
	let description: string;
	let status: number | undefined;
	switch (refusal.kind) {
		case 'noLocation':
			status = refusal.status;
			message = 'Forms.wtf answered with a redirect but no address to go to';
			description = `The server answered ${statusOf(refusal.status)} without a Location. ${check}`;
			break;
		case 'badLocation':
			status = refusal.status;
			message = 'Forms.wtf redirected the request to an address that could not be read';
			description = `The server answered ${statusOf(refusal.status)} with a Location that is not an http:// or https:// address. ${check}`;
			break;
		case 'otherOrigin':
			status = refusal.status;
			message = `Forms.wtf redirected the request to another host (${refusal.host})`;
			description = `The API key is only ever sent to the host of the Base URL (${keyHost}), so the node did not follow the redirect (${statusOf(refusal.status)}) to ${refusal.shown}. If the API has moved, put its new address in the credential's Base URL.`;
			break;
		case 'downgrade':
			status = refusal.status;
			message = `Forms.wtf redirected the download to an insecure address (${refusal.host})`;
			description = `The file link ${refusal.shown} uses http:// where the request used https://, so the node did not follow it. Report it to the operator of the server.`;
			break;
		case 'loop':
			message = 'Forms.wtf redirected the request in a loop';
			description = `The redirects led back to ${refusal.shown}, an address already asked for. ${check}`;
			break;
		default:
			message = `Forms.wtf redirected the request more than ${MAX_REDIRECTS} times`;
			description = `The node stopped following redirects after ${MAX_REDIRECTS}. ${check}`;
	}
	return makeApiError(node, status, message, description, context);
}

/**
 * Return All stopped at its ceiling (paging.ts, MAX_UNCOUNTED_RESPONSES): the API said more
 * responses exist on every page and never how many. Not transient: the same walk would stop
 * the same way; a Limit reads past it.
 */
export function errorForUncountedWalk(
	node: INode,
	ceiling: number,
	context: RequestContext,
): NodeApiError {
	return makeApiError(
		node,
		undefined,
		`Return All stopped after ${ceiling} responses`,
		`Forms.wtf kept answering that more responses exist without saying how many there are (no "total"), so the node stopped instead of reading forever. If the form really has more, turn off Return All and set Limit to the number you need (with Offset to start further on).`,
		context,
	);
}

/** Paging that would never end, because the server contradicts itself. */
export function errorForPaging(
	node: INode,
	problem: string,
	context: RequestContext,
): NodeApiError {
	return transient(
		makeApiError(
			node,
			undefined,
			'Forms.wtf returned inconsistent pages of responses',
			`${problem} The node stopped instead of reading forever. Try again later.`,
			context,
		),
	);
}

function transient(error: NodeApiError): NodeApiError {
	Object.defineProperty(error, TRANSIENT_MARKER, {
		value: true,
		enumerable: true,
		writable: false,
	});
	return error;
}

function makeApiError(
	node: INode,
	status: number | undefined,
	message: string,
	description: string,
	context: RequestContext,
	apiMessage?: string,
): NodeApiError {
	const body: JsonObject = { message, description };
	if (apiMessage !== undefined) body.error = apiMessage;
	return new NodeApiError(node, body, {
		message,
		description,
		httpCode: status === undefined ? undefined : String(status),
		itemIndex: context.itemIndex,
	});
}

/** Removes every occurrence of a secret from text that may reach the user or a log. */
function redact(text: string, secret: string | undefined): string {
	if (!secret || secret.length < MIN_REDACTABLE) return text;
	return text.split(secret).join(REDACTED);
}

const REDACTED = '[redacted]';

/**
 * A secret shorter than this cannot be cut out of a text without cutting ordinary words: the
 * server's texts are then left out of errors instead (see canQuoteServerText).
 */
const MIN_REDACTABLE = 4;

/**
 * Every form an API key can take on the wire, and so in a server's echo of it. n8n puts the
 * stored key into `Authorization: Bearer <key>`; its HTTP client (axios) drops control
 * characters from a header value (a line break inside or at the end of a pasted key) and
 * characters outside Latin-1, and trims spaces and tabs at the ends; a server may trim what
 * it read, and JSON-escapes it when it echoes it inside a JSON text. Longest first, so that a
 * longer form is cut out whole before a shorter one inside it.
 */
export function secretForms(apiKey: unknown): string[] {
	if (typeof apiKey !== 'string' || apiKey === '') return [];
	// The control characters and the Latin-1 limit of axios' sanitizeHeaderValue (axios 1.x).
	/* eslint-disable no-control-regex -- control characters are what axios drops */
	const onTheWire = apiKey
		.replace(/[\u0000-\u0008\u000a-\u001f\u007f]+/g, '')
		.replace(/[^\u0009\u0020-\u007e\u0080-\u00ff]+/g, '');
	/* eslint-enable no-control-regex */
	const forms = new Set<string>();
	for (const form of [
		apiKey,
		apiKey.trim(),
		onTheWire,
		onTheWire.replace(/^[ \t]+|[ \t]+$/g, ''),
		onTheWire.trim(),
	]) {
		if (form === '') continue;
		forms.add(form);
		forms.add(JSON.stringify(form).slice(1, -1));
	}
	return [...forms].sort((a, b) => b.length - a.length);
}

/** Whether a server's text may appear in an error: not when a form of the key is too short to cut out. */
export function canQuoteServerText(secrets: readonly string[]): boolean {
	return secrets.every((secret) => secret.length >= MIN_REDACTABLE);
}

/**
 * A text cut to at most about `max` characters, with "…" when cut. Cut only after redaction; a
 * cut never splits the "[redacted]" mark (it is kept whole).
 */
export function shorten(text: string, max: number): string {
	if (text.length <= max) return text;
	let end = max;
	const mark = text.lastIndexOf(REDACTED, end);
	if (mark >= 0 && mark < end && mark + REDACTED.length > end) end = mark + REDACTED.length;
	return `${text.slice(0, end)}…`;
}

/** Cuts every form of the key out of a text (see secretForms). */
export function redactAll(text: string, secrets: readonly string[]): string {
	let result = text;
	for (const secret of secrets) result = redact(result, secret);
	return result;
}

/**
 * Cuts every form of the key out of everything an error carries that may be shown or logged:
 * message, description, stack, `messages`, `context`, `cause` (for a NodeApiError, the body it
 * was made from, with the server's `error` text), nested as deep as they go. The error is
 * changed in place and returned. The node the error names is left alone: it holds no key.
 */
export function redactError<E>(error: E, secrets: readonly string[]): E {
	if (secrets.length === 0 || typeof error !== 'object' || error === null) return error;
	const seen = new WeakSet<object>();
	const clean = (value: unknown, depth: number): unknown => {
		if (typeof value === 'string') return redactAll(value, secrets);
		if (typeof value !== 'object' || value === null || depth > 8 || seen.has(value)) return value;
		seen.add(value);
		if (Array.isArray(value)) {
			for (let i = 0; i < value.length; i++) value[i] = clean(value[i], depth + 1);
			return value;
		}
		const record = value as Record<string, unknown>;
		const names = new Set([
			...Object.keys(record),
			...(value instanceof Error ? ['message', 'stack', 'description', 'cause'] : []),
		]);
		for (const name of names) {
			if (name === 'node' || name === DEADLINE_MARKER || name === TRANSIENT_MARKER) continue;
			const descriptor = Object.getOwnPropertyDescriptor(record, name);
			if (descriptor === undefined || !('value' in descriptor) || !descriptor.writable) continue;
			const cleaned = clean(descriptor.value, depth + 1);
			if (cleaned !== descriptor.value) record[name] = cleaned;
		}
		return value;
	};
	clean(error, 0);
	return error;
}

/**
 * The error to throw for anything caught: n8n's own error classes pass through unchanged (both
 * constructors hand back an instance of their class), anything else is wrapped.
 */
export function asNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError)
		return new NodeApiError(node, error as unknown as JsonObject, { itemIndex });
	return new NodeOperationError(node, error instanceof Error ? error : String(error), {
		itemIndex,
	});
}
