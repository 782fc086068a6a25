import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { formatResponse, getOutputMode } from '../FormsWtf/helpers/output';
import type { OutputMode } from '../FormsWtf/helpers/output';
import { getFormId } from '../FormsWtf/helpers/parameters';
import { apiRequest, serviceTimeMs } from '../FormsWtf/transport';
import { asNodeError, errorForMalformedBody, isTransientError } from '../FormsWtf/transport/errors';
import { getResponsesPage, iterateResponses, MAX_PAGE_SIZE } from '../FormsWtf/transport/paging';
import type { ResponsesQuery } from '../FormsWtf/transport/paging';
import type { FormResponse } from '../FormsWtf/transport/types';
import type { CursorOptions, FormCursor, HandledVersion, UpdatedResponses } from './cursor';
import { advanceCursor, compareOldestFirst, isNewVersion, rememberHandled, submittedAtMs } from './cursor';
import type { TriggerState } from './state';
import { readState, unlessAlreadyPolling, writeState } from './state';

interface TriggerSettings extends CursorOptions {
	watch: 'form' | 'allForms';
	formId?: string;
	outputMode: OutputMode;
	backfill: number;
}

/** A watched form; with All Forms, also what the listing says about it. */
interface WatchedForm {
	id: string;
	title?: string;
	responseCount?: number;
	updatedAt?: string;
}

interface Listing {
	forms: WatchedForm[];
	/** The service's clock when it answered the listing (All Forms only). */
	serviceNowMs?: number;
}

interface Candidate extends HandledVersion {
	response: FormResponse;
}

/** Without a Date header from the service, how far back the first poll looks. */
const NO_SERVICE_CLOCK_MARGIN_MS = 60 * 60 * 1000;
/** Share of n8n's poll budget we spend reading, leaving room to hand the items over. */
const BUDGET_SHARE = 0.8;
/** n8n's poll budget when it does not say (before 2.41): 5 minutes. */
const DEFAULT_POLL_BUDGET_MS = 5 * 60_000;
/** Transient failures in a row that are waited out quietly before the user is told. */
const QUIET_FAILURES = 5;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/**
 * All Forms: a form the listing lacks keeps its cursor this long (service clock), so that a
 * listing glitch or a team membership that comes back emits nothing twice. After that the
 * form counts as gone; listed again, it is a new form (its responses since activation are emitted).
 */
export const KEEP_UNLISTED_FORM_MS = 30 * DAY_MS;
/**
 * All Forms: a form the listing shows unchanged (same responseCount and updatedAt) is still
 * read once every SWEEP_POLLS polls, so that updated responses and a response added while
 * another was deleted are caught. Each poll reads at most MAX_SWEEP_READS such forms, the
 * longest unread first: every form is read at least once every SWEEP_POLLS + ceil(forms /
 * min(MAX_SWEEP_READS, ceil(forms / SWEEP_POLLS))) polls (20 polls up to 100 forms).
 */
export const SWEEP_POLLS = 10;
export const MAX_SWEEP_READS = 10;
/**
 * Pages of responses one poll reads at most (besides the list of forms), so that a poll every
 * minute leaves a third of the key's 60 requests per minute to other workflows, and a poll is
 * never held up by the rate limit beyond its budget. What a poll does not read keeps its place
 * (the form's cursor, `resumeOffset`, `backfillOffset`) and comes first on the next poll: a busy
 * account or a large Emit Existing Responses is read over several polls, never skipped.
 */
export const MAX_PAGES_PER_POLL = 40;
/** Sorts after every response id: a floor at a moment with this id keeps out all of that moment. */
const LAST_ID = '\uffff';
/** Growing windows of recent time in which "Fetch Test Event" looks for the newest response. */
const SAMPLE_WINDOWS_MS = [HOUR_MS / 12, HOUR_MS, DAY_MS, 7 * DAY_MS, 31 * DAY_MS, 366 * DAY_MS, undefined];
/** Growing windows before activation in which Emit Existing Responses looks for the newest ones; undefined: all. */
const EXISTING_WINDOWS_MS = [HOUR_MS, DAY_MS, 7 * DAY_MS, 31 * DAY_MS, 366 * DAY_MS, undefined];
/** The lowest `since` there is: every response of the form. */
const BEGINNING = new Date(0).toISOString();

export async function pollResponses(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const context = contextOfThisPoll(this);
	const settings = readSettings(context);
	if (context.getMode() === 'manual') return await sampleNewest(context, settings);

	const triggerKey = `${context.getWorkflow().id ?? ''}:${context.getNode().id ?? context.getNode().name}`;
	const scope = settings.watch === 'form' ? `form:${settings.formId}` : 'all';
	const budgetMs = pollBudgetMs(context);
	const result = await unlessAlreadyPolling(triggerKey, 2 * (budgetMs ?? DEFAULT_POLL_BUDGET_MS), async () => {
		const staticData = context.getWorkflowStaticData('node');
		const state = readState(staticData, scope);
		const allowance = new PollAllowance(budgetMs === undefined ? undefined : Date.now() + budgetMs * BUDGET_SHARE);
		try {
			const listing = await listWatchedForms(context, settings);
			const { items, next } = state
				? await pollOnce(context, settings, state, listing, allowance)
				: await activate(context, settings, scope, listing, allowance);
			delete next.failures;
			writeState(staticData, next);
			return items.length ? [items] : null;
		} catch (error) {
			if (!state || !isTransientError(error)) throw asNodeError(context.getNode(), error);
			// The cursors stay as n8n stored them: the next poll reads the same window again.
			const failures = (state.failures ?? 0) + 1;
			writeState(staticData, { ...state, failures });
			if (failures > QUIET_FAILURES) throw asNodeError(context.getNode(), error);
			context.logger.warn(
				`Forms.wtf Trigger: poll failed (${failures} in a row), will retry on the next poll: ${(error as Error).message}`,
				{ workflowId: context.getWorkflow().id, node: context.getNode().name },
			);
			return null;
		}
	});
	return result ?? null;
}

/**
 * n8n keeps one poll context for every poll of an activation, and the transport reads the
 * credential's base URL once per context. A context of its own for each poll (everything else
 * inherited) makes every poll read the credential again: after the user edits it (a new key, a
 * production base URL), the next poll uses the new one.
 */
function contextOfThisPoll(context: IPollFunctions): IPollFunctions {
	return Object.create(context) as IPollFunctions;
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
		throw new NodeOperationError(context.getNode(), '"Existing Responses to Emit" must be a whole number, 0 or more');
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

function pollBudgetMs(context: IPollFunctions): number | undefined {
	// getPollBudgetMs is new in n8n 2.41; older n8n gives no budget.
	const budget = typeof context.getPollBudgetMs === 'function' ? context.getPollBudgetMs() : undefined;
	return typeof budget === 'number' && Number.isFinite(budget) && budget > 0 ? budget : undefined;
}

async function listWatchedForms(context: IPollFunctions, settings: TriggerSettings): Promise<Listing> {
	if (settings.watch === 'form') return { forms: [{ id: settings.formId as string }] };
	const { body, headers } = await (apiRequest<unknown>).call(context, { path: ['forms'] });
	const forms = parseListing(body);
	// A listing we cannot read fails the poll: taken as "no forms", it would look like every form went away.
	if (!forms) throw errorForMalformedBody(context.getNode(), 'the list of forms, { "forms": [ … ] }', {});
	return { forms, serviceNowMs: serviceTimeMs(headers) };
}

/** The forms of a `{ "forms": [...] }` listing, or undefined when the body is anything else. */
function parseListing(body: unknown): WatchedForm[] | undefined {
	const list = body && typeof body === 'object' ? (body as { forms?: unknown }).forms : undefined;
	if (!Array.isArray(list)) return undefined;
	const forms: WatchedForm[] = [];
	for (const entry of list as unknown[]) {
		if (!entry || typeof entry !== 'object') return undefined;
		const { id, title, responseCount, updatedAt } = entry as IDataObject;
		if (typeof id !== 'string' || id === '') return undefined;
		forms.push({
			id,
			title: typeof title === 'string' ? title : undefined,
			responseCount: typeof responseCount === 'number' ? responseCount : undefined,
			updatedAt: typeof updatedAt === 'string' ? updatedAt : undefined,
		});
	}
	return forms;
}

/**
 * The first poll: learns the service's "now" and what already exists, and emits nothing. It
 * reads only a look-back window of responses (none for a form the listing shows empty). With
 * Emit Existing Responses it starts reading every existing response instead (see readExisting).
 */
async function activate(
	context: IPollFunctions,
	settings: TriggerSettings,
	scope: string,
	listing: Listing,
	allowance: PollAllowance,
): Promise<{ items: INodeExecutionData[]; next: TriggerState }> {
	const { forms } = listing;
	let serviceNowMs = listing.serviceNowMs;
	if (serviceNowMs === undefined && forms.length) {
		const probe = await getResponsesPage.call(context, { formId: forms[0].id, limit: 1, offset: 0 });
		serviceNowMs = probe.serviceTimeMs;
	}
	const activatedAtMs = serviceNowMs ?? Date.now() - NO_SERVICE_CLOCK_MARGIN_MS;
	const startCursor: FormCursor = { since: new Date(activatedAtMs - settings.lookBackMs).toISOString(), seen: {} };
	const state: TriggerState = { version: 1, scope, rev: 0, activatedAtMs, forms: {} };

	if (settings.backfill > 0) {
		for (const form of forms) state.forms[form.id] = { ...startCursor, backfillOffset: 0 };
		state.backfill = { limit: settings.backfill, forms: forms.map((form) => form.id), window: 0, newest: [] };
		return await pollOnce(context, settings, state, listing, allowance);
	}
	for (const form of forms) {
		if (form.responseCount === 0) {
			state.forms[form.id] = { ...startCursor, ...listedAs(form, 0, settings) };
			continue;
		}
		if (!allowance.mayRead()) {
			// Read on a later poll; what it holds up to activation is existing, never emitted.
			state.forms[form.id] = { ...startCursor, floor: { atMs: activatedAtMs, id: LAST_ID } };
			continue;
		}
		const existing: HandledVersion[] = [];
		// The window of one form is read whole, however many pages: the cursor needs all of it.
		const walk = iterateResponses.call(context, { formId: form.id, since: startCursor.since }, { onPage: allowance.onPage });
		for await (const page of walk) {
			for (const response of page) existing.push({ id: response.id, atMs: submittedAtMs(response, activatedAtMs) });
		}
		state.forms[form.id] = { ...advanceCursor(startCursor, existing, settings), ...listedAs(form, 0, settings) };
	}
	return { items: [], next: state };
}

/**
 * What one poll may still read: always one page, so that a tight budget still makes progress;
 * then pages while n8n's poll budget lasts, up to MAX_PAGES_PER_POLL.
 */
class PollAllowance {
	private pages = 0;

	constructor(private readonly deadline: number | undefined) {}

	mayRead(): boolean {
		if (this.pages === 0) return true;
		return this.pages < MAX_PAGES_PER_POLL && (this.deadline === undefined || Date.now() <= this.deadline);
	}

	readonly onPage = (): void => {
		this.pages++;
	};

	/**
	 * Reads a form's responses from `startOffset` while the allowance lasts. `read.offset` is
	 * where the next read goes on, `read.complete` false when the allowance cut the walk short.
	 */
	walk(context: IPollFunctions, query: ResponsesQuery, startOffset: number) {
		const read = { offset: startOffset, complete: true };
		const pages = iterateResponses.call(context, query, {
			startOffset,
			shouldStop: () => {
				if (this.mayRead()) return false;
				read.complete = false;
				return true;
			},
			onPage: (page) => {
				this.onPage();
				read.offset += page.responses.length;
			},
		});
		return { pages, read };
	}
}

/** All Forms: what the listing said about a form when its read began, and when that was. */
function listedAs(form: WatchedForm, rev: number, settings: TriggerSettings): Partial<FormCursor> {
	if (settings.watch !== 'allForms') return {};
	return { listedCount: form.responseCount, listedUpdatedAt: form.updatedAt, readAtRev: rev };
}

/** A later poll: everything after each form's cursor that was not handled yet, oldest first. */
async function pollOnce(
	context: IPollFunctions,
	settings: TriggerSettings,
	state: TriggerState,
	listing: Listing,
	allowance: PollAllowance,
): Promise<{ items: INodeExecutionData[]; next: TriggerState }> {
	const next: TriggerState = { ...state, rev: state.rev + 1, forms: { ...state.forms } };
	if (next.backfill) {
		await readExisting(context, next, listing, allowance);
		if (next.backfill) return { items: [], next };
	}
	if (settings.watch === 'allForms') keepUnlistedForms(next, listing);

	const fresh: Candidate[] = [];
	for (const form of formsToRead(next, listing, settings)) {
		if (!allowance.mayRead()) break;
		// A form that appeared after activation: all of its responses are new.
		const cursor = next.forms[form.id] ?? { since: new Date(state.activatedAtMs).toISOString(), seen: {} };
		const handled: HandledVersion[] = [];
		const { pages, read } = allowance.walk(context, { formId: form.id, since: cursor.since }, cursor.resumeOffset ?? 0);
		for await (const page of pages) {
			for (const response of page) {
				const atMs = submittedAtMs(response, Date.parse(cursor.since));
				handled.push({ id: response.id, atMs });
				if (isNewVersion(cursor, response.id, atMs, settings)) {
					fresh.push(withForm({ id: response.id, atMs, response }, form, settings));
				}
			}
		}
		next.forms[form.id] = read.complete
			? { ...advanceCursor(cursor, handled, settings), ...listedAs(form, next.rev, settings) }
			: rememberHandled(cursor, handled, read.offset);
	}
	fresh.sort(compareOldestFirst);
	return { items: fresh.map((candidate) => toItem(candidate, settings)), next };
}

/**
 * All Forms: which forms this poll reads. A form is read when the listing shows a change
 * (responseCount or updatedAt differ from before its last read), when it is new or its last
 * read was cut short; forms that look unchanged are read in rotation (SWEEP_POLLS). The forms
 * unread longest come first, so a poll budget that stops early never starves a form.
 */
function formsToRead(state: TriggerState, listing: Listing, settings: TriggerSettings): WatchedForm[] {
	if (settings.watch === 'form') return listing.forms;
	const lastRead = (form: WatchedForm) => state.forms[form.id]?.readAtRev ?? -1;
	const byLongestUnread = (a: WatchedForm, b: WatchedForm) => lastRead(a) - lastRead(b) || (a.id < b.id ? -1 : 1);
	const changed: WatchedForm[] = [];
	const unchanged: WatchedForm[] = [];
	for (const form of listing.forms) {
		const cursor = state.forms[form.id];
		const looksUnchanged =
			cursor !== undefined &&
			cursor.resumeOffset === undefined &&
			cursor.readAtRev !== undefined &&
			form.responseCount !== undefined &&
			cursor.listedCount === form.responseCount &&
			cursor.listedUpdatedAt === form.updatedAt;
		(looksUnchanged ? unchanged : changed).push(form);
	}
	const sweep = Math.min(MAX_SWEEP_READS, Math.ceil(listing.forms.length / SWEEP_POLLS));
	const due = unchanged.filter((form) => state.rev - lastRead(form) >= SWEEP_POLLS).sort(byLongestUnread);
	return [...changed.sort(byLongestUnread), ...due.slice(0, sweep)];
}

/** All Forms: a form missing from the listing keeps its cursor for KEEP_UNLISTED_FORM_MS. */
function keepUnlistedForms(state: TriggerState, listing: Listing): void {
	const nowMs = listing.serviceNowMs ?? Date.now();
	const listed = new Set(listing.forms.map((form) => form.id));
	for (const [formId, cursor] of Object.entries(state.forms)) {
		if (listed.has(formId)) {
			if (cursor.unlistedSinceMs !== undefined) {
				const listedAgain = { ...cursor };
				delete listedAgain.unlistedSinceMs;
				state.forms[formId] = listedAgain;
			}
		} else if (cursor.unlistedSinceMs === undefined) {
			state.forms[formId] = { ...cursor, unlistedSinceMs: nowMs };
		} else if (nowMs - cursor.unlistedSinceMs > KEEP_UNLISTED_FORM_MS) {
			delete state.forms[formId];
		}
	}
}

/**
 * Emit Existing Responses: finds the newest `limit` existing responses without reading every
 * response of a large form. It reads the responses of a recent window of time (the last hour
 * before activation, then a day, a week, a month, a year, then all) from every form, page by page
 * within the poll budget and across as many polls as needed (each form goes on from its
 * `backfillOffset`), keeping the newest `limit`. A window that holds `limit` of them holds the
 * newest `limit` of all; a window that holds fewer gives way to the next, larger one. Then each
 * form's cursor starts at the oldest chosen response (its `floor`): the normal reading emits the
 * chosen ones and everything newer, also what arrived meanwhile.
 */
async function readExisting(
	context: IPollFunctions,
	state: TriggerState,
	listing: Listing,
	allowance: PollAllowance,
): Promise<void> {
	const progress = state.backfill;
	if (!progress) return;
	const listed = new Set(listing.forms.map((form) => form.id));
	const newest = new Map<string, [string, string, number]>();
	for (const entry of progress.newest) newest.set(`${entry[0]}/${entry[1]}`, entry);
	const oldestFirst = (a: [string, string, number], b: [string, string, number]) =>
		compareOldestFirst({ atMs: a[2], id: a[1] }, { atMs: b[2], id: b[1] });
	const keepNewestExisting = (force: boolean) => {
		if (newest.size <= progress.limit * (force ? 1 : 2)) return;
		const kept = [...newest.values()].sort((a, b) => oldestFirst(b, a)).slice(0, progress.limit);
		newest.clear();
		for (const entry of kept) newest.set(`${entry[0]}/${entry[1]}`, entry);
	};

	for (;;) {
		const windowMs = EXISTING_WINDOWS_MS[progress.window];
		const since = windowMs === undefined ? undefined : new Date(state.activatedAtMs - windowMs).toISOString();
		for (const formId of [...progress.forms]) {
			const cursor = state.forms[formId];
			if (cursor?.backfillOffset === undefined) continue;
			if (!listed.has(formId)) {
				// Gone from the listing: its existing responses are left out, its new ones still count.
				progress.forms = progress.forms.filter((id) => id !== formId);
				state.forms[formId] = { since: cursor.since, seen: {}, floor: { atMs: state.activatedAtMs, id: LAST_ID } };
				continue;
			}
			if (!allowance.mayRead()) break;
			const { pages, read } = allowance.walk(context, { formId, since }, cursor.backfillOffset);
			for await (const page of pages) {
				for (const response of page) {
					const atMs = submittedAtMs(response, state.activatedAtMs);
					// Responses after activation are new ones, emitted in any case.
					if (atMs <= state.activatedAtMs) newest.set(`${formId}/${response.id}`, [formId, response.id, atMs]);
				}
				keepNewestExisting(false);
			}
			const reread: FormCursor = { ...cursor, backfillOffset: read.offset };
			if (read.complete) delete reread.backfillOffset;
			state.forms[formId] = reread;
		}
		keepNewestExisting(true);
		progress.newest = [...newest.values()];
		if (progress.forms.some((formId) => state.forms[formId]?.backfillOffset !== undefined)) return;
		if (newest.size >= progress.limit || windowMs === undefined) break;
		// Fewer than asked for in this window: read the next, larger one from its start.
		progress.window++;
		for (const formId of progress.forms) state.forms[formId] = { ...state.forms[formId], backfillOffset: 0 };
	}

	const chosen = progress.newest.sort(oldestFirst);
	const floor = chosen.length >= progress.limit ? { atMs: chosen[0][2], id: chosen[0][1] } : undefined;
	for (const formId of progress.forms) {
		if (!state.forms[formId]) continue;
		const since = floor ? new Date(floor.atMs - 1).toISOString() : BEGINNING;
		state.forms[formId] = floor ? { since, seen: {}, floor } : { since, seen: {} };
	}
	delete state.backfill;
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
