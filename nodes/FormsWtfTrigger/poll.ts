import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { formatResponse, getOutputMode } from '../FormsWtf/helpers/output';
import type { OutputMode } from '../FormsWtf/helpers/output';
import { getFormId } from '../FormsWtf/helpers/parameters';
import { apiRequest, serviceTimeMs } from '../FormsWtf/transport';
import { asNodeError, isTransientError } from '../FormsWtf/transport/errors';
import { getResponsesPage, iterateResponses, MAX_PAGE_SIZE } from '../FormsWtf/transport/paging';
import type { FormResponse, FormSummary } from '../FormsWtf/transport/types';
import type { CursorOptions, FormCursor, HandledVersion, UpdatedResponses } from './cursor';
import { advanceCursor, compareOldestFirst, isNewVersion, rememberHandled, submittedAtMs } from './cursor';
import type { TriggerState } from './state';
import { newestState, readState, rememberCommitted, runExclusive, writeState } from './state';

interface TriggerSettings extends CursorOptions {
	watch: 'form' | 'allForms';
	formId?: string;
	outputMode: OutputMode;
	backfill: number;
}

interface WatchedForm {
	id: string;
	title?: string;
}

interface Candidate extends HandledVersion {
	response: FormResponse;
}

/** Without a Date header from the service, how far back the first poll looks. */
const NO_SERVICE_CLOCK_MARGIN_MS = 60 * 60 * 1000;
/** Share of n8n's poll budget we spend reading, leaving room to hand the items over. */
const BUDGET_SHARE = 0.8;
/** Transient failures in a row that are waited out quietly before the user is told. */
const QUIET_FAILURES = 5;
const consecutiveFailures = new Map<string, number>();
const HOUR_MS = 3_600_000;
/** Growing windows of recent time in which "Fetch Test Event" looks for the newest response. */
const SAMPLE_WINDOWS_MS = [HOUR_MS / 12, HOUR_MS, 24 * HOUR_MS, 7 * 24 * HOUR_MS, 31 * 24 * HOUR_MS, 366 * 24 * HOUR_MS, undefined];

export async function pollResponses(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const settings = readSettings(this);
	if (this.getMode() === 'manual') return await sampleNewest(this, settings);

	const workflowKey = `${this.getWorkflow().id ?? ''}:${this.getNode().id ?? this.getNode().name}`;
	const scope = settings.watch === 'form' ? `form:${settings.formId}` : 'all';
	return await runExclusive(workflowKey, async () => {
		const staticData = this.getWorkflowStaticData('node');
		const state = newestState(workflowKey, readState(staticData, scope), scope);
		try {
			const { items, next } = state
				? await pollOnce(this, settings, state)
				: await activate(this, settings, scope);
			writeState(staticData, next);
			rememberCommitted(workflowKey, next);
			consecutiveFailures.delete(workflowKey);
			return items.length ? [items] : null;
		} catch (error) {
			// The state was not touched: the next poll reads the same window again.
			const failures = (consecutiveFailures.get(workflowKey) ?? 0) + 1;
			consecutiveFailures.set(workflowKey, failures);
			if (!state || !isTransientError(error) || failures > QUIET_FAILURES) throw asNodeError(this.getNode(), error);
			this.logger.warn(
				`Forms.wtf Trigger: poll failed (${failures} in a row), will retry on the next poll: ${(error as Error).message}`,
				{ workflowId: this.getWorkflow().id, node: this.getNode().name },
			);
			return null;
		}
	});
}

function readSettings(context: IPollFunctions): TriggerSettings {
	const watch = context.getNodeParameter('watch', 'form') === 'allForms' ? 'allForms' : 'form';
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const lookBackMinutes = Number(options.lookBackMinutes ?? 10);
	const backfill = Number(options.backfill ?? 0);
	if (!Number.isFinite(lookBackMinutes) || lookBackMinutes < 0) {
		throw new NodeOperationError(context.getNode(), '"Look-Back Window" must be 0 minutes or more');
	}
	if (!Number.isInteger(backfill) || backfill < 0) {
		throw new NodeOperationError(context.getNode(), '"Emit Existing Responses" must be a whole number, 0 or more');
	}
	return {
		watch,
		formId: watch === 'form' ? getFormId.call(context) : undefined,
		outputMode: getOutputMode.call(context),
		lookBackMs: lookBackMinutes * 60_000,
		updatedResponses: (options.updatedResponses === 'ignore' ? 'ignore' : 'emit') as UpdatedResponses,
		backfill,
	};
}

async function listWatchedForms(
	context: IPollFunctions,
	settings: TriggerSettings,
): Promise<{ forms: WatchedForm[]; serviceNowMs?: number }> {
	if (settings.watch === 'form') return { forms: [{ id: settings.formId as string }] };
	const { body, headers } = await (apiRequest<{ forms: FormSummary[] }>).call(context, { path: ['forms'] });
	const forms = (Array.isArray(body.forms) ? body.forms : []).map((form) => ({ id: form.id, title: form.title }));
	return { forms, serviceNowMs: serviceTimeMs(headers) };
}

/**
 * The first poll: learns the service's "now" and what already exists, and emits nothing (or the
 * newest few, with backfill). It reads only a look-back window of responses, unless backfill
 * asks for older ones.
 */
async function activate(
	context: IPollFunctions,
	settings: TriggerSettings,
	scope: string,
): Promise<{ items: INodeExecutionData[]; next: TriggerState }> {
	const { forms, serviceNowMs: listedAtMs } = await listWatchedForms(context, settings);
	let serviceNowMs = listedAtMs;
	if (serviceNowMs === undefined && forms.length) {
		const probe = await getResponsesPage.call(context, { formId: forms[0].id, limit: 1, offset: 0 });
		serviceNowMs = probe.serviceTimeMs;
	}
	const activatedAtMs = serviceNowMs ?? Date.now() - NO_SERVICE_CLOCK_MARGIN_MS;
	const startCursor: FormCursor = { since: new Date(activatedAtMs - settings.lookBackMs).toISOString(), seen: {} };

	const next: TriggerState = { version: 1, scope, rev: 1, activatedAtMs, forms: {} };
	const backfilled: Candidate[] = [];
	for (const form of forms) {
		const existing: HandledVersion[] = [];
		const newest: Candidate[] = [];
		const since = settings.backfill > 0 ? undefined : startCursor.since;
		for await (const page of iterateResponses.call(context, { formId: form.id, since })) {
			for (const response of page) {
				const atMs = submittedAtMs(response, activatedAtMs);
				// Only the window matters to the cursor; older responses are never asked for again.
				if (atMs >= activatedAtMs - settings.lookBackMs) existing.push({ id: response.id, atMs });
				if (settings.backfill > 0) keepNewest(newest, { id: response.id, atMs, response }, settings.backfill);
			}
		}
		const chosen = keepNewest(newest, undefined, settings.backfill);
		next.forms[form.id] = advanceCursor(startCursor, [...existing, ...chosen], settings);
		for (const candidate of chosen) backfilled.push(withForm(candidate, form, settings));
	}
	backfilled.sort(compareOldestFirst);
	return { items: backfilled.map((candidate) => toItem(candidate, settings)), next };
}

/** A later poll: everything after each form's cursor that was not handled yet, oldest first. */
async function pollOnce(
	context: IPollFunctions,
	settings: TriggerSettings,
	state: TriggerState,
): Promise<{ items: INodeExecutionData[]; next: TriggerState }> {
	const deadline = pollDeadline(context);
	const shouldStop = () => deadline !== undefined && Date.now() > deadline;
	const { forms } = await listWatchedForms(context, settings);

	const next: TriggerState = { ...state, rev: state.rev + 1, forms: {} };
	const fresh: Candidate[] = [];
	let pagesRead = 0;
	for (const form of forms) {
		// A form that appeared after activation: all of its responses are new.
		const cursor = state.forms[form.id] ?? { since: new Date(state.activatedAtMs).toISOString(), seen: {} };
		// Every poll reads at least one page, so a tight budget still makes progress.
		if (pagesRead > 0 && shouldStop()) {
			next.forms[form.id] = cursor;
			continue;
		}
		const handled: HandledVersion[] = [];
		let offset = cursor.resumeOffset ?? 0;
		let complete = true;
		const walk = iterateResponses.call(
			context,
			{ formId: form.id, since: cursor.since },
			{
				startOffset: offset,
				shouldStop: () => (shouldStop() ? ((complete = false), true) : false),
				onPage: (page) => {
					pagesRead++;
					offset += page.responses.length;
				},
			},
		);
		for await (const page of walk) {
			for (const response of page) {
				const atMs = submittedAtMs(response, Date.parse(cursor.since));
				handled.push({ id: response.id, atMs });
				if (isNewVersion(cursor, response.id, atMs, settings)) {
					fresh.push(withForm({ id: response.id, atMs, response }, form, settings));
				}
			}
		}
		next.forms[form.id] = complete
			? advanceCursor(cursor, handled, settings)
			: rememberHandled(cursor, handled, offset);
	}
	fresh.sort(compareOldestFirst);
	return { items: fresh.map((candidate) => toItem(candidate, settings)), next };
}

function pollDeadline(context: IPollFunctions): number | undefined {
	// getPollBudgetMs is new in n8n 2.41; older n8n gives no budget.
	const budget = typeof context.getPollBudgetMs === 'function' ? context.getPollBudgetMs() : undefined;
	return typeof budget === 'number' && Number.isFinite(budget) && budget > 0
		? Date.now() + budget * BUDGET_SHARE
		: undefined;
}

/** Keeps the `limit` newest candidates, trimming in batches so a long walk stays cheap. */
function keepNewest(list: Candidate[], candidate: Candidate | undefined, limit: number): Candidate[] {
	if (candidate) list.push(candidate);
	if (list.length > limit * 2 || (!candidate && list.length > limit)) {
		list.sort((a, b) => compareOldestFirst(b, a));
		list.length = Math.min(list.length, limit);
	}
	return list;
}

function withForm(candidate: Candidate, form: WatchedForm, settings: TriggerSettings): Candidate {
	if (settings.watch !== 'allForms') return candidate;
	return { ...candidate, response: { ...candidate.response, formId: form.id, formTitle: form.title ?? null } };
}

function toItem(candidate: Candidate, settings: TriggerSettings): INodeExecutionData {
	return { json: formatResponse(candidate.response, settings.outputMode) };
}

/**
 * "Fetch Test Event": the newest response, found quickly by asking for growing windows of
 * recent time (the API's order is not guaranteed), without touching the trigger's state.
 */
async function sampleNewest(
	context: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][]> {
	const { forms, serviceNowMs: listedAtMs } = await listWatchedForms(context, settings);
	let best: Candidate | undefined;
	for (const form of forms) {
		// One cheap request tells whether the form has any response, and the service's clock.
		const probe = await getResponsesPage.call(context, { formId: form.id, limit: 1, offset: 0 });
		if (probe.total === 0 && probe.responses.length === 0) continue;
		const serviceNowMs = listedAtMs ?? probe.serviceTimeMs;
		for (const windowMs of SAMPLE_WINDOWS_MS) {
			const since =
				windowMs === undefined || serviceNowMs === undefined
					? undefined
					: new Date(serviceNowMs - windowMs).toISOString();
			const page = await getResponsesPage.call(context, { formId: form.id, since, limit: MAX_PAGE_SIZE, offset: 0 });
			for (const response of page.responses) {
				const candidate = withForm({ id: response.id, atMs: submittedAtMs(response, 0), response }, form, settings);
				if (!best || compareOldestFirst(candidate, best) > 0) best = candidate;
			}
			if (page.responses.length || since === undefined) break;
		}
	}
	if (!best) {
		throw new NodeOperationError(
			context.getNode(),
			settings.watch === 'form' ? 'This form has no responses yet' : 'None of your forms has any responses yet',
			{ description: 'Submit a response to the form, then click "Fetch Test Event" again.' },
		);
	}
	return [[toItem(best, settings)]];
}
