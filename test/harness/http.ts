/* eslint-disable
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/** Small helpers over node:http shared by the API and the control routes. */
import type { IncomingMessage, ServerResponse } from 'http';
import { HarnessInputError } from './errors';

export function sendBody(
	res: ServerResponse,
	status: number,
	body: Buffer | string,
	headers: Record<string, string | number> = {},
): void {
	const bytes = typeof body === 'string' ? Buffer.from(body) : body;
	res.writeHead(status, {
		'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': bytes.length,
		...headers,
	});
	res.end(bytes);
}

export function sendJson(
	res: ServerResponse,
	status: number,
	value: unknown,
	headers: Record<string, string | number> = {},
): void {
	sendBody(res, status, JSON.stringify(value), headers);
}

/** Every error of the API and of the control routes is `{ "error": "…" }`. */
export function sendError(
	res: ServerResponse,
	status: number,
	message: string,
	headers: Record<string, string | number> = {},
): void {
	sendJson(res, status, { error: message }, headers);
}

export interface RequestTarget {
	/** Path as sent, without the query string. */
	path: string;
	/**
	 * Path segments, each percent-decoded on its own: `/forms/a%2Fb` is the one segment "a/b",
	 * so an encoded id can never be mistaken for another route. Null if an escape is malformed.
	 */
	segments: string[] | null;
	query: URLSearchParams;
}

export function parseTarget(url: string): RequestTarget {
	const mark = url.indexOf('?');
	const path = mark < 0 ? url : url.slice(0, mark);
	const query = new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
	let segments: string[] | null;
	try {
		segments = path
			.split('/')
			.slice(1)
			.map((s) => decodeURIComponent(s));
	} catch {
		segments = null;
	}
	return { path, segments, query };
}

/** Query as a plain object for the request log; a repeated name becomes an array. */
export function queryObject(query: URLSearchParams): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = {};
	for (const [name, value] of query) {
		const existing = out[name];
		if (existing === undefined) out[name] = value;
		else out[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
	}
	return out;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Reads and parses a JSON request body; an empty body is `{}`. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		const buffer = chunk as Buffer;
		size += buffer.length;
		if (size > MAX_BODY_BYTES)
			throw new HarnessInputError(`request body is larger than ${MAX_BODY_BYTES} bytes`);
		chunks.push(buffer);
	}
	const text = Buffer.concat(chunks).toString('utf8').trim();
	if (text === '') return {};
	try {
		return JSON.parse(text) as unknown;
	} catch {
		throw new HarnessInputError('request body is not valid JSON');
	}
}
