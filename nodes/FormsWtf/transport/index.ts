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
import {
	BODY_STALLED,
	errorForConnection,
	errorForMalformedBody,
	errorForStatus,
	isRetryableConnectionCode,
	redact,
} from './errors';
import { backoffDelayMs, rateLimitBudgetMs, rateLimitDelayMs, retryPolicy } from './retry';

export const CREDENTIAL_TYPE = 'formsWtfApi';

/** Every n8n context our nodes make requests from. */
export type FormsWtfContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export interface ApiRequest extends RequestContext {
	/** Path segments below the base URL; each is URL-encoded, so user input never changes the path. */
	path: string[];
	qs?: IDataObject;
	/** Aborted when the response is no longer wanted: the request and its retries stop. */
	signal?: AbortSignal;
	/**
	 * How long to wait for the answer to start, and at most between two parts of its body,
	 * before the request counts as failed and is retried like a dropped connection.
	 */
	timeoutMs?: number;
}

/** The timeout when the user sets none (the node's Timeout option defaults to it too). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The streamed body of a download, described by what we use of it: node code may import
 * nothing but n8n-workflow, not even Node's `stream` types.
 */
export interface ReadableBody extends AsyncIterable<unknown> {
	pipe: (...args: never[]) => unknown;
	on: (...args: never[]) => unknown;
	resume: () => unknown;
	destroy?: (error?: Error) => unknown;
}

export interface ApiResponse<T> {
	body: T;
	headers: IDataObject;
	statusCode: number;
}

/** GET a JSON resource of the API. */
export async function apiRequest<T>(this: FormsWtfContext, request: ApiRequest): Promise<ApiResponse<T>> {
	const idleMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	const response = await sendWithRetries(this, request, 'application/json', async (body) => await readText(body, idleMs));
	try {
		return { ...response, body: JSON.parse(response.body) as T };
	} catch {
		throw errorForMalformedBody(this.getNode(), 'JSON', request);
	}
}

/**
 * GET a file of the API as a stream, so that a large export reaches n8n's binary data store
 * without being held in memory here.
 */
export async function apiDownload(this: FormsWtfContext, request: ApiRequest): Promise<ApiResponse<ReadableBody>> {
	return await sendWithRetries(this, request, '*/*', async (body) => body);
}

/**
 * The base URL of each node run's credential. A Return All sends hundreds of requests from one
 * context, and in n8n every getCredentials reads the credential from the database and
 * decrypts it, so it is read once per context (a credential cannot change within one run).
 */
const baseUrlOfContext = new WeakMap<FormsWtfContext, Promise<string>>();

/** The credential's base URL, checked and without trailing slashes. */
export async function getBaseUrl(context: FormsWtfContext): Promise<string> {
	let baseUrl = baseUrlOfContext.get(context);
	if (baseUrl === undefined) {
		baseUrl = readBaseUrl(context);
		baseUrlOfContext.set(context, baseUrl);
	}
	return await baseUrl;
}

async function readBaseUrl(context: FormsWtfContext): Promise<string> {
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

/**
 * Sends one GET, retrying what is worth retrying: 429 (honouring Retry-After, bounded in total
 * time), 5xx and dropped connections (a few times, with backoff). 400, 401, 403 and 404 are
 * never retried: the same request would fail the same way.
 */
async function sendWithRetries<B>(
	context: FormsWtfContext,
	request: ApiRequest,
	accept: string,
	readBody: (body: ReadableBody) => Promise<B>,
): Promise<ApiResponse<B>> {
	const node = context.getNode();
	const baseUrl = await getBaseUrl(context);
	// Always a stream: a JSON body is decoded as it arrives (see readText), a file is passed on.
	const options: IHttpRequestOptions = {
		method: 'GET',
		url: buildUrl(baseUrl, request.path),
		qs: request.qs,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		headers: { Accept: accept },
		// n8n's HTTP client (as its HTTP Request node does): the time until the answer starts.
		timeout: request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
	};
	if (request.signal) options.abortSignal = request.signal;

	let attempts = 0;
	let serverErrors = 0;
	let rateLimitWaitMs = 0;
	for (;;) {
		if (request.signal?.aborted) throw new NodeOperationError(node, 'The request was cancelled');
		attempts++;
		let response: IN8nHttpFullResponse;
		try {
			response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_TYPE,
				{ ...options },
			)) as IN8nHttpFullResponse;
			if (response.statusCode >= 200 && response.statusCode < 300) {
				// A connection dropped while the body streams in fails here, and is retried like
				// one dropped before the answer.
				const body = await readBody(response.body as unknown as ReadableBody);
				return { body, headers: response.headers, statusCode: response.statusCode };
			}
		} catch (error) {
			const code = connectionErrorCode(error) ?? 'unknown error';
			if (isRetryableConnectionCode(code) && serverErrors < retryPolicy.maxServerErrorRetries) {
				await waitBeforeRetry(backoffDelayMs(serverErrors++), request.signal);
				continue;
			}
			throw errorForConnection(node, code, baseUrl, request, { attempts, timeoutMs: options.timeout });
		}

		const status = response.statusCode;
		if (status === 429) {
			const waitMs = rateLimitDelayMs(headerValue(response.headers, 'retry-after'), attempts - 1);
			if (rateLimitWaitMs + waitMs <= rateLimitBudgetMs()) {
				discardBody(response.body);
				rateLimitWaitMs += waitMs;
				await waitBeforeRetry(waitMs, request.signal);
				continue;
			}
		} else if (status >= 500 && serverErrors < retryPolicy.maxServerErrorRetries) {
			discardBody(response.body);
			await waitBeforeRetry(backoffDelayMs(serverErrors++), request.signal);
			continue;
		}

		const apiMessage = await readApiErrorMessage(context, response.body, options.timeout ?? DEFAULT_TIMEOUT_MS);
		throw errorForStatus(node, status, request, {
			attempts,
			sentParameters: Object.keys(request.qs ?? {}),
			apiMessage,
			waitedSeconds: Math.round(rateLimitWaitMs / 1000),
		});
	}
}

/** Waits before the next attempt; a request no longer wanted stops waiting at once. */
async function waitBeforeRetry(ms: number, signal: AbortSignal | undefined): Promise<void> {
	// A wait ends early only when the signal stops it; the attempt loop then sees the signal.
	await retryPolicy.wait(ms, signal).catch(() => undefined);
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

/**
 * Finds the system error code (ECONNRESET, ERR_INVALID_CHAR, CERT_HAS_EXPIRED, …) in an error
 * and the errors it wraps.
 */
function connectionErrorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
		const candidate = current as { code?: unknown; message?: unknown; cause?: unknown };
		if (typeof candidate.code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(candidate.code)) return candidate.code;
		if (typeof candidate.message === 'string' && /socket hang up/i.test(candidate.message)) return 'ECONNRESET';
		current = candidate.cause;
	}
	return undefined;
}

/**
 * The chunks of a body, failing with BODY_STALLED when none arrives for `idleMs`: a server
 * that stops sending in the middle of an answer must not hold the execution forever. n8n's
 * timeout ends where the answer starts, and node code may not set timers of its own, so each
 * wait is a `sleep` raced against the next chunk (and cancelled when the chunk wins).
 */
async function* chunksWithIdleTimeout(body: ReadableBody, idleMs: number): AsyncGenerator<unknown, void, undefined> {
	const chunks = body[Symbol.asyncIterator]();
	const stalled = () =>
		Object.assign(new Error(`No data for ${idleMs} ms in the middle of an answer`), { code: BODY_STALLED });
	for (;;) {
		const stopWaiting = new AbortController();
		const timedOut = sleep(idleMs, stopWaiting.signal).then(
			(): typeof STALLED => STALLED,
			() => undefined,
		);
		const waitingSince = Date.now();
		// A failed read is passed on as a value, to be told apart from a stall below.
		const read = chunks.next().then(
			(result) => result,
			(error: unknown) => ({ failed: error }),
		);
		const next = await Promise.race([read, timedOut]);
		stopWaiting.abort();
		if (next !== undefined && next !== STALLED && 'failed' in next) {
			// The socket's own idle timeout (n8n's, of the same length) may end the body first.
			if (Date.now() - waitingSince >= idleMs * 0.9) throw stalled();
			throw next.failed;
		}
		if (next === STALLED) {
			const error = stalled();
			body.destroy?.(error);
			throw error;
		}
		if (next === undefined || next.done) return;
		yield next.value;
	}
}

const STALLED = Symbol('stalled');

/**
 * The text of a body, decoded chunk by chunk as it streams in; only the first `maxBytes` are
 * kept. Decoding as it arrives is what keeps a Return All small: n8n's text mode keeps every
 * chunk of a page until its end, joins them into one more buffer and decodes that, two copies
 * of each ~800 KB page outside V8's heap until the next garbage collection. Measured on a
 * 100,000-response Return All: peak memory 63 MB instead of 180 MB, at the same speed.
 */
async function readText(body: unknown, idleMs: number, maxBytes = Number.POSITIVE_INFINITY): Promise<string> {
	if (typeof body === 'string') return body;
	if (!isReadable(body)) return Buffer.isBuffer(body) ? body.toString('utf8') : '';
	const decoder = new TextDecoder();
	let text = '';
	let size = 0;
	for await (const chunk of chunksWithIdleTimeout(body, idleMs)) {
		const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
		if (size < maxBytes) text += decoder.decode(bytes, { stream: true });
		size += bytes.length;
	}
	return text + decoder.decode();
}

function discardBody(body: unknown): void {
	if (isReadable(body)) body.resume();
}

function isReadable(body: unknown): body is ReadableBody {
	return !!body && typeof (body as ReadableBody).pipe === 'function' && typeof (body as ReadableBody).on === 'function';
}

const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The `error` text of an error body, with the API key cut out should the server echo it. */
async function readApiErrorMessage(context: FormsWtfContext, body: unknown, idleMs: number): Promise<string | undefined> {
	const text = await readText(body, idleMs, MAX_ERROR_BODY_BYTES);
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
