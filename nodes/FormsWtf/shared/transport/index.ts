import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	INode,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { DeadlineReason, RequestContext } from './errors';
import {
	BODY_STALLED,
	canQuoteServerText,
	errorForConnection,
	errorForDeadline,
	errorForMalformedBody,
	errorForRedirect,
	errorForStatus,
	isRetryableConnectionCode,
	isTimeoutCode,
	redactAll,
	redactError,
	secretForms,
	shorten,
} from './errors';
import type { RedirectState } from './redirects';
import { displayUrl, isRedirectStatus, nextHop, startRedirects } from './redirects';
import type { RetryPolicy } from './retry';
import { backoffDelayMs, DEFAULT_RETRY_POLICY, rateLimitBudgetMs, rateLimitDelayMs } from './retry';

const CREDENTIAL_TYPE = 'formsWtfApi';

/** Every n8n context our nodes make requests from. */
export type FormsWtfContext =
	IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions | IHookFunctions;

export type ApiMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface ApiRequest extends RequestContext {
	/** GET unless given. A POST is never sent twice once it may have arrived (see sendWithRetries). */
	method?: ApiMethod;
	/** Path segments below the base URL; each is URL-encoded, so user input never changes the path. */
	path: string[];
	qs?: IDataObject;
	/** Sent as JSON. */
	body?: IDataObject;
	/** Aborted when the response is no longer wanted: the request and its retries stop. */
	signal?: AbortSignal;
	/**
	 * How long to wait for the answer to start, and at most between two parts of its body,
	 * before the request counts as failed and is retried like a dropped connection.
	 */
	timeoutMs?: number;
	/**
	 * An absolute time (`Date.now()` milliseconds) the request must not wait past: a retry wait
	 * (429 or 5xx/connection backoff) that would end after it is not started, and the request
	 * fails at once with an error `isDeadlineError` (errors.ts) recognises. Each attempt's
	 * timeout is at most the time left until it (never below MIN_DEADLINE_TIMEOUT_MS), and an
	 * attempt that times out once it has passed fails the same way. The trigger passes the end
	 * of its poll's time budget.
	 */
	deadlineMs?: number;
	/**
	 * What the JSON body of a 2xx answer must look like. A body that is not is refused with an
	 * error that names `what` was expected and describes what came back.
	 */
	expect?: ExpectedBody;
	/**
	 * The answer is a file, which may be served from another origin (a storage or CDN link): a
	 * redirect there is followed without the key (see redirects.ts).
	 */
	followsFileLinks?: boolean;
}

export interface ExpectedBody {
	/** What the user is told was expected, e.g. `{ "forms": [ … ] }`. */
	what: string;
	accepts: (body: unknown) => boolean;
}

/** The timeout when the user sets none (the node's Timeout option defaults to it too). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Node's timers hold at most 2^31 − 1 ms (about 24.8 days); a longer one fires at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** The shortest timeout an attempt gets when a deadline is near or has passed. */
export const MIN_DEADLINE_TIMEOUT_MS = 1_000;

/**
 * The streamed body of a download, described by what we use of it: node code may import
 * nothing but n8n-workflow, not even Node's `stream` types.
 */
export interface ReadableBody extends AsyncIterable<unknown> {
	pipe: (...args: never[]) => unknown;
	on: (...args: never[]) => unknown;
	resume: () => unknown;
	unshift: (chunk: unknown) => unknown;
	destroy?: (error?: Error) => unknown;
}

export interface ApiResponse<T> {
	body: T;
	headers: IDataObject;
	statusCode: number;
	/** The n8n host's clock when the attempt that got this answer was sent (not a retried one). */
	sentAtMs: number;
}

/** What a node is built with: n8n builds it without arguments, tests with a policy of their own. */
export interface TransportSettings {
	retryPolicy?: RetryPolicy;
}

/**
 * The API as one node run sees it, made once per `execute()`, `poll()` or list search. It
 * reads the credential on its first request and keeps it for the run (a Return All sends
 * hundreds of requests, and each getCredentials reads the credential from the database and
 * decrypts it); the next run makes a new client, so an edited credential is used from then on.
 */
export class FormsWtfClient {
	private credential?: Promise<CredentialFacts>;

	readonly policy: RetryPolicy;

	/**
	 * The service's clock (its Date header) at the first answer this client got, whatever its
	 * status: a 429 waited out after it does not move when it was asked.
	 */
	firstAnswerAtMs?: number;

	constructor(
		readonly context: FormsWtfContext,
		settings: TransportSettings = {},
	) {
		this.policy = settings.retryPolicy ?? DEFAULT_RETRY_POLICY;
	}

	/** GET a JSON resource of the API. */
	async request<T>(request: ApiRequest): Promise<ApiResponse<T>> {
		return await this.withKeyRedacted(async (secrets) => {
			// A body that trickles in must not hold a poll past its deadline either (as an attempt's
			// timeout, never less than MIN_DEADLINE_TIMEOUT_MS from when the body starts).
			const response = await sendWithRetries(
				this,
				request,
				'application/json',
				async (body, idleMs) => {
					const { deadlineMs } = request;
					const untilMs =
						deadlineMs === undefined
							? undefined
							: Math.max(deadlineMs, Date.now() + MIN_DEADLINE_TIMEOUT_MS);
					return await readText(body, idleMs, undefined, untilMs);
				},
			);
			let parsed: unknown;
			try {
				// A change the service confirms with 204, or 200 and nothing, has no body to read.
				parsed =
					request.method !== undefined && request.method !== 'GET' && response.body.trim() === ''
						? {}
						: JSON.parse(response.body);
			} catch {
				throw errorForMalformedBody(
					this.context.getNode(),
					request.expect?.what ?? 'JSON',
					request,
					{
						body: describeUnparsable(response.body),
						secrets,
						notJson: true,
					},
				);
			}
			if (request.expect && !request.expect.accepts(parsed)) {
				throw errorForMalformedBody(this.context.getNode(), request.expect.what, request, {
					body: parsed,
					secrets,
				});
			}
			return { ...response, body: parsed as T };
		});
	}

	/**
	 * GET a file of the API as a stream, so that a large export reaches n8n's binary data store
	 * without being held in memory here.
	 */
	async download(request: ApiRequest): Promise<ApiResponse<ReadableBody>> {
		return await this.withKeyRedacted(async (secrets) => {
			// The first part of the file is read here, where a stall or a dropped connection can
			// still be retried (nothing has reached n8n's binary data store yet), then put back.
			const response = await sendWithRetries(
				this,
				{ ...request, followsFileLinks: true },
				'*/*',
				async (body, idleMs) => {
					const isError = await isErrorBody(body, idleMs);
					endWhenIdle(body, idleMs);
					return { body, isError };
				},
			);
			const { body, isError } = response.body;
			if (isError) {
				// A 200 whose body is the API's error object: no export layout starts like it (CSV
				// starts with its header row, JSON with `[`, a Merkle dump with `{"format"`).
				const text = await readText(
					body,
					request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
					MAX_ERROR_BODY_BYTES,
				);
				let parsed: unknown;
				let notJson = false;
				try {
					parsed = JSON.parse(text);
				} catch {
					// Cut short or garbled: described as the text it is.
					parsed = describeUnparsable(text);
					notJson = true;
				}
				throw errorForMalformedBody(this.context.getNode(), 'an export file', request, {
					body: parsed,
					secrets,
					notJson,
				});
			}
			return { ...response, body };
		});
	}

	/**
	 * Runs a request and cuts every form of the API key out of whatever error it ends with, in
	 * every field, however the error was made (see redactError).
	 */
	private async withKeyRedacted<T>(run: (secrets: readonly string[]) => Promise<T>): Promise<T> {
		let secrets: readonly string[] = [];
		try {
			secrets = await this.secretForms();
			return await run(secrets);
		} catch (error) {
			throw redactError(error, secrets);
		}
	}

	/** The credential's base URL, checked and without trailing slashes. */
	async baseUrl(): Promise<string> {
		const { baseUrl } = await this.facts();
		if (baseUrl instanceof NodeOperationError) throw baseUrl;
		return baseUrl;
	}

	/** Every form the credential's API key can take on the wire, longest first. */
	async secretForms(): Promise<string[]> {
		return (await this.facts()).secrets;
	}

	private async facts(): Promise<CredentialFacts> {
		this.credential ??= readCredential(this.context);
		return await this.credential;
	}
}

/**
 * Whether a body that starts with `start` (its first bytes, as far as they have arrived) is the
 * API's error object, `{ "error": …`: true, false, or undefined while the bytes so far cannot
 * tell (white space, or a part of `{ "error" :`). Read as bytes, so that a chunk boundary
 * anywhere, even inside a character, gives the same answer as the whole body.
 */
export function startsAsErrorObject(start: Uint8Array): boolean | undefined {
	let at = 0;
	// A UTF-8 byte order mark, then JSON's white space.
	if (start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf) at = 3;
	else if (start[0] === 0xef && (start.length === 1 || (start[1] === 0xbb && start.length === 2)))
		return undefined;
	const skipSpace = () => {
		while (at < start.length && JSON_SPACE.has(start[at])) at++;
	};
	for (const expected of ERROR_OBJECT_START) {
		skipSpace();
		for (let i = 0; i < expected.length; i++, at++) {
			if (at >= start.length) return undefined;
			if (start[at] !== expected.charCodeAt(i)) return false;
		}
	}
	return true;
}

/** `{ "error" :` as the tokens it is made of, with JSON white space allowed between them. */
const ERROR_OBJECT_START = ['{', '"error"', ':'];
const JSON_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** How much of a body is read, at most, to tell whether it is an error object. */
const MAX_START_BYTES = 64 * 1024;

function asBytes(chunk: unknown): Uint8Array {
	return typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
}

/**
 * Whether a body is the API's error object (see startsAsErrorObject), read from as much of its
 * start as that takes (at most MAX_START_BYTES: past that it is not), and left in the stream for
 * whoever reads it next. An empty body is not. Fails with BODY_STALLED when nothing arrives for
 * `idleMs`.
 *
 * Read in paused mode ('readable' and read()), which leaves the stream as it found it once the
 * listener is gone: a consumer that only listens to 'data' (n8n's binary data store does) still
 * starts it. What is read is put back at once, within the event: a body that has ended would
 * otherwise emit 'end' before it is back. To wait for more, the read asks for one byte more than
 * is there: nothing comes back while the body goes on (and a 'readable' follows the next part),
 * everything once it has ended.
 */
async function isErrorBody(body: ReadableBody, idleMs: number): Promise<boolean> {
	const stopWaiting = new AbortController();
	const events = body as unknown as {
		read: (size?: number) => unknown;
		readableLength: number;
		on: (event: string, listener: (...args: never[]) => void) => unknown;
		removeListener: (event: string, listener: (...args: never[]) => void) => unknown;
	};
	let cleanup = (): void => undefined;
	const verdict = new Promise<boolean>((resolve, reject) => {
		let seen = 0;
		const finish = (start: unknown) => {
			cleanup();
			resolve(start !== null && startsAsErrorObject(asBytes(start)) === true);
		};
		const onReadable = () => {
			const length = events.readableLength;
			// Nothing buffered at a 'readable': the body is empty. Not read, so that 'end' waits.
			if (length === 0) return finish(null);
			if (length > seen) {
				const start = events.read();
				if (start !== null) body.unshift(start);
				seen = events.readableLength;
				if (
					start !== null &&
					(startsAsErrorObject(asBytes(start)) !== undefined || seen >= MAX_START_BYTES)
				)
					return finish(start);
			}
			const all = events.read(seen + 1);
			if (all !== null) {
				body.unshift(all);
				finish(all);
			}
		};
		const onError = (error: unknown) => {
			cleanup();
			reject(error);
		};
		const onClose = () => {
			cleanup();
			reject(
				Object.assign(new Error('The connection closed before the answer began'), {
					code: 'ECONNRESET',
				}),
			);
		};
		cleanup = () => {
			stopWaiting.abort();
			events.removeListener('readable', onReadable);
			events.removeListener('error', onError);
			events.removeListener('close', onClose);
		};
		events.on('readable', onReadable);
		events.on('error', onError);
		events.on('close', onClose);
	});
	// The wait is for the whole start (a few bytes), not for each part of it.
	const timedOut = sleep(idleMs, stopWaiting.signal).then(
		(): typeof STALLED => STALLED,
		() => undefined,
	);
	const result = await Promise.race([verdict, timedOut]);
	if (result === STALLED) {
		cleanup();
		const error = Object.assign(new Error(`No data for ${idleMs} ms at the start of an answer`), {
			code: BODY_STALLED,
		});
		body.destroy?.(error);
		throw error;
	}
	return result === true;
}

/**
 * Ends a file that stops arriving halfway: when nothing has been added to the body for
 * `idleMs`, it is destroyed with BODY_STALLED, and whoever reads it (n8n's binary data store)
 * fails with that. n8n's own timeout ends where the answer starts once its helper does not
 * follow redirects (axios then uses Node's request, whose timeout stops at the response), and
 * node code may not set timers of its own: each wait is a `sleep`, and progress is seen where
 * the stream's source hands it a part (`push`), which neither reads the body nor changes how
 * it flows.
 */
/** How long a stalled body may take to fail once destroyed, before its reader is told. */
const STALL_GRACE_MS = 100;

function endWhenIdle(body: ReadableBody, idleMs: number): void {
	const stream = body as unknown as {
		push: (...args: unknown[]) => boolean;
		once: (event: string, listener: () => void) => unknown;
		emit: (event: string, error: Error) => boolean;
		on: (event: string, listener: () => void) => unknown;
	};
	let lastPart = Date.now();
	const push = stream.push;
	stream.push = function (this: unknown, ...args: unknown[]) {
		lastPart = Date.now();
		return push.apply(this, args);
	};
	const ended = new AbortController();
	for (const event of ['end', 'close', 'error']) stream.once(event, () => ended.abort());
	void (async () => {
		while (!ended.signal.aborted) {
			const waitMs = lastPart + idleMs - Date.now();
			if (waitMs <= 0) {
				const error = Object.assign(
					new Error(`No data for ${idleMs} ms in the middle of an answer`),
					{ code: BODY_STALLED },
				);
				body.destroy?.(error);
				// A stream made from an async generator (axios' stream) cannot finish destroying
				// while its source waits for data that never comes: its reader is told directly.
				await sleep(STALL_GRACE_MS);
				if (!ended.signal.aborted) {
					// The destroy still ends with its own 'error' once the source gives up: by then
					// nobody listens, and an 'error' without a listener would crash n8n.
					stream.on('error', () => undefined);
					stream.emit('error', error);
				}
				return;
			}
			await sleep(waitMs, ended.signal).catch(() => undefined);
		}
	})();
}

/** A body that is not JSON, as describeBody shows it: its start, or that it was empty. */
function describeUnparsable(text: string): string | undefined {
	const trimmed = text.trim();
	return trimmed === '' ? undefined : trimmed.slice(0, 4096);
}

/** What the transport takes from a node run's credential (see FormsWtfClient). */
interface CredentialFacts {
	/** The base URL, or the error that it is not one (thrown when a request needs it). */
	baseUrl: string | NodeOperationError;
	/** Every form the API key can take on the wire (see secretForms). */
	secrets: string[];
}

async function readCredential(context: FormsWtfContext): Promise<CredentialFacts> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	return {
		baseUrl: checkBaseUrl(context, credentials.baseUrl),
		secrets: secretForms(credentials.apiKey),
	};
}

function checkBaseUrl(context: FormsWtfContext, value: unknown): string | NodeOperationError {
	const raw = typeof value === 'string' ? value.trim() : '';
	const baseUrl = raw.replace(/\/+$/, '');
	let url: URL | undefined;
	try {
		url = /^https?:\/\/[^/\s]+/i.test(baseUrl) ? new URL(baseUrl) : undefined;
	} catch {
		url = undefined;
	}
	const refuse = (message: string, description: string) =>
		new NodeOperationError(context.getNode(), message, { description });
	if (url === undefined) {
		return refuse(
			'The Base URL in the Forms.wtf credential is not a web address',
			'It must start with https:// (or http:// for a local server), for example https://forms.wtf/api/v1.',
		);
	}
	// A user name or password in the address would be sent as Basic auth in place of the key,
	// and a query would end up in the middle of every request's path; both may hold a secret,
	// so the address is shown without them.
	if (url.username !== '' || url.password !== '') {
		return refuse(
			'The Base URL in the Forms.wtf credential contains a user name or password',
			`Remove the part before "@": Forms.wtf needs only the API key, and a password in the address would be sent in place of it. Use ${displayUrl(url)}.`,
		);
	}
	if (/[?#]/.test(baseUrl)) {
		return refuse(
			'The Base URL in the Forms.wtf credential contains a query or a fragment',
			`Remove the part from "?" or "#" on: the address ends in /api/v1, for example ${displayUrl(url)}.`,
		);
	}
	return baseUrl;
}

/**
 * The URL of a path below the base URL. Each segment is URL-encoded and must stay exactly one
 * segment: `encodeURIComponent` leaves `.` alone, and a URL parser resolves `.` and `..` as
 * "here" and "one level up", and an empty segment would request another resource. Such a
 * segment is refused (helpers/parameters.ts refuses such form IDs earlier, with a message).
 */
export function buildUrl(baseUrl: string, path: string[]): string {
	const bad = path.find((segment) => !isSinglePathSegment(segment));
	if (bad !== undefined) throw new Error(`"${bad}" cannot be one segment of a URL path`);
	return `${baseUrl}/${path.map((segment) => encodeURIComponent(segment)).join('/')}`;
}

/** Whether a text, URL-encoded, is exactly one segment of a URL path. */
export function isSinglePathSegment(segment: string): boolean {
	return typeof segment === 'string' && segment !== '' && segment !== '.' && segment !== '..';
}

/**
 * Sends one request (a GET unless the request says otherwise), retrying what is worth retrying:
 * 429 (honouring Retry-After, never sooner than the policy's minDelayMs, bounded in count and in
 * total time), 5xx and dropped connections (a few times, with backoff). 400, 401, 403 and 404 are
 * never retried: the same request would fail the same way. With a deadline, no wait is started
 * that would end after it.
 */
async function sendWithRetries<B>(
	client: FormsWtfClient,
	request: ApiRequest,
	accept: string,
	readBody: (body: ReadableBody, idleMs: number) => Promise<B>,
): Promise<ApiResponse<B>> {
	const node = client.context.getNode();
	const timeoutMs = checkedTimeout(client.context, request);
	refuseInvalidPath(node, request);
	const baseUrl = await client.baseUrl();
	const secrets = await client.secretForms();
	const firstUrl = buildUrl(baseUrl, request.path);
	const sending: Sending = {
		client,
		request,
		node,
		baseUrl,
		secrets,
		options: httpOptions(firstUrl, request, accept),
		redirects: startRedirects(firstUrl, baseUrl, request.followsFileLinks === true),
		tally: { attempts: 0, serverErrors: 0, rateLimitRetries: 0, rateLimitWaitMs: 0 },
	};
	let redirected = false;
	for (;;) {
		if (request.signal?.aborted) throw new NodeOperationError(node, 'The request was cancelled');
		// A redirect followed is the same attempt, sent on to where the server pointed.
		if (!redirected) sending.tally.attempts++;
		const attemptTimeoutMs = attemptTimeout(timeoutMs, request.deadlineMs);
		const end = await sendAttempt(sending, attemptTimeoutMs, readBody);
		if (end.kind === 'success') return end.response;
		const next =
			end.kind === 'answered'
				? await afterUnsuccessfulStatus(sending, end.response, attemptTimeoutMs)
				: 'retry';
		redirected = next === 'redirected';
	}
}

/** One request as sendWithRetries sends it, across its attempts and the redirects it follows. */
interface Sending {
	client: FormsWtfClient;
	request: ApiRequest;
	node: INode;
	baseUrl: string;
	/** Every form of the API key, cut out of an error message the server sends. */
	secrets: readonly string[];
	/** What the next attempt sends; a redirect followed changes its address (see followRedirect). */
	options: IHttpRequestOptions;
	redirects: RedirectState;
	tally: RetryTally;
}

/** What one request has used so far of what its retry policy allows. */
interface RetryTally {
	/** Attempts made, this one included; a redirect followed is part of the attempt it ends. */
	attempts: number;
	/** Retries after a 5xx or a dropped connection: the policy bounds them together. */
	serverErrors: number;
	/** Retries after a 429. */
	rateLimitRetries: number;
	/** Time waited out after 429 answers, bounded by the policy's budget. */
	rateLimitWaitMs: number;
}

/** How one attempt ended, when it did not end the request with an error. */
type AttemptEnd<B> =
	/** A 2xx answer, its body read. */
	| { kind: 'success'; response: ApiResponse<B> }
	/** Any other status, its body not yet read (see afterUnsuccessfulStatus). */
	| { kind: 'answered'; response: IN8nHttpFullResponse }
	/** The connection failed in a way worth another attempt, and the backoff wait is over. */
	| { kind: 'retry' };

/** What to do after an answer that was not a 2xx, when it did not end the request. */
type NextStep = 'redirected' | 'retry';

function refuseInvalidPath(node: INode, request: ApiRequest): void {
	const badSegment = request.path.find((segment) => !isSinglePathSegment(segment));
	if (badSegment !== undefined) {
		throw new NodeOperationError(node, `"${badSegment}" is not a valid form ID`, {
			description:
				'A form ID cannot be empty, "." or "..". Pick the form from the list, or copy its ID again.',
			itemIndex: request.itemIndex,
		});
	}
}

/** What n8n's HTTP helper is asked to send, the attempt's timeout aside. */
function httpOptions(url: string, request: ApiRequest, accept: string): IHttpRequestOptions {
	// Always a stream: a JSON body is decoded as it arrives (see readText), a file is passed on.
	const options: IHttpRequestOptions = {
		method: request.method ?? 'GET',
		url,
		qs: request.qs,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// The transport follows redirects itself, and sends the key only to the Base URL's origin.
		disableFollowRedirect: true,
		headers: { Accept: accept },
	};
	if (request.body !== undefined) {
		options.body = JSON.stringify(request.body);
		options.headers = { ...options.headers, 'Content-Type': 'application/json' };
	}
	if (request.signal) options.abortSignal = request.signal;
	return options;
}

/**
 * Whether a request may be sent again after it failed with `connectionCode`, or with a 5xx when
 * there is no code. A POST that may have reached the service (it answered 5xx, or the
 * connection dropped after it was sent) may have made what it asked for: sent again, it would
 * make a second one. A refused connection never reached it.
 */
function maySendAgain(request: ApiRequest, connectionCode?: string): boolean {
	return (request.method ?? 'GET') !== 'POST' || connectionCode === 'ECONNREFUSED';
}

/**
 * n8n's HTTP client (as its HTTP Request node does): the time until the answer starts; and
 * ours, at most between two parts of the body. Never past a deadline by much.
 */
function attemptTimeout(timeoutMs: number, deadlineMs: number | undefined): number {
	return deadlineMs === undefined
		? timeoutMs
		: Math.min(timeoutMs, Math.max(MIN_DEADLINE_TIMEOUT_MS, deadlineMs - Date.now()));
}

/**
 * Sends the request once, and reads the body of a 2xx answer. A connection that fails (before
 * the answer, or while a 2xx body streams in) is retried here when the policy allows it, and is
 * the request's error when not.
 */
async function sendAttempt<B>(
	sending: Sending,
	attemptTimeoutMs: number,
	readBody: (body: ReadableBody, idleMs: number) => Promise<B>,
): Promise<AttemptEnd<B>> {
	const { client, request, node, tally } = sending;
	const { context, policy } = client;
	let response: IN8nHttpFullResponse;
	const sentAtMs = Date.now();
	try {
		const attempt: IHttpRequestOptions = { ...sending.options, timeout: attemptTimeoutMs };
		response = (
			sending.redirects.withKey
				? await context.helpers.httpRequestWithAuthentication.call(
						context,
						CREDENTIAL_TYPE,
						attempt,
					)
				: await context.helpers.httpRequest(attempt)
		) as IN8nHttpFullResponse;
		client.firstAnswerAtMs ??= serviceTimeMs(response.headers);
		if (response.statusCode >= 200 && response.statusCode < 300) {
			// A connection dropped while the body streams in fails here, and is retried like
			// one dropped before the answer.
			const body = await readBody(response.body as unknown as ReadableBody, attemptTimeoutMs);
			return {
				kind: 'success',
				response: { body, headers: response.headers, statusCode: response.statusCode, sentAtMs },
			};
		}
	} catch (error) {
		const code = connectionErrorCode(error) ?? 'unknown error';
		if (
			request.deadlineMs !== undefined &&
			isTimeoutCode(code) &&
			Date.now() >= request.deadlineMs
		) {
			throw errorForDeadline(node, { kind: 'connection', code }, request, tally.attempts);
		}
		if (
			isRetryableConnectionCode(code) &&
			maySendAgain(request, code) &&
			tally.serverErrors < policy.maxServerErrorRetries
		) {
			const waitMs = backoffDelayMs(policy, tally.serverErrors++);
			await waitOrGiveUp(sending, waitMs, { kind: 'connection', code });
			return { kind: 'retry' };
		}
		throw errorForConnection(node, code, sending.baseUrl, request, {
			attempts: tally.attempts,
			timeoutMs: attemptTimeoutMs,
		});
	}
	return { kind: 'answered', response };
}

/**
 * Follows a redirect, or waits before retrying a 429 or a 5xx the policy allows another attempt
 * for; any other answer ends the request with the error its status means, quoting the API's
 * own message.
 */
async function afterUnsuccessfulStatus(
	sending: Sending,
	response: IN8nHttpFullResponse,
	attemptTimeoutMs: number,
): Promise<NextStep> {
	const { client, request, tally } = sending;
	const { policy } = client;
	const status = response.statusCode;
	if (isRedirectStatus(status)) {
		followRedirect(sending, response);
		return 'redirected';
	}
	if (status === 429) {
		const waitMs = rateLimitDelayMs(
			policy,
			headerValue(response.headers, 'retry-after'),
			tally.rateLimitRetries,
		);
		if (
			tally.rateLimitRetries < policy.maxRateLimitRetries &&
			tally.rateLimitWaitMs + waitMs <= rateLimitBudgetMs(policy)
		) {
			discardBody(response.body);
			tally.rateLimitRetries++;
			tally.rateLimitWaitMs += waitMs;
			await waitOrGiveUp(sending, waitMs, { kind: 'rateLimit', askedMs: waitMs });
			return 'retry';
		}
	} else if (
		status >= 500 &&
		maySendAgain(request) &&
		tally.serverErrors < policy.maxServerErrorRetries
	) {
		discardBody(response.body);
		const waitMs = backoffDelayMs(policy, tally.serverErrors++);
		await waitOrGiveUp(sending, waitMs, { kind: 'serverError', status });
		return 'retry';
	}

	const apiMessage = await readApiErrorMessage(response.body, attemptTimeoutMs, sending.secrets);
	throw errorForStatus(sending.node, status, request, {
		attempts: tally.attempts,
		sentParameters: Object.keys(request.qs ?? {}),
		apiMessage,
		waitedSeconds: Math.round(tally.rateLimitWaitMs / 1000),
	});
}

/**
 * Points the next send at where a redirect leads (the same attempt), or refuses a redirect
 * that leads where the key must not go, in a loop, or nowhere (see redirects.ts).
 */
function followRedirect(sending: Sending, response: IN8nHttpFullResponse): void {
	const status = response.statusCode;
	discardBody(response.body);
	const hop = nextHop(sending.redirects, status, headerValue(response.headers, 'location'));
	if (!('url' in hop)) {
		throw errorForRedirect(sending.node, hop, new URL(sending.baseUrl).host, sending.request);
	}
	// The address the server gave carries its own query.
	sending.options.url = hop.url;
	delete sending.options.qs;
}

/** Waits `ms` before the next attempt, or fails at once if that would pass the deadline. */
async function waitOrGiveUp(sending: Sending, ms: number, reason: DeadlineReason): Promise<void> {
	const { request } = sending;
	if (request.deadlineMs !== undefined && Date.now() + ms > request.deadlineMs)
		throw errorForDeadline(sending.node, reason, request, sending.tally.attempts);
	// A wait ends early only when the signal stops it; the attempt loop then sees the signal.
	await sending.client.policy.wait(ms, request.signal).catch(() => undefined);
}

/**
 * The Timeout of a request, refused when Node's timers cannot hold it (they fire at once for
 * 2^31 ms or more) or it is not a number of 1 ms or more. helpers/parameters.ts refuses the
 * node's Timeout option the same way, with the field's name.
 */
function checkedTimeout(context: FormsWtfContext, request: ApiRequest): number {
	const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	if (!Number.isFinite(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
		throw new NodeOperationError(
			context.getNode(),
			`Timeout must be at most ${MAX_TIMEOUT_MS} ms (about 24 days)`,
			{
				description: `Got ${String(timeoutMs)} ms. Give a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}; the default is ${DEFAULT_TIMEOUT_MS}.`,
				itemIndex: request.itemIndex,
			},
		);
	}
	return timeoutMs;
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
		if (typeof candidate.code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(candidate.code))
			return candidate.code;
		if (typeof candidate.message === 'string' && /socket hang up/i.test(candidate.message))
			return 'ECONNRESET';
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
async function* chunksWithIdleTimeout(
	body: ReadableBody,
	idleMs: number,
	untilMs?: number,
): AsyncGenerator<unknown, void, undefined> {
	const chunks = body[Symbol.asyncIterator]();
	const stalled = () =>
		Object.assign(new Error(`No data for ${idleMs} ms in the middle of an answer`), {
			code: BODY_STALLED,
		});
	for (;;) {
		const stopWaiting = new AbortController();
		// Past `untilMs` (the caller's deadline) the body counts as stalled, however it trickles.
		const waitMs =
			untilMs === undefined ? idleMs : Math.max(0, Math.min(idleMs, untilMs - Date.now()));
		const timedOut = sleep(waitMs, stopWaiting.signal).then(
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
async function readText(
	body: unknown,
	idleMs: number,
	maxBytes = Number.POSITIVE_INFINITY,
	untilMs?: number,
): Promise<string> {
	if (typeof body === 'string') return body;
	if (!isReadable(body)) return Buffer.isBuffer(body) ? body.toString('utf8') : '';
	const decoder = new TextDecoder();
	let text = '';
	let size = 0;
	for await (const chunk of chunksWithIdleTimeout(body, idleMs, untilMs)) {
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
	return (
		!!body &&
		typeof (body as ReadableBody).pipe === 'function' &&
		typeof (body as ReadableBody).on === 'function'
	);
}

const MAX_ERROR_BODY_BYTES = 64 * 1024;

const MAX_API_MESSAGE_CHARS = 500;

/**
 * The `error` text of an error body, with every form of the API key cut out should the server
 * echo it, before the text is shortened (a cut first could leave the start of the key). Left
 * out when the key is too short to cut out safely.
 */
async function readApiErrorMessage(
	body: unknown,
	idleMs: number,
	secrets: readonly string[],
): Promise<string | undefined> {
	let text: string;
	try {
		text = await readText(body, idleMs, MAX_ERROR_BODY_BYTES);
	} catch {
		// The status says what went wrong; a body that stalls or drops adds nothing to it.
		return undefined;
	}
	let message: string | undefined;
	try {
		const parsed = JSON.parse(text) as { error?: unknown } | null;
		if (parsed !== null && typeof parsed === 'object' && typeof parsed.error === 'string')
			message = parsed.error;
	} catch {
		message = undefined;
	}
	if (message === undefined || !canQuoteServerText(secrets)) return undefined;
	return shorten(redactAll(message, secrets), MAX_API_MESSAGE_CHARS);
}
