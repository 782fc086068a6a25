import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { RequestContext } from './errors';
import { errorForConnection, errorForMalformedBody, errorForStatus, redact } from './errors';
import { backoffDelayMs, rateLimitBudgetMs, rateLimitDelayMs, retryPolicy } from './retry';

export const CREDENTIAL_TYPE = 'formsWtfApi';

/** Every n8n context our nodes make requests from. */
export type FormsWtfContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface ApiRequest extends RequestContext {
	/** Path segments below the base URL; each is URL-encoded, so user input never changes the path. */
	path: string[];
	qs?: IDataObject;
}

/**
 * The streamed body of a download, described by what we use of it: node code may import
 * nothing but n8n-workflow, not even Node's `stream` types.
 */
export interface ReadableBody extends AsyncIterable<unknown> {
	pipe: (...args: never[]) => unknown;
	on: (...args: never[]) => unknown;
	resume: () => unknown;
}

export interface ApiResponse<T> {
	body: T;
	headers: IDataObject;
	statusCode: number;
}

/** GET a JSON resource of the API. */
export async function apiRequest<T>(this: FormsWtfContext, request: ApiRequest): Promise<ApiResponse<T>> {
	const response = await sendWithRetries(this, request, 'text');
	const text = bodyToText(response.body);
	try {
		return { body: JSON.parse(text) as T, headers: response.headers, statusCode: response.statusCode };
	} catch {
		throw errorForMalformedBody(this.getNode(), 'JSON', request);
	}
}

/**
 * GET a file of the API as a stream, so that a large export reaches n8n's binary data store
 * without being held in memory here.
 */
export async function apiDownload(this: FormsWtfContext, request: ApiRequest): Promise<ApiResponse<ReadableBody>> {
	const response = await sendWithRetries(this, request, 'stream');
	return { body: response.body as unknown as ReadableBody, headers: response.headers, statusCode: response.statusCode };
}

/** The credential's base URL, checked and without trailing slashes. */
export async function getBaseUrl(context: FormsWtfContext): Promise<string> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const raw = typeof credentials.baseUrl === 'string' ? credentials.baseUrl.trim() : '';
	const baseUrl = raw.replace(/\/+$/, '');
	if (!/^https?:\/\/[^/\s]+/i.test(baseUrl)) {
		throw new NodeOperationError(context.getNode(), 'The Base URL in the Forms.wtf credential is not a web address', {
			description: 'It must start with https:// (or http:// for a local server), for example https://forms.wtf/api/v1.',
		});
	}
	return baseUrl;
}

function buildUrl(baseUrl: string, path: string[]): string {
	return `${baseUrl}/${path.map((segment) => encodeURIComponent(segment)).join('/')}`;
}

const RETRYABLE_CONNECTION_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'EPIPE',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EAI_AGAIN',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

/**
 * Sends one GET, retrying what is worth retrying: 429 (honouring Retry-After, bounded in total
 * time), 5xx and dropped connections (a few times, with backoff). 400, 401, 403 and 404 are
 * never retried: the same request would fail the same way.
 */
async function sendWithRetries(
	context: FormsWtfContext,
	request: ApiRequest,
	encoding: 'text' | 'stream',
): Promise<IN8nHttpFullResponse> {
	const node = context.getNode();
	const baseUrl = await getBaseUrl(context);
	const options: IHttpRequestOptions = {
		method: 'GET',
		url: buildUrl(baseUrl, request.path),
		qs: request.qs,
		encoding,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		headers: { Accept: encoding === 'stream' ? '*/*' : 'application/json' },
	};

	let attempts = 0;
	let serverErrors = 0;
	let rateLimitWaitMs = 0;
	for (;;) {
		attempts++;
		let response: IN8nHttpFullResponse;
		try {
			response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_TYPE,
				{ ...options },
			)) as IN8nHttpFullResponse;
		} catch (error) {
			const code = connectionErrorCode(error) ?? 'unknown error';
			if (RETRYABLE_CONNECTION_CODES.has(code) && serverErrors < retryPolicy.maxServerErrorRetries) {
				await sleep(backoffDelayMs(serverErrors++));
				continue;
			}
			throw errorForConnection(node, code, baseUrl, request, attempts);
		}

		const status = response.statusCode;
		if (status >= 200 && status < 300) return response;

		if (status === 429) {
			const waitMs = rateLimitDelayMs(headerValue(response.headers, 'retry-after'), attempts - 1);
			if (rateLimitWaitMs + waitMs <= rateLimitBudgetMs()) {
				await discardBody(response.body);
				rateLimitWaitMs += waitMs;
				await sleep(waitMs);
				continue;
			}
		} else if (status >= 500 && serverErrors < retryPolicy.maxServerErrorRetries) {
			await discardBody(response.body);
			await sleep(backoffDelayMs(serverErrors++));
			continue;
		}

		const apiMessage = await readApiErrorMessage(context, response.body);
		throw errorForStatus(node, status, request, {
			attempts,
			apiMessage,
			waitedSeconds: Math.round(rateLimitWaitMs / 1000),
		});
	}
}

/** The service's clock when it answered, from its Date header (epoch ms), if it sent one. */
export function serviceTimeMs(headers: IDataObject | undefined): number | undefined {
	const date = headerValue(headers, 'date');
	const ms = date === undefined ? NaN : Date.parse(date);
	return Number.isNaN(ms) ? undefined : ms;
}

export function headerValue(headers: IDataObject | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	const value = headers[name] ?? headers[name.toLowerCase()];
	if (Array.isArray(value)) return value.length ? String(value[0]) : undefined;
	return value === undefined || value === null ? undefined : String(value);
}

/** Finds the system error code (ECONNRESET, …) in an error and the errors it wraps. */
function connectionErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
		const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
		if (typeof candidate.code === 'string' && /^E[A-Z_]+$/.test(candidate.code)) return candidate.code;
		if (typeof candidate.message === 'string' && /socket hang up/i.test(candidate.message)) return 'ECONNRESET';
		current = candidate.cause;
	}
	return undefined;
}

function bodyToText(body: unknown): string {
	if (typeof body === 'string') return body;
	if (Buffer.isBuffer(body)) return body.toString('utf8');
	if (body && typeof body === 'object') return JSON.stringify(body);
	return '';
}

async function discardBody(body: unknown): Promise<void> {
	if (isReadable(body)) body.resume();
}

function isReadable(body: unknown): body is ReadableBody {
	return !!body && typeof (body as ReadableBody).pipe === 'function' && typeof (body as ReadableBody).on === 'function';
}

const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The `error` text of an error body, with the API key cut out should the server echo it. */
async function readApiErrorMessage(context: FormsWtfContext, body: unknown): Promise<string | undefined> {
	let text: string;
	if (isReadable(body)) {
		const chunks: Buffer[] = [];
		let size = 0;
		for await (const chunk of body) {
			const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
			if (size < MAX_ERROR_BODY_BYTES) chunks.push(buffer);
			size += buffer.length;
		}
		text = Buffer.concat(chunks).toString('utf8');
	} else {
		text = bodyToText(body);
	}
	let message: string | undefined;
	try {
		const parsed = JSON.parse(text) as { error?: unknown };
		if (typeof parsed.error === 'string') message = parsed.error;
	} catch {
		message = undefined;
	}
	if (message === undefined) return undefined;
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	return redact(message.slice(0, 500), typeof credentials.apiKey === 'string' ? credentials.apiKey : undefined);
}
