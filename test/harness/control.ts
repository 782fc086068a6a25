/* eslint-disable
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The control API under /__harness: no auth, no rate limit, no faults, not logged. Tests in
 * this process and scripts in other processes drive the harness through it (client.ts wraps
 * every route), so both use the same calls.
 */
import type { IncomingMessage, ServerResponse } from 'http';
import { toFormInfo } from './data';
import { HarnessInputError } from './errors';
import { parseFaultSpec } from './faults';
import { parseHookSpec } from './hooks';
import { readJsonBody, sendError, sendJson, type RequestTarget } from './http';
import { HARNESS_KEYS } from './keys';
import { parseSettingsPatch, type HarnessState } from './state';
import { parseWebhookSpec } from './webhooks';
import type { Answer, HarnessInfo, JsonValue, ResponseDraft, ResponseUpdate } from './types';

export const CONTROL_PREFIX = '/__harness';
const MAX_SUBMIT = 100_000;

export interface ControlContext {
	baseUrl: string;
	controlUrl: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(o: Record<string, unknown>, name: string): string | undefined {
	const v = o[name];
	if (v !== undefined && typeof v !== 'string')
		throw new HarnessInputError(`${name} must be a string`);
	return v;
}

function parseAnswers(value: unknown): Answer[] | undefined {
	if (value === undefined) return undefined;
	if (!Array.isArray(value)) throw new HarnessInputError('answers must be an array');
	return value.map((a: unknown, i) => {
		if (
			!isRecord(a) ||
			typeof a.questionId !== 'string' ||
			typeof a.questionLabel !== 'string' ||
			!('value' in a)
		) {
			throw new HarnessInputError(
				`answers[${i}] must be { questionId: string, questionLabel: string, value }`,
			);
		}
		return {
			questionId: a.questionId,
			questionLabel: a.questionLabel,
			value: a.value as JsonValue,
		};
	});
}

/** Fields shared by drafts and updates; unknown fields are refused so typos do not pass silently. */
function parseResponseFields(input: unknown, allowed: string[]): ResponseUpdate & { id?: string } {
	if (!isRecord(input)) throw new HarnessInputError('a response must be a JSON object');
	for (const name of Object.keys(input)) {
		if (!allowed.includes(name)) throw new HarnessInputError(`unknown response field ${name}`);
	}
	const out: ResponseUpdate & { id?: string } = {};
	const id = optionalString(input, 'id');
	if (id !== undefined) out.id = id;
	const walletAddress = optionalString(input, 'walletAddress');
	if (walletAddress !== undefined) out.walletAddress = walletAddress;
	if (input.ensName !== undefined) {
		if (input.ensName !== null && typeof input.ensName !== 'string')
			throw new HarnessInputError('ensName must be a string or null');
		out.ensName = input.ensName;
	}
	const submittedAt = optionalString(input, 'submittedAt');
	if (submittedAt !== undefined) out.submittedAt = submittedAt;
	if (input.durationSeconds !== undefined) {
		if (typeof input.durationSeconds !== 'number' || !Number.isFinite(input.durationSeconds)) {
			throw new HarnessInputError('durationSeconds must be a number');
		}
		out.durationSeconds = input.durationSeconds;
	}
	const answers = parseAnswers(input.answers);
	if (answers !== undefined) out.answers = answers;
	return out;
}

const DRAFT_FIELDS = [
	'id',
	'walletAddress',
	'ensName',
	'submittedAt',
	'durationSeconds',
	'answers',
];
const UPDATE_FIELDS = DRAFT_FIELDS.filter((f) => f !== 'id');

/** `{ responses: [draft, …] }` or `{ count, submittedAt? }` (count drafts sharing one timestamp). */
function parseSubmit(body: unknown): ResponseDraft[] {
	if (!isRecord(body)) throw new HarnessInputError('body must be a JSON object');
	if (Array.isArray(body.responses)) {
		if (body.responses.length > MAX_SUBMIT)
			throw new HarnessInputError(`at most ${MAX_SUBMIT} responses per call`);
		return body.responses.map((d) => parseResponseFields(d, DRAFT_FIELDS));
	}
	const { count, submittedAt } = body;
	if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_SUBMIT) {
		throw new HarnessInputError(
			`body must be { responses: [...] } or { count: 1..${MAX_SUBMIT}, submittedAt? }`,
		);
	}
	if (submittedAt !== undefined && typeof submittedAt !== 'string')
		throw new HarnessInputError('submittedAt must be a string');
	return Array.from({ length: count }, () => (submittedAt === undefined ? {} : { submittedAt }));
}

export async function handleControl(
	state: HarnessState,
	context: ControlContext,
	req: IncomingMessage,
	target: RequestTarget,
	res: ServerResponse,
): Promise<void> {
	const method = req.method ?? 'GET';
	// segments: ['__harness', …]
	const route = (target.segments ?? []).slice(1);
	const name = route[0] ?? '';
	try {
		if (name === 'info' && route.length === 1 && method === 'GET') {
			const info: HarnessInfo = {
				...context,
				keys: HARNESS_KEYS,
				seed: state.seed,
				settings: state.settings,
			};
			return sendJson(res, 200, info);
		}
		if (name === 'forms' && route.length === 1 && method === 'GET') {
			return sendJson(res, 200, { forms: state.dataset.forms.map(toFormInfo) });
		}
		if (name === 'forms' && route.length >= 3 && route[2] === 'responses') {
			const form = state.dataset.byId.get(route[1]);
			if (form === undefined) return sendError(res, 404, `no form with id ${route[1]}`);
			if (route.length === 3 && method === 'POST') {
				const drafts = parseSubmit(await readJsonBody(req));
				const responses = form.store.insert(drafts, state.nowMs());
				state.webhooks.submitted(form, responses);
				return sendJson(res, 201, { responses });
			}
			if (route.length === 4 && method === 'PATCH') {
				const patch = parseResponseFields(await readJsonBody(req), UPDATE_FIELDS);
				const updated = form.store.update(route[3], patch, state.nowMs());
				if (updated === null)
					return sendError(res, 404, `form ${form.id} has no response with id ${route[3]}`);
				return sendJson(res, 200, { response: updated });
			}
		}
		if (name === 'webhooks' && route.length === 1) {
			if (method === 'GET')
				return sendJson(res, 200, {
					webhooks: state.webhooks.list(),
					deliveries: state.webhooks.deliveryLog(),
				});
			if (method === 'POST') {
				const spec = parseWebhookSpec(await readJsonBody(req));
				if (!state.dataset.byId.has(spec.formId))
					return sendError(res, 404, `no form with id ${spec.formId}`);
				return sendJson(res, 201, { webhook: state.webhooks.add(spec, 'control', state.nowMs()) });
			}
			if (method === 'DELETE') {
				state.webhooks.clear();
				return sendJson(res, 200, { webhooks: [] });
			}
		}
		if (name === 'faults' && route.length === 1) {
			if (method === 'GET') return sendJson(res, 200, { faults: state.faults.list() });
			if (method === 'POST')
				return sendJson(res, 201, {
					fault: state.faults.add(parseFaultSpec(await readJsonBody(req))),
				});
			if (method === 'DELETE') {
				state.faults.clear();
				return sendJson(res, 200, { faults: [] });
			}
		}
		if (name === 'hooks' && route.length === 1) {
			if (method === 'GET')
				return sendJson(res, 200, { hooks: state.hooks.list(), fired: state.hooks.firedCount() });
			if (method === 'POST')
				return sendJson(res, 201, {
					hook: state.hooks.add(parseHookSpec(await readJsonBody(req))),
				});
			if (method === 'DELETE') {
				state.hooks.clear();
				return sendJson(res, 200, { hooks: [] });
			}
		}
		if (
			name === 'rate-limit' &&
			route[1] === 'advance' &&
			route.length === 2 &&
			method === 'POST'
		) {
			const body = await readJsonBody(req);
			const ms = isRecord(body) ? body.ms : undefined;
			if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
				throw new HarnessInputError('ms must be a number >= 0');
			state.limiter.advanceClock(ms);
			return sendJson(res, 200, { ok: true });
		}
		if (name === 'requests' && route.length === 1) {
			if (method === 'GET') return sendJson(res, 200, { requests: state.log.list() });
			if (method === 'DELETE') {
				state.log.clear();
				return sendJson(res, 200, { requests: [] });
			}
		}
		if (name === 'settings' && route.length === 1) {
			if (method === 'GET') return sendJson(res, 200, { settings: state.settings });
			if (method === 'PATCH') {
				return sendJson(res, 200, {
					settings: state.updateSettings(parseSettingsPatch(await readJsonBody(req))),
				});
			}
		}
		if (name === 'reset' && route.length === 1 && method === 'POST') {
			await state.reset();
			return sendJson(res, 200, { ok: true });
		}
		return sendError(res, 404, `no control route ${method} ${target.path}`);
	} catch (error) {
		if (error instanceof HarnessInputError) return sendError(res, 400, error.message);
		throw error;
	}
}
