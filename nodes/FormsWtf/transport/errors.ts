import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

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

const transientErrors = new WeakSet<object>();

/**
 * Whether an error is worth waiting out (rate limit, server error, network, a garbled answer)
 * rather than something the user must fix (key, plan, form id, input).
 */
export function isTransientError(error: unknown): boolean {
	return typeof error === 'object' && error !== null && transientErrors.has(error);
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
	if (status === 429 || status >= 500) transientErrors.add(error);
	return error;
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
				description: fromApi.trim() || 'The API sent an answer this node does not know how to read.',
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
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED', 'ERR_SOCKET_CONNECTION_TIMEOUT', BODY_STALLED]);
/** The server could not be reached at all. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN']);
/** The connection was there and went away. */
const DROPPED_CODES = new Set(['ECONNRESET', 'EPIPE']);
/** Passing failures worth another attempt: a name lookup that failed for good (ENOTFOUND) is not. */
const RETRYABLE_CODES = new Set([...TIMEOUT_CODES, ...DROPPED_CODES, 'ECONNREFUSED', 'EAI_AGAIN']);

export function isRetryableConnectionCode(code: string): boolean {
	return RETRYABLE_CODES.has(code);
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
			code === BODY_STALLED ? `stopped sending in the middle of an answer` : `did not answer${seconds}`;
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
export function errorForInterruptedDownload(error: unknown, node: INode, context: RequestContext, timeoutMs: number): NodeApiError | undefined {
	const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
	const interrupted =
		(typeof code === 'string' && (TIMEOUT_CODES.has(code) || DROPPED_CODES.has(code))) || message === 'aborted';
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

/** A 2xx answer whose body is not the JSON the contract promises. */
export function errorForMalformedBody(node: INode, what: string, context: RequestContext): NodeApiError {
	return transient(
		makeApiError(
			node,
			undefined,
			'Forms.wtf sent an answer that could not be read',
			`Expected ${what}. This is usually temporary: try again, and report it to Forms.wtf if it persists.`,
			context,
		),
	);
}

/** Paging that would never end, because the server contradicts itself. */
export function errorForPaging(node: INode, problem: string, context: RequestContext): NodeApiError {
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
	transientErrors.add(error);
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
export function redact(text: string, secret: string | undefined): string {
	if (!secret || secret.length < 4) return text;
	return text.split(secret).join('[redacted]');
}

/**
 * The error to throw for anything caught: n8n's own error classes pass through unchanged (both
 * constructors hand back an instance of their class), anything else is wrapped.
 */
export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError) return new NodeApiError(node, error as unknown as JsonObject, { itemIndex });
	return new NodeOperationError(node, error instanceof Error ? error : String(error), { itemIndex });
}
