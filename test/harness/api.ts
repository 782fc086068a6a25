/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The forms.wtf API under /api/v1, as the contract describes it, and the management endpoints
 * of the service notes (manage.ts). The checks run in this order, each answering with the
 * contract's status and a JSON `{ "error" }` body:
 *   method other than GET/POST/PUT/DELETE (405) → Authorization (401) → rate limit (429)
 *   → plan below Team (403) → route (404) → method of the route (405) → form of another
 *   account or unknown (404) → query or body (400) → plan of the feature (403).
 */
import type { IncomingMessage, ServerResponse } from 'http';
import { Readable, pipeline } from 'stream';
import { ByteWriter } from './byteWriter';
import { toSummary, type HarnessForm } from './data';
import {
	EXPORT_FORMATS,
	csvChunks,
	exportHeaders,
	jsonChunks,
	merkleChunks,
	type ExportFormat,
} from './exports';
import { sendBody, sendError, sendJson, type RequestTarget } from './http';
import { HarnessInputError } from './errors';
import { authenticate, planAtLeast } from './keys';
import {
	createForm,
	deleteForm,
	deleteWebhook,
	formWebhooks,
	sendAccount,
	updateForm,
} from './manage';
import { retryAfterSeconds } from './rateLimit';
import type { HarnessState } from './state';
import type { Plan } from './types';

export const API_PREFIX = '/api/v1';

/** What the server learns while handling a request, for the request log. */
export interface ApiOutcome {
	plan: Plan | null;
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const DIGITS = /^[0-9]+$/;

/** Each route of the API and the methods it answers; any other method gets 405 with Allow. */
const ROUTE_METHODS: Array<{ route: RegExp; methods: string[] }> = [
	{ route: /^account$/, methods: ['GET'] },
	{ route: /^forms$/, methods: ['GET', 'POST'] },
	{ route: /^forms\/[^/]+$/, methods: ['GET', 'PUT', 'DELETE'] },
	{ route: /^forms\/[^/]+\/(responses|export)$/, methods: ['GET'] },
	{ route: /^forms\/[^/]+\/webhooks$/, methods: ['GET', 'POST'] },
	{ route: /^forms\/[^/]+\/webhooks\/[^/]+$/, methods: ['DELETE'] },
];
const KNOWN_METHODS = ['GET', 'POST', 'PUT', 'DELETE'];

/** The methods a route (segments after /api/v1) answers; null for an unknown route. */
function methodsOf(route: string[]): string[] | null {
	// Segments are matched one by one: an encoded "/" inside an id never makes another route.
	if (route.some((segment) => segment === '' || segment.includes('/'))) return null;
	return ROUTE_METHODS.find((entry) => entry.route.test(route.join('/')))?.methods ?? null;
}

export function handleApi(
	state: HarnessState,
	req: IncomingMessage,
	target: RequestTarget,
	res: ServerResponse,
	outcome: ApiOutcome,
): void {
	const method = req.method ?? 'GET';
	if (!KNOWN_METHODS.includes(method)) {
		sendError(res, 405, `Method ${method} not allowed`, { Allow: KNOWN_METHODS.join(', ') });
		return;
	}
	const auth = authenticate(req.headers.authorization);
	if (!auth.ok) {
		sendError(res, 401, auth.message);
		return;
	}
	outcome.plan = auth.plan;

	const decision = state.limiter.check(auth.key);
	if (!decision.allowed) {
		const headers: Record<string, string> = state.settings.retryAfterHeader
			? {
					'Retry-After': String(retryAfterSeconds(decision.retryAfterMs, decision.limit.timeScale)),
				}
			: {};
		const { requests, windowMs } = decision.limit;
		sendError(
			res,
			429,
			`Rate limit exceeded: ${requests} requests per ${windowMs / 1000} s per API key`,
			headers,
		);
		return;
	}
	if (!planAtLeast(auth.plan, 'team')) {
		sendError(
			res,
			403,
			"Your plan doesn't include API access; the API is available on the Team plan and above",
		);
		return;
	}

	// segments start after the leading slash: ['api', 'v1', 'forms', …]
	const route = target.segments === null ? null : target.segments.slice(2);
	const methods = route === null ? null : methodsOf(route);
	if (route === null || methods === null) {
		sendError(res, 404, 'Not found');
		return;
	}
	if (!methods.includes(method)) {
		sendError(res, 405, `Method ${method} not allowed here`, { Allow: methods.join(', ') });
		return;
	}
	routeRequest(state, { method, route, plan: auth.plan, req, query: target.query }, res).catch(
		(error: unknown) => {
			if (res.headersSent) return;
			if (error instanceof HarnessInputError) sendError(res, error.status, error.message);
			else sendError(res, 500, `Harness error: ${(error as Error).message}`);
		},
	);
}

interface ApiCall {
	method: string;
	/** Segments after /api/v1, already matched against ROUTE_METHODS. */
	route: string[];
	plan: Plan;
	req: IncomingMessage;
	query: URLSearchParams;
}

async function routeRequest(
	state: HarnessState,
	call: ApiCall,
	res: ServerResponse,
): Promise<void> {
	const { method, route, plan, req } = call;
	if (route[0] === 'account') return sendAccount(state, plan, res);
	if (route.length === 1) {
		if (method === 'POST') return await createForm(state, req, res);
		return listForms(state, res);
	}
	const form = state.dataset.byId.get(route[1]);
	// A form of another account is reported exactly like a form that does not exist.
	if (form === undefined || form.owner !== 'demo') return sendError(res, 404, 'Form not found');
	if (route.length === 2) {
		if (method === 'PUT') return await updateForm(state, form, plan, req, res);
		if (method === 'DELETE') return deleteForm(state, form, res);
		return sendJson(res, 200, form.detail);
	}
	if (route[2] === 'responses') return listResponses(state, form, call.query, res);
	if (route[2] === 'export') return exportResponses(state, form, plan, call.query, res);
	if (route.length === 3) return await formWebhooks(state, form, plan, method, req, res);
	deleteWebhook(state, form, plan, route[3], res);
}

function listForms(state: HarnessState, res: ServerResponse): void {
	const forms = state.dataset.forms.filter((f) => f.owner === 'demo').map(toSummary);
	sendJson(res, 200, { forms });
}

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

function parseLimit(raw: string | null): Parsed<number> {
	if (raw === null) return { ok: true, value: DEFAULT_LIMIT };
	const n = DIGITS.test(raw) ? Number(raw) : NaN;
	if (!(n >= 1 && n <= MAX_LIMIT))
		return { ok: false, message: `limit must be an integer from 1 to ${MAX_LIMIT}` };
	return { ok: true, value: n };
}

function parseOffset(raw: string | null): Parsed<number> {
	if (raw === null) return { ok: true, value: 0 };
	if (!DIGITS.test(raw)) return { ok: false, message: 'offset must be a non-negative integer' };
	return { ok: true, value: Number(raw) };
}

/** Any string Date.parse accepts (ISO 8601 recommended); compared at millisecond precision. */
function parseSince(raw: string | null): Parsed<number | null> {
	if (raw === null) return { ok: true, value: null };
	const ms = Date.parse(raw);
	if (Number.isNaN(ms))
		return { ok: false, message: 'since must be a date, e.g. 2025-01-31T12:00:00.000Z' };
	return { ok: true, value: ms };
}

function listResponses(
	state: HarnessState,
	form: HarnessForm,
	query: URLSearchParams,
	res: ServerResponse,
): void {
	const limit = parseLimit(query.get('limit'));
	if (!limit.ok) return sendError(res, 400, limit.message);
	const offset = parseOffset(query.get('offset'));
	if (!offset.ok) return sendError(res, 400, offset.message);
	const since = parseSince(query.get('since'));
	if (!since.ok) return sendError(res, 400, since.message);
	const cap = state.settings.pageSizeCap;
	const page = form.store.page({
		offset: offset.value,
		limit: cap === false ? limit.value : Math.min(cap, limit.value),
		sinceMs: since.value,
		sinceInclusive: state.settings.sinceInclusive,
		order: state.settings.responseOrder,
	});
	// Built straight into bytes: the hot path of every benchmark (see byteWriter.ts).
	const out = new ByteWriter(page.records.length * 1024 + 64);
	out.write('{"responses":[');
	for (let i = 0; i < page.records.length; i++) {
		out.write(i === 0 ? form.store.json(page.records[i]) : ',' + form.store.json(page.records[i]));
	}
	out.write(`],"total":${page.total},"hasMore":${page.hasMore}}`);
	sendBody(res, 200, out.finish());
}

function exportResponses(
	state: HarnessState,
	form: HarnessForm,
	plan: Plan,
	query: URLSearchParams,
	res: ServerResponse,
): void {
	const raw = query.get('format');
	const format = (raw ?? 'csv') as ExportFormat;
	if (!EXPORT_FORMATS.includes(format)) {
		sendError(res, 400, `format must be one of ${EXPORT_FORMATS.join(', ')}`);
		return;
	}
	const order = state.settings.responseOrder;
	if (format === 'merkle') {
		if (!planAtLeast(plan, 'business')) {
			sendError(
				res,
				403,
				'Merkle export requires the Business plan; your plan does not include it',
			);
			return;
		}
		state.merkle.build(form, order).then(
			(result) => {
				if (result.kind === 'empty') {
					sendError(
						res,
						400,
						'Cannot build a Merkle tree: no response of this form has a hex wallet address',
					);
				} else if (result.kind === 'tooLarge') {
					sendError(
						res,
						500,
						`Harness limit: merkle export hashes at most ${result.limit} wallets (option merkleMaxLeaves)`,
					);
				} else {
					stream(res, format, form.detail.slug, merkleChunks(result.dump));
				}
			},
			(error: unknown) => sendError(res, 500, `Merkle export failed: ${(error as Error).message}`),
		);
		return;
	}
	stream(
		res,
		format,
		form.detail.slug,
		format === 'csv' ? csvChunks(form, order) : jsonChunks(form, order),
	);
}

function stream(
	res: ServerResponse,
	format: ExportFormat,
	slug: string,
	chunks: Generator<Buffer>,
): void {
	if (res.destroyed) return;
	res.writeHead(200, exportHeaders(format, slug));
	// Readable.from pulls the next chunk only when the socket has room: backpressure end to end.
	pipeline(Readable.from(chunks, { objectMode: false }), res, () => {
		// A client that disconnects mid-export ends the pipeline; nothing to clean up beyond that.
	});
}
