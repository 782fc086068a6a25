/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The endpoints the contract leaves "not shown" and the service's official MCP server called
 * (service-notes.md, "The rest of the service's API"): a form's webhooks, creating, changing
 * and deleting forms, and the account. Their answers' shapes are not public either: the
 * `answerShape` setting picks an envelope (`{ "webhook": {…} }`) or the bare value, so clients
 * are tested against both.
 *
 * Plan rules, as the service describes them: webhooks need Team, a custom slug Pro. Every key
 * the API lets in is Team or above (api.ts answers 403 before), so both rules hold for every
 * caller; they are checked here all the same, where the service checks them.
 */
import type { IncomingMessage, ServerResponse } from 'http';

import type { HarnessForm } from './data';
import { toSummary } from './data';
import { HarnessInputError } from './errors';
import { ResponseGenerator } from './generator';
import { readJsonBody, sendBody, sendError, sendJson } from './http';
import { planAtLeast } from './keys';
import { hash32, hashString } from './prng';
import { ResponseStore } from './responseStore';
import type { HarnessState } from './state';
import {
	QUESTION_TYPES,
	type GateRule,
	type Plan,
	type Question,
	type QuestionType,
} from './types';
import type { HarnessWebhook } from './webhooks';

/** What each plan may have, as `GET /account` reports it (the harness's own figures). */
const PLAN_LIMITS: Record<Plan, { forms: number | null; aiGenerationsPerMonth: number }> = {
	free: { forms: 3, aiGenerationsPerMonth: 3 },
	pro: { forms: 50, aiGenerationsPerMonth: 50 },
	team: { forms: null, aiGenerationsPerMonth: 200 },
	business: { forms: null, aiGenerationsPerMonth: 1000 },
};

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const OPTION_TYPES: ReadonlySet<string> = new Set(['MULTIPLE_CHOICE', 'DROPDOWN', 'CHECKBOX']);

let createdForms = 0;

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object in its envelope (`{ name: value }`) or bare, as the `answerShape` setting says. */
function sendShaped(
	state: HarnessState,
	res: ServerResponse,
	status: number,
	name: string,
	value: unknown,
): void {
	sendJson(res, status, state.settings.answerShape === 'bare' ? value : { [name]: value });
}

function sendDeleted(state: HarnessState, res: ServerResponse): void {
	if (state.settings.answerShape === 'bare') sendBody(res, 204, '');
	else sendJson(res, 200, { success: true });
}

async function readObject(req: IncomingMessage): Promise<Record<string, unknown>> {
	const body = await readJsonBody(req);
	if (!isRecord(body)) throw new HarnessInputError('the body must be a JSON object');
	return body;
}

function textOf(o: Record<string, unknown>, name: string, min: number, max: number): string {
	const value = o[name];
	if (typeof value !== 'string' || value.trim().length < min || value.length > max)
		throw new HarnessInputError(`${name} must be a string of ${min} to ${max} characters`);
	return value;
}

export function webhookView(webhook: HarnessWebhook): Record<string, unknown> {
	return {
		id: webhook.apiId,
		formId: webhook.formId,
		url: webhook.url,
		enabled: webhook.enabled,
		createdAt: webhook.createdAt,
	};
}

/** `GET /account`: the plan, its limits and what the account uses of them. */
export function sendAccount(state: HarnessState, plan: Plan, res: ServerResponse): void {
	const forms = state.dataset.forms.filter((form) => form.owner === 'demo').length;
	sendShaped(state, res, 200, 'account', {
		plan,
		limits: { ...PLAN_LIMITS[plan], webhooks: planAtLeast(plan, 'team') },
		usage: { forms, aiGenerationsThisMonth: 0 },
	});
}

/** `GET` and `POST /forms/:id/webhooks`. */
export async function formWebhooks(
	state: HarnessState,
	form: HarnessForm,
	plan: Plan,
	method: string,
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	if (!planAtLeast(plan, 'team'))
		return sendError(res, 403, 'Webhooks require the Team plan; your plan does not include them');
	if (method === 'GET') {
		const webhooks = state.webhooks.list().filter((webhook) => webhook.formId === form.id);
		return sendShaped(state, res, 200, 'webhooks', webhooks.map(webhookView));
	}
	const body = await readObject(req);
	const url = body.url;
	if (typeof url !== 'string' || !/^https?:\/\/[^/\s]+/i.test(url))
		return sendError(res, 400, 'url must be an http(s) URL');
	if (state.settings.webhookUrls === 'https' && !/^https:\/\//i.test(url))
		return sendError(res, 400, 'url must be a public https URL');
	if (body.secret !== undefined && body.secret !== null && typeof body.secret !== 'string')
		return sendError(res, 400, 'secret must be a string');
	if (body.enabled !== undefined && typeof body.enabled !== 'boolean')
		return sendError(res, 400, 'enabled must be a boolean');
	const webhook = state.webhooks.add(
		{
			formId: form.id,
			url,
			...(typeof body.secret === 'string' ? { secret: body.secret } : {}),
			...(typeof body.enabled === 'boolean' ? { enabled: body.enabled } : {}),
		},
		'api',
		state.nowMs(),
	);
	sendShaped(state, res, 201, 'webhook', webhookView(webhook));
}

/** `DELETE /forms/:id/webhooks/:webhookId`. */
export function deleteWebhook(
	state: HarnessState,
	form: HarnessForm,
	plan: Plan,
	webhookId: string,
	res: ServerResponse,
): void {
	if (!planAtLeast(plan, 'team'))
		return sendError(res, 403, 'Webhooks require the Team plan; your plan does not include them');
	if (!state.webhooks.remove(form.id, webhookId)) return sendError(res, 404, 'Webhook not found');
	sendDeleted(state, res);
}

function slugFrom(state: HarnessState, title: string): string {
	const base =
		title
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, '-')
			.replace(/^-+|-+$/g, '')
			.slice(0, 48) || 'form';
	const taken = new Set(state.dataset.forms.map((form) => form.detail.slug));
	let slug = base;
	for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
	return slug;
}

function newStore(state: HarnessState, formId: string, questions: Question[]): ResponseStore {
	const generator = new ResponseGenerator(hash32(state.seed, hashString(formId)), questions);
	return new ResponseStore(generator, new Float64Array(0));
}

/** `POST /forms`: a new empty, unpublished form of the demo account. */
export async function createForm(
	state: HarnessState,
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	const body = await readObject(req);
	const title = textOf(body, 'title', 1, 200);
	const description =
		body.description === undefined || body.description === null
			? null
			: textOf(body, 'description', 0, 1000);
	createdForms++;
	const id = `c${'api'}${String(createdForms).padStart(21, '0')}`;
	const nowIso = new Date(state.nowMs()).toISOString();
	const form: HarnessForm = {
		id,
		fixture: `created-${createdForms}`,
		owner: 'demo',
		workspace: 'personal',
		createdAt: nowIso,
		updatedAt: nowIso,
		detail: {
			id,
			title,
			description,
			slug: slugFrom(state, title),
			published: false,
			questions: [],
			gateRules: [],
		},
		store: newStore(state, id, []),
	};
	// Newest created first, as the listing orders forms.
	state.dataset.forms.unshift(form);
	state.dataset.byId.set(id, form);
	sendShaped(state, res, 201, 'form', formView(form));
}

/** A form as the API shows it after a change: its detail and its summary's fields. */
function formView(form: HarnessForm): Record<string, unknown> {
	return { ...toSummary(form), ...form.detail };
}

/** `DELETE /forms/:id`: the form, its responses and its webhooks. */
export function deleteForm(state: HarnessState, form: HarnessForm, res: ServerResponse): void {
	state.dataset.forms = state.dataset.forms.filter((candidate) => candidate !== form);
	state.dataset.byId.delete(form.id);
	state.webhooks.removeForm(form.id);
	sendDeleted(state, res);
}

/** `PUT /forms/:id`: only the fields given change; `questions` replaces the whole list. */
export async function updateForm(
	state: HarnessState,
	form: HarnessForm,
	plan: Plan,
	req: IncomingMessage,
	res: ServerResponse,
): Promise<void> {
	const body = await readObject(req);
	const detail = { ...form.detail };
	if (body.title !== undefined) detail.title = textOf(body, 'title', 1, 200);
	if (body.description !== undefined)
		detail.description = body.description === null ? null : textOf(body, 'description', 0, 1000);
	if (body.published !== undefined) {
		if (typeof body.published !== 'boolean')
			throw new HarnessInputError('published must be a boolean');
		detail.published = body.published;
	}
	if (body.slug !== undefined) detail.slug = checkedSlug(state, form, plan, body.slug);
	if (body.gateLogic !== undefined) {
		if (body.gateLogic !== 'AND' && body.gateLogic !== 'OR')
			throw new HarnessInputError('gateLogic must be "AND" or "OR"');
		(detail as Record<string, unknown>).gateLogic = body.gateLogic;
	}
	if (body.gateRules !== undefined) detail.gateRules = parseGateRules(body.gateRules);
	if (body.questions !== undefined) detail.questions = parseQuestions(form, body.questions);
	form.detail = detail;
	form.updatedAt = new Date(state.nowMs()).toISOString();
	// A form without responses gets a generator of its new questions (generated answers follow
	// them); one with responses keeps its store, and so the answers it has.
	if (body.questions !== undefined && form.store.size === 0)
		form.store = newStore(state, form.id, detail.questions);
	sendShaped(state, res, 200, 'form', formView(form));
}

function checkedSlug(state: HarnessState, form: HarnessForm, plan: Plan, slug: unknown): string {
	if (!planAtLeast(plan, 'pro'))
		throw new HarnessInputError('A custom slug requires the Pro plan', 403);
	if (typeof slug !== 'string' || slug.length < 3 || slug.length > 64 || !SLUG.test(slug))
		throw new HarnessInputError(
			'slug must be 3 to 64 lower-case letters, digits and single hyphens',
		);
	if (state.dataset.forms.some((other) => other !== form && other.detail.slug === slug))
		throw new HarnessInputError(`the slug ${slug} is taken`);
	return slug;
}

function parseGateRules(value: unknown): GateRule[] {
	if (value === null) return [];
	if (!Array.isArray(value)) throw new HarnessInputError('gateRules must be an array or null');
	return value.map((rule: unknown, i) => {
		if (!isRecord(rule) || typeof rule.contractAddress !== 'string')
			throw new HarnessInputError(`gateRules[${i}] must have a contractAddress`);
		return {
			chain: typeof rule.chain === 'string' ? rule.chain : 'ethereum',
			tokenType: (rule.tokenType as GateRule['tokenType']) ?? 'ERC20',
			minBalance: rule.minBalance as number,
			...rule,
		} as GateRule;
	});
}

function parseQuestions(form: HarnessForm, value: unknown): Question[] {
	if (!Array.isArray(value)) throw new HarnessInputError('questions must be an array');
	const existing = new Set(form.detail.questions.map((question) => question.id));
	let created = 0;
	return value.map((entry: unknown, i): Question => {
		const where = `questions[${i}]`;
		if (!isRecord(entry)) throw new HarnessInputError(`${where} must be an object`);
		if (!QUESTION_TYPES.includes(entry.type as QuestionType))
			throw new HarnessInputError(`${where}.type must be one of ${QUESTION_TYPES.join(', ')}`);
		if (typeof entry.label !== 'string' || entry.label.trim() === '')
			throw new HarnessInputError(`${where}.label must be a non-empty string`);
		if (entry.id !== undefined && (typeof entry.id !== 'string' || !existing.has(entry.id)))
			throw new HarnessInputError(`${where}.id is not a question of this form`);
		const options = entry.options;
		if (options !== undefined && !(Array.isArray(options) && options.every(isText)))
			throw new HarnessInputError(`${where}.options must be an array of strings`);
		if (OPTION_TYPES.has(entry.type as string) && options === undefined)
			throw new HarnessInputError(`${where}.options is required for ${String(entry.type)}`);
		const id =
			typeof entry.id === 'string'
				? entry.id
				: `q${form.id.slice(-8)}${String(i)}${String(++created).padStart(4, '0')}`;
		return {
			...(entry as Record<string, unknown>),
			id,
			type: entry.type as QuestionType,
			label: entry.label,
			required: entry.required === true,
			order: typeof entry.order === 'number' ? entry.order : i,
		} as Question;
	});
}

function isText(value: unknown): value is string {
	return typeof value === 'string';
}
