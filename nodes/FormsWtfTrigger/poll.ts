import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { formatResponse, getOutputMode } from '../FormsWtf/helpers/output';
import type { OutputMode } from '../FormsWtf/helpers/output';
import { getFormId, toApiTimestamp } from '../FormsWtf/helpers/parameters';
import { apiRequest, isSinglePathSegment, serviceTimeMs } from '../FormsWtf/transport';
import { asNodeError, errorForMalformedBody, isDeadlineError, isTransientError } from '../FormsWtf/transport/errors';
import { Continuity, getResponsesPage, iterateResponses, MAX_PAGE_SIZE } from '../FormsWtf/transport/paging';
import { FORM_LIST } from '../FormsWtf/transport/shapes';
import type { Anchor, ResponsesQuery } from '../FormsWtf/transport/paging';
import type { FormResponse } from '../FormsWtf/transport/types';
import type { CursorOptions, HandledVersion, ReadOfForm, UpdatedResponses } from './cursor';
import {
	advanceCursor,
	compareOldestFirst,
	isNewUndated,
	isNewVersion,
	rememberHandled,
	submittedAtMs,
} from './cursor';
import type { FormCursor, ResumePoint, TriggerState } from './state';
import { LAST_ID, markPolled, readState, startedAt, STATE_VERSION, unlessAlreadyPolling, writeState } from './state';

type Watch = 'form' | 'selectedForms' | 'allForms';

/** What the first poll after activation emits besides the responses that arrive later. */
type OnActivation =
	| { emit: 'newOnly' }
	/** The newest `count` responses that exist at activation. */
	| { emit: 'newest'; count: number }
	/** Every response submitted at or after `sinceMs`. */
	| { emit: 'since'; sinceMs: number };

interface TriggerSettings extends CursorOptions {
	watch: Watch;
	formId?: string;
	/** Selected Forms: the forms picked, without repeats. */
	formIds?: string[];
	outputMode: OutputMode;
	onActivation: OnActivation;
}

/** A watched form; with several forms, also what the listing says about it. */
interface WatchedForm {
	id: string;
	title?: string;
	responseCount?: number;
	updatedAt?: string;
	/** Selected Forms: a selected form the listing lacks. It is read all the same. */
	unlisted?: boolean;
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
/**
 * Responses one poll emits before it stops asking for further pages (the pages already asked
 * for, at most two, are emitted whole): a large backlog, such as every response since a date, reaches the workflow
 * in executions of a bounded size, one per poll, oldest first per form.
 */
export const MAX_ITEMS_PER_POLL = 2000;
/** How far before the end of the last page the next page of a trigger's read starts (see Continuity). */
export const PAGE_OVERLAP = 3;
/** How far before where a cut read stopped the next poll resumes: room for deletions in between. */
const RESUME_OVERLAP = 25;
/** Responses without a usable date come after the dated ones of a poll. */
const UNDATED_ORDER = Number.MAX_SAFE_INTEGER;
/**
 * All Forms: polls in a row a form may fail before it is reported as an error (on the next poll
 * with nothing else to emit), and how many more failed polls before it is reported again.
 */
const FORM_FAILURES_REPORTED = 5;
/**
 * Selected Forms: a selected form that the listing lacks and the API does not find is gone for
 * good; it is reported on the first poll with nothing else to emit.
 */
const GONE_FORM_FAILURES_REPORTED = 1;
/** Several forms: reads of different forms that may fail one after the other before a poll stops reading. */
const MAX_FAILED_READS_IN_A_ROW = 3;
const FORM_FAILURES_REPORTED_AGAIN = 60;
/**
 * Fetch Test Event with All Forms asks this many forms, those the listing shows changed last:
 * a sample, found in a handful of requests however many forms the account has.
 */
const SAMPLED_FORMS = 3;
/** Growing windows of recent time in which "Fetch Test Event" looks for the newest response. */
const SAMPLE_WINDOWS_MS = [HOUR_MS / 12, HOUR_MS, DAY_MS, 7 * DAY_MS, 31 * DAY_MS, 366 * DAY_MS];
/** Growing windows before activation in which Emit Existing Responses looks for the newest ones; undefined: all. */
const EXISTING_WINDOWS_MS = [HOUR_MS, DAY_MS, 7 * DAY_MS, 31 * DAY_MS, 366 * DAY_MS, undefined];
/** The lowest `since` there is: every response of the form. */
const BEGINNING = new Date(0).toISOString();

export async function pollResponses(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const context = contextOfThisPoll(this);
	const settings = readSettings(context);
	if (context.getMode() === 'manual') return await sampleNewest(context, settings);

	const triggerKey = `${context.getWorkflow().id ?? ''}:${context.getNode().id ?? context.getNode().name}`;
	const scope = scopeOf(settings);
	const budgetMs = pollBudgetMs(context) ?? DEFAULT_POLL_BUDGET_MS;
	const result = await unlessAlreadyPolling(triggerKey, 2 * budgetMs, async (stillCurrent) => {
		const staticData = context.getWorkflowStaticData('node');
		const laterPollOfActivation = markPolled(staticData);
		const { state, restartAtNow, repairs } = readState(staticData, scope, settings.lookBackMs);
		if (repairs.length) warn(context, `the stored state was repaired: ${repairs.join('; ')}`);
		const allowance = new PollAllowance(Date.now() + budgetMs * BUDGET_SHARE);
		/** Writes the state, unless this poll ran so long that another poll took over. */
		const commit = (next: TriggerState): boolean => {
			if (!stillCurrent()) return false;
			writeState(staticData, next);
			return true;
		};
		try {
			const listing = await listWatchedForms(context, settings, allowance);
			if (!state) {
				const { items, next } = await activate(context, settings, scope, listing, allowance);
				return commit(next) && items.length ? [items] : null;
			}
			if (settings.watch === 'selectedForms') await followSelection(context, settings, state, listing, restartAtNow, allowance);
			if (restartAtNow.length) {
				const nowMs = listing.serviceNowMs ?? (await serviceClock(context, restartAtNow[0], allowance));
				// The Date header has whole seconds: the end of that second is after every response
				// that existed when the service answered, so none is emitted again.
				for (const formId of restartAtNow) state.forms[formId] = startedAt(nowMs + 999, settings.lookBackMs);
			}
			const { items, next, failingForm } = await pollOnce(context, settings, state, listing, allowance);
			delete next.failures;
			if (failingForm && !items.length && laterPollOfActivation) {
				// A form that keeps failing is reported as an error of the workflow, on a poll that
				// has nothing else to emit: the other forms' responses are never held back for it.
				// Never on n8n's activation poll: its error would fail the activation (markPolled).
				const cursor = next.forms[failingForm.formId];
				next.forms[failingForm.formId] = { ...cursor, failureReportedAt: cursor.failedPolls };
				if (commit(next)) throw failingForm.error;
				return null;
			}
			return commit(next) && items.length ? [items] : null;
		} catch (error) {
			if (!state || !isTransientError(error)) throw asNodeError(context.getNode(), error);
			// The cursors stay as n8n stored them: the next poll reads the same window again.
			const failures = (state.failures ?? 0) + 1;
			if (!commit({ ...state, failures })) return null;
			if (failures > QUIET_FAILURES) throw asNodeError(context.getNode(), error);
			warn(context, `poll failed (${failures} in a row), will retry on the next poll: ${(error as Error).message}`);
			return null;
		}
	});
	return result ?? null;
}

function warn(context: IPollFunctions, message: string): void {
	context.logger.warn(`Forms.wtf Trigger: ${message}`, {
		workflowId: context.getWorkflow().id,
		node: context.getNode().name,
	});
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

/**
 * Selected Forms: a form taken out of the selection is forgotten; a form added to it starts
 * now, as at an activation (see startWatching).
 */
async function followSelection(
	context: IPollFunctions,
	settings: TriggerSettings,
	state: TriggerState,
	listing: Listing,
	restartAtNow: string[],
	allowance: PollAllowance,
): Promise<void> {
	const selected = new Set(settings.formIds);
	for (const formId of Object.keys(state.forms)) if (!selected.has(formId)) delete state.forms[formId];
	const added = listing.forms.filter((form) => !state.forms[form.id] && !restartAtNow.includes(form.id));
	if (!added.length) return;
	const nowMs = listing.serviceNowMs ?? (await serviceClock(context, added[0].id, allowance));
	for (const form of added) state.forms[form.id] = await startWatching(context, settings, form, nowMs, state.rev, allowance);
}

/** What is watched: a stored state of another scope is not this trigger's, and it starts afresh. */
function scopeOf(settings: TriggerSettings): string {
	if (settings.watch === 'form') return `form:${settings.formId}`;
	return settings.watch === 'selectedForms' ? 'selected' : 'all';
}

/** With Selected Forms or All Forms: several forms, each item naming its form. */
function watchesSeveral(settings: TriggerSettings): boolean {
	return settings.watch !== 'form';
}

function readSettings(context: IPollFunctions): TriggerSettings {
	const node = context.getNode();
	const watchParameter = context.getNodeParameter('watch', 'form');
	const watch: Watch = watchParameter === 'allForms' || watchParameter === 'selectedForms' ? watchParameter : 'form';
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const lookBackMinutes = Number(options.lookBackMinutes ?? 10);
	if (!Number.isFinite(lookBackMinutes) || lookBackMinutes < 0) {
		throw new NodeOperationError(node, '"Look-Back Window" must be 0 minutes or more');
	}
	let updatedResponses: UpdatedResponses;
	let onActivation: OnActivation;
	if (node.typeVersion >= 2) {
		updatedResponses = context.getNodeParameter('event', 'newOrUpdatedResponse') === 'newResponse' ? 'ignore' : 'emit';
		onActivation = readOnActivation(context);
	} else {
		// Version 1 keeps both in its options.
		updatedResponses = options.updatedResponses === 'ignore' ? 'ignore' : 'emit';
		const backfill = Number(options.backfill ?? 0);
		if (!Number.isInteger(backfill) || backfill < 0) {
			throw new NodeOperationError(node, '"Existing Responses to Emit" must be a whole number, 0 or more');
		}
		onActivation = backfill > 0 ? { emit: 'newest', count: backfill } : { emit: 'newOnly' };
	}
	return {
		watch,
		formId: watch === 'form' ? getFormId.call(context) : undefined,
		formIds: watch === 'selectedForms' ? getSelectedFormIds(context) : undefined,
		outputMode: getOutputMode.call(context),
		lookBackMs: lookBackMinutes * 60_000,
		updatedResponses,
		onActivation,
	};
}

function readOnActivation(context: IPollFunctions): OnActivation {
	const node = context.getNode();
	const choice = context.getNodeParameter('onActivation', 'newOnly');
	if (choice === 'newest') {
		const count = Number(context.getNodeParameter('existingCount', 10));
		if (!Number.isInteger(count) || count < 1) {
			throw new NodeOperationError(node, '"Number of Existing Responses" must be a whole number, 1 or more');
		}
		return { emit: 'newest', count };
	}
	if (choice === 'since') {
		const value: unknown = context.getNodeParameter('submittedSince', '');
		if (value === '' || value === null || value === undefined) {
			throw new NodeOperationError(node, 'No date in "Submitted Since"', {
				description: 'Pick the date from which existing responses are emitted, or choose another "On Activation, Emit".',
			});
		}
		return { emit: 'since', sinceMs: Date.parse(toApiTimestamp.call(context, value, 'Submitted Since')) };
	}
	return { emit: 'newOnly' };
}

/**
 * Selected Forms: the forms picked, from the list or by an expression (a list of IDs, or IDs
 * separated by commas).
 */
function getSelectedFormIds(context: IPollFunctions): string[] {
	const node = context.getNode();
	const value: unknown = context.getNodeParameter('formIds', []);
	const entries: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
	const formIds: string[] = [];
	for (const entry of entries) {
		const formId = typeof entry === 'string' || typeof entry === 'number' ? String(entry).trim() : '';
		if (formId === '') continue;
		if (!isSinglePathSegment(formId)) {
			throw new NodeOperationError(node, `"${formId}" is not a form ID`, {
				description: '"." and ".." cannot be form IDs. Pick the forms from the list, or copy their IDs again.',
			});
		}
		if (!formIds.includes(formId)) formIds.push(formId);
	}
	if (!formIds.length) {
		throw new NodeOperationError(node, 'No forms selected', {
			description: 'Pick the forms to watch in "Form Names or IDs", or choose "All Forms".',
		});
	}
	return formIds;
}

function pollBudgetMs(context: IPollFunctions): number | undefined {
	// getPollBudgetMs is new in n8n 2.41; older n8n gives no budget.
	const budget = typeof context.getPollBudgetMs === 'function' ? context.getPollBudgetMs() : undefined;
	return typeof budget === 'number' && Number.isFinite(budget) && budget > 0 ? budget : undefined;
}

async function listWatchedForms(
	context: IPollFunctions,
	settings: TriggerSettings,
	allowance?: PollAllowance,
): Promise<Listing> {
	if (settings.watch === 'form') return { forms: [{ id: settings.formId as string }] };
	// FORM_LIST checks the shape where the answer arrives: a list of objects.
	const { body, headers } = await (apiRequest<{ forms: IDataObject[] }>).call(context, {
		path: ['forms'],
		deadlineMs: allowance?.deadline,
		expect: FORM_LIST,
	});
	const forms = watchedForms(body.forms);
	// A listing we cannot read fails the poll: taken as "no forms", it would look like every form went away.
	if (!forms) throw errorForMalformedBody(context.getNode(), 'the list of forms, { "forms": [ … ] }', {});
	const serviceNowMs = serviceTimeMs(headers);
	if (settings.watch === 'allForms') return { forms, serviceNowMs };
	// Selected Forms: the listing tells which of them changed. One it lacks is read directly,
	// since a listing may leave out a form that is still there.
	const listed = new Map(forms.map((form) => [form.id, form]));
	const selected = (settings.formIds ?? []).map((id): WatchedForm => listed.get(id) ?? { id, unlisted: true });
	return { forms: selected, serviceNowMs };
}

/** The forms of a listing the trigger can watch, or undefined when not one of them has an id. */
function watchedForms(list: IDataObject[]): WatchedForm[] | undefined {
	const forms: WatchedForm[] = [];
	for (const { id, title, responseCount, updatedAt } of list) {
		// One entry the trigger cannot name is left out; it must not hold up the other forms.
		const formId = typeof id === 'number' && Number.isFinite(id) ? String(id) : id;
		if (typeof formId !== 'string' || formId === '') continue;
		forms.push({
			id: formId,
			title: typeof title === 'string' ? title : undefined,
			responseCount: typeof responseCount === 'number' ? responseCount : undefined,
			updatedAt: typeof updatedAt === 'string' ? updatedAt : undefined,
		});
	}
	// Not one form with an id: this is no list of forms, and taking it as one would look like
	// every form went away.
	if (list.length && !forms.length) return undefined;
	return forms;
}

/**
 * The first poll: takes the service's clock as the activation moment, learns what already
 * exists, and emits nothing. Per form it reads the look-back window before that moment and
 * remembers what it holds as handled: those responses, and anything older, are never emitted.
 * Responses submitted after the moment are new, also those that arrive while this poll reads
 * (a rate limit waited out, another form read first). A form this poll cannot read whole
 * starts at the moment itself (`startedAt`). With Emit Existing Responses it starts reading
 * the existing responses instead (see readExisting).
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
	if (serviceNowMs === undefined && forms.length) serviceNowMs = await serviceClock(context, forms[0].id, allowance);
	const activatedAtMs = serviceNowMs ?? Date.now() - NO_SERVICE_CLOCK_MARGIN_MS;
	const state: TriggerState = { version: STATE_VERSION, scope, rev: 0, activatedAtMs, forms: {} };

	const { onActivation } = settings;
	if (onActivation.emit !== 'newOnly') {
		if (onActivation.emit === 'newest') {
			for (const form of forms) state.forms[form.id] = { ...startedAt(activatedAtMs, settings.lookBackMs), backfillOffset: 0 };
			state.backfill = { limit: onActivation.count, forms: forms.map((form) => form.id), window: 0, newest: [] };
		} else {
			// Every response from the date on: the normal reading does it, oldest first, over as
			// many polls as MAX_ITEMS_PER_POLL and the poll budget need.
			state.emitSinceMs = onActivation.sinceMs;
			for (const form of forms) state.forms[form.id] = fromDate(onActivation.sinceMs);
		}
		const { items, next } = await pollOnce(context, settings, state, listing, allowance);
		return { items, next: { ...next, rev: 0 } };
	}
	for (const form of forms) state.forms[form.id] = await startWatching(context, settings, form, activatedAtMs, 0, allowance);
	return { items: [], next: state };
}

/**
 * Where the trigger starts on a form, from the moment `atMs` (service clock): it reads the
 * look-back window before it and remembers what it holds as handled, so that nothing that
 * existed then is emitted and everything submitted later is. A form that cannot be read whole
 * now starts at the moment itself (`startedAt`), and is read from the next poll on.
 */
async function startWatching(
	context: IPollFunctions,
	settings: TriggerSettings,
	form: WatchedForm,
	atMs: number,
	rev: number,
	allowance: PollAllowance,
): Promise<FormCursor> {
	const atTheMoment = startedAt(atMs, settings.lookBackMs);
	// Nothing to read, and any response changes the count the next listing shows; the floor
	// keeps existing responses out should the count have been stale.
	if (form.responseCount === 0) return { ...atTheMoment, ...listedAs(form, rev, settings) };
	if (!allowance.mayRead()) return atTheMoment;
	const windowStart: FormCursor = { since: new Date(atMs - settings.lookBackMs - 1).toISOString(), seen: {} };
	const windowStartMs = Date.parse(windowStart.since);
	const existing: HandledVersion[] = [];
	const undated: string[] = [];
	let arrived = false;
	const read = await allowance.readForm(context, { formId: form.id, since: windowStart.since }, undefined, (page) => {
		for (const response of page) {
			const responseAtMs = submittedAtMs(response);
			if (responseAtMs !== undefined && responseAtMs < windowStartMs) continue;
			if (responseAtMs === undefined) undated.push(response.id);
			else if (responseAtMs <= atMs) existing.push({ id: response.id, atMs: responseAtMs });
			else arrived = true;
		}
	});
	// One form: the user sees at once why it cannot be read.
	if (read.failure !== undefined && settings.watch === 'form') throw read.failure;
	// Failed, cut short, or not proven whole: the form starts at the moment instead.
	if (read.failure !== undefined || read.cut || !read.proven) return atTheMoment;
	const cursor = advanceCursor(windowStart, { handled: existing, undated, fromStart: true, startedAtMs: read.startedAtMs }, settings);
	// A form that got responses after the moment is read at the next poll, whatever its listing says.
	return arrived ? cursor : { ...cursor, ...listedAs(form, rev, settings) };
}

/**
 * A cursor that emits every response submitted at or after `sinceMs`: the bound a millisecond
 * before it (whether the API's `since` is exclusive or not), the floor keeping out that millisecond.
 */
function fromDate(sinceMs: number): FormCursor {
	return { since: new Date(sinceMs - 1).toISOString(), seen: {}, floor: { atMs: sinceMs - 1, id: LAST_ID } };
}

/**
 * The service's clock, from the Date header of one small read of a form; the n8n host's clock
 * minus a margin when the service sends none.
 */
async function serviceClock(context: IPollFunctions, formId: string, allowance: PollAllowance): Promise<number> {
	const probe = await getResponsesPage.call(context, { formId, limit: 1, offset: 0, deadlineMs: allowance.deadline });
	allowance.onPage();
	return probe.serviceTimeMs ?? Date.now() - NO_SERVICE_CLOCK_MARGIN_MS;
}

/**
 * What one poll may still read: always one page, so that a tight budget still makes progress;
 * then pages while n8n's poll budget lasts, up to MAX_PAGES_PER_POLL and MAX_ITEMS_PER_POLL. Its deadline also bounds
 * every wait of the transport (a Retry-After longer than the budget ends the poll's reading).
 */
class PollAllowance {
	private pages = 0;
	private spent = false;
	/** Responses this poll is going to emit. */
	private items = 0;

	constructor(readonly deadline: number) {}

	mayRead(): boolean {
		if (this.pages === 0) return true;
		return (
			!this.spent &&
			this.pages < MAX_PAGES_PER_POLL &&
			this.items < MAX_ITEMS_PER_POLL &&
			Date.now() <= this.deadline
		);
	}

	readonly onItem = (): void => {
		this.items++;
	};

	readonly onPage = (): void => {
		this.pages++;
	};

	/**
	 * Reads a form's responses from `start` (the beginning of `since` when absent) while the
	 * allowance lasts, handing each page to `handle`, and proving with a Continuity that nothing
	 * is skipped between pages, nor since the read `start` resumes. A wait of the transport that
	 * would pass the deadline ends the poll's reading like the budget does; any other failure is
	 * returned with what was read before it.
	 */
	async readForm(
		context: IPollFunctions,
		query: ResponsesQuery,
		start: ResumePoint | undefined,
		handle: (responses: FormResponse[]) => void,
	): Promise<FormRead> {
		const offset = start ? Math.max(0, start.offset - RESUME_OVERLAP) : 0;
		const continuity = new Continuity(PAGE_OVERLAP, start?.anchors);
		let cut = false;
		let startedAtMs = start?.startedAtMs;
		let endOfPage = offset;
		// Until a page is handed over, a resumed read still stands where it was.
		let end = start?.offset ?? 0;
		const pages = iterateResponses.call(
			context,
			{ ...query, deadlineMs: this.deadline },
			{
				startOffset: offset,
				continuity,
				shouldStop: () => {
					if (this.mayRead()) return false;
					cut = true;
					return true;
				},
				onPage: (page, pageOffset) => {
					this.onPage();
					startedAtMs ??= page.serviceTimeMs;
					endOfPage = pageOffset + page.responses.length;
				},
			},
		);
		const readAll = async () => {
			for await (const page of pages) {
				handle(page);
				end = endOfPage;
			}
		};
		const failure = await readAll().then(
			() => undefined,
			(error: unknown) => error ?? new Error('The read failed'),
		);
		if (failure !== undefined && isDeadlineError(failure)) {
			this.spent = true;
			cut = true;
		}
		const read: FormRead = {
			end,
			cut,
			proven: continuity.proven,
			anchors: continuity.anchors,
			fromStart: offset === 0,
			startedAtMs,
		};
		if (failure !== undefined && !cut) read.failure = failure;
		return read;
	}
}

/** How one read of a form ended (see PollAllowance.readForm). */
interface FormRead {
	/** The offset after the last page handed over. */
	end: number;
	/** Stopped by the poll's page cap, budget or deadline before the end. */
	cut: boolean;
	/** Every page boundary found its anchor (see Continuity). */
	proven: boolean;
	/** What a read that goes on from `end` must find. */
	anchors: Anchor[];
	/** The read began at the start of `since`, so it saw every response the API returns. */
	fromStart: boolean;
	/** The service's clock when the read (or the first of the cut reads it goes on from) began. */
	startedAtMs?: number;
	failure?: unknown;
}

/**
 * Several forms: a read that did not complete counts as this poll's turn of the form all the same,
 * so that the forms read longest ago come first and a form that never completes (a long
 * backlog, a failure) never takes every poll's reading from the others.
 */
function triedAt(rev: number, settings: TriggerSettings): Partial<FormCursor> {
	return watchesSeveral(settings) ? { readAtRev: rev } : {};
}

/** Several forms: what the listing said about a form when its read began, and when that was. */
function listedAs(form: WatchedForm, rev: number, settings: TriggerSettings): Partial<FormCursor> {
	if (!watchesSeveral(settings)) return {};
	return { listedCount: form.responseCount, listedUpdatedAt: form.updatedAt, readAtRev: rev };
}

/** A form whose failures are due to be reported as an error of the workflow. */
interface FormFailure {
	formId: string;
	error: Error;
}

/** A later poll: everything after each form's cursor that was not handled yet, oldest first. */
async function pollOnce(
	context: IPollFunctions,
	settings: TriggerSettings,
	state: TriggerState,
	listing: Listing,
	allowance: PollAllowance,
): Promise<{ items: INodeExecutionData[]; next: TriggerState; failingForm?: FormFailure }> {
	const next: TriggerState = { ...state, rev: state.rev + 1, forms: { ...state.forms } };
	if (next.backfill) {
		await readExisting(context, settings, next, listing, allowance);
		if (next.backfill) return { items: [], next };
	}
	if (settings.watch === 'allForms') keepUnlistedForms(next, listing);

	const fresh: Candidate[] = [];
	let failingForm: FormFailure | undefined;
	let failedInARow = 0;
	for (const form of formsToRead(next, listing, settings)) {
		// Forms failing one after the other (the service is struggling): the rest wait for the
		// next poll rather than add to the load.
		if (!allowance.mayRead() || failedInARow >= MAX_FAILED_READS_IN_A_ROW) break;
		// A form that appeared after activation: all of its responses are new (or since the date asked for).
		const cursor =
			next.forms[form.id] ??
			(state.emitSinceMs === undefined ? startedAt(state.activatedAtMs, settings.lookBackMs) : fromDate(state.emitSinceMs));
		const handled: HandledVersion[] = [];
		const undated: string[] = [];
		const sinceMs = Date.parse(cursor.since);
		const read = await allowance.readForm(context, { formId: form.id, since: cursor.since }, cursor.resume, (page) => {
			for (const response of page) {
				const atMs = submittedAtMs(response);
				// Before the bound: a server that compares `since` coarsely (or not at all) returns
				// responses the window has let go of, and that may have been emitted long ago.
				if (atMs !== undefined && atMs < sinceMs) continue;
				if (atMs === undefined) {
					undated.push(response.id);
					if (isNewUndated(cursor, response.id)) {
						fresh.push(withForm({ id: response.id, atMs: UNDATED_ORDER, response }, form, settings));
						allowance.onItem();
					}
					continue;
				}
				handled.push({ id: response.id, atMs });
				if (isNewVersion(cursor, response.id, atMs, settings)) {
					fresh.push(withForm({ id: response.id, atMs, response }, form, settings));
					allowance.onItem();
				}
			}
		});
		if (read.failure !== undefined && settings.watch === 'form') throw read.failure;
		const failure = read.failure;
		const readOfForm: ReadOfForm = { handled, undated, fromStart: read.fromStart, startedAtMs: read.startedAtMs };
		const goOn = (resume: ResumePoint): ResumePoint =>
			read.startedAtMs === undefined ? resume : { ...resume, startedAtMs: read.startedAtMs };
		if (failure !== undefined) {
			// One form failing never holds up the others: what it read is remembered, and it is
			// read again from where it was on the next poll.
			const failedPolls = (cursor.failedPolls ?? 0) + 1;
			next.forms[form.id] = {
				...rememberHandled(cursor, readOfForm, cursor.resume ?? { offset: 0, anchors: [] }),
				...triedAt(next.rev, settings),
				failedPolls,
			};
			if (!cursor.resume) delete next.forms[form.id].resume;
			const error = errorForFailingForm(context, settings, form, failure, failedPolls);
			warn(context, `${error.message} (${failedPolls} polls in a row); the other forms go on.`);
			const reportedAt = cursor.failureReportedAt;
			const gone = form.unlisted && httpCodeOf(failure) === '404';
			const due =
				failedPolls >= (gone ? GONE_FORM_FAILURES_REPORTED : FORM_FAILURES_REPORTED) &&
				(reportedAt === undefined || failedPolls - reportedAt >= FORM_FAILURES_REPORTED_AGAIN);
			if (due) failingForm ??= { formId: form.id, error };
			// A denied or missing form costs one request; a struggling service costs retries.
			if (isTransientError(failure)) failedInARow++;
			continue;
		}
		failedInARow = 0;
		let updated: FormCursor;
		if (read.cut) {
			updated = { ...rememberHandled(cursor, readOfForm, goOn({ offset: read.end, anchors: read.anchors })), ...triedAt(next.rev, settings) };
		} else if (!read.proven) {
			// Responses before where the read went on were deleted or moved: read again from the start.
			updated = { ...rememberHandled(cursor, readOfForm, goOn({ offset: 0, anchors: [] })), ...triedAt(next.rev, settings) };
		} else {
			updated = { ...advanceCursor(cursor, readOfForm, settings), ...listedAs(form, next.rev, settings) };
		}
		delete updated.failedPolls;
		delete updated.failureReportedAt;
		next.forms[form.id] = updated;
	}
	fresh.sort(compareOldestFirst);
	return { items: fresh.map((candidate) => toItem(candidate, settings)), next, failingForm };
}

/** Words for a form of several that cannot be read, naming it. */
function errorForFailingForm(
	context: IPollFunctions,
	settings: TriggerSettings,
	form: WatchedForm,
	failure: unknown,
	failedPolls: number,
): NodeOperationError {
	const name = form.title ? `"${form.title}" (${form.id})` : `"${form.id}"`;
	const status = httpCodeOf(failure);
	const cause = failure instanceof Error ? failure.message : String(failure);
	let message: string;
	let description: string;
	if (status === '404' && settings.watch === 'selectedForms') {
		message = `Selected form ${name} could not be found`;
		description = form.unlisted
			? 'It is not in the list of your forms either: it may have been deleted, or the ID may be wrong. Remove it from "Form Names or IDs" (or fix its ID). The trigger goes on with the other selected forms.'
			: 'It may have been deleted since the list of forms was read. The trigger goes on with the other selected forms and tries this one again on every poll.';
	} else if (status === '404') {
		message = `Form ${name} could not be found`;
		description = 'It may have been deleted since the list of forms was read. The trigger goes on with the other forms and stops trying this one once it is no longer listed.';
	} else if (status === '403') {
		message = `Access to form ${name} was denied`;
		description = "The API key's account may no longer be a member of the team that owns the form. The trigger goes on with the other forms and tries this one again on every poll.";
	} else {
		message = `Form ${name} could not be read: ${cause}`;
		description = 'The trigger goes on with the other forms and tries this one again on every poll.';
	}
	return new NodeOperationError(context.getNode(), message, {
		description: `${description} It has failed on ${failedPolls} polls in a row; its responses are not lost, they are emitted once it can be read again.`,
	});
}

/**
 * Several forms: which forms this poll reads. A form is read when the listing shows a change
 * (responseCount or updatedAt differ from before its last read), when it is new or its last
 * read was cut short; forms that look unchanged are read in rotation (SWEEP_POLLS). The forms
 * unread longest come first, so a poll budget that stops early never starves a form.
 */
function formsToRead(state: TriggerState, listing: Listing, settings: TriggerSettings): WatchedForm[] {
	if (settings.watch === 'form') return listing.forms;
	const lastRead = (form: WatchedForm) => state.forms[form.id]?.readAtRev ?? -1;
	// Forms that failed last time come after the others: they never stand in the others' way.
	const failing = (form: WatchedForm) => (state.forms[form.id]?.failedPolls ? 1 : 0);
	const byLongestUnread = (a: WatchedForm, b: WatchedForm) =>
		failing(a) - failing(b) || lastRead(a) - lastRead(b) || (a.id < b.id ? -1 : 1);
	const changed: WatchedForm[] = [];
	const unchanged: WatchedForm[] = [];
	for (const form of listing.forms) {
		const cursor = state.forms[form.id];
		const looksUnchanged =
			cursor !== undefined &&
			cursor.resume === undefined &&
			cursor.failedPolls === undefined &&
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

function httpCodeOf(failure: unknown): unknown {
	return failure && typeof failure === 'object' ? (failure as { httpCode?: unknown }).httpCode : undefined;
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
	settings: TriggerSettings,
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
			const leaveOut = () => {
				progress.forms = progress.forms.filter((id) => id !== formId);
				state.forms[formId] = { since: cursor.since, seen: {}, floor: { atMs: state.activatedAtMs, id: LAST_ID } };
			};
			if (!listed.has(formId)) {
				// Gone from the listing: its existing responses are left out, its new ones still count.
				leaveOut();
				continue;
			}
			if (!allowance.mayRead()) break;
			// Choosing the newest existing ones needs no proof of continuity: what they choose is
			// only where emitting starts, and everything after it is read by the cursor.
			const start = cursor.backfillOffset > 0 ? { offset: cursor.backfillOffset, anchors: [] } : undefined;
			const read = await allowance.readForm(context, { formId, since }, start, (page) => {
				for (const response of page) {
					const atMs = submittedAtMs(response);
					// Responses after activation are new ones, emitted in any case.
					if (atMs !== undefined && atMs <= state.activatedAtMs) {
						newest.set(`${formId}/${response.id}`, [formId, response.id, atMs]);
					}
				}
				keepNewestExisting(false);
			});
			if (read.failure !== undefined) {
				// A form that is missing or denied never holds up the others' existing responses:
				// its own are left out, its new ones count once it can be read.
				if (isTransientError(read.failure) || settings.watch === 'form') throw read.failure;
				leaveOut();
				continue;
			}
			const reread: FormCursor = { ...cursor, backfillOffset: read.end };
			if (!read.cut) delete reread.backfillOffset;
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
	if (!watchesSeveral(settings)) return candidate;
	return { ...candidate, response: { ...candidate.response, formId: form.id, formTitle: form.title ?? null } };
}

function toItem(candidate: Candidate, settings: TriggerSettings): INodeExecutionData {
	return { json: formatResponse(candidate.response, settings.outputMode) };
}

/**
 * "Fetch Test Event": the newest response, without touching the trigger's state. One page of
 * each form holds all of a small form; for a form with more, growing windows of recent time
 * find its newest (the API's order is not guaranteed). With All Forms only the forms the
 * listing shows changed last are asked, so the cost does not grow with the number of forms.
 */
async function sampleNewest(
	context: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][]> {
	const listing = await listWatchedForms(context, settings);
	let serviceNowMs = listing.serviceNowMs;
	let best: Candidate | undefined;
	const consider = (responses: FormResponse[], form: WatchedForm) => {
		for (const response of responses) {
			const candidate = withForm({ id: response.id, atMs: submittedAtMs(response) ?? 0, response }, form, settings);
			if (!best || compareOldestFirst(candidate, best) > 0) best = candidate;
		}
	};
	const larger: WatchedForm[] = [];
	let failure: unknown;
	for (const form of formsToSample(listing.forms)) {
		const page = await getResponsesPage.call(context, { formId: form.id, limit: MAX_PAGE_SIZE, offset: 0 }).then(
			(answer) => answer,
			(error: unknown) => {
				// One form of several that cannot be read does not keep the others from showing one.
				failure ??= error ?? new Error('The read failed');
				return undefined;
			},
		);
		if (!page) {
			if (settings.watch === 'form') break;
			continue;
		}
		serviceNowMs ??= page.serviceTimeMs;
		consider(page.responses, form);
		if (page.hasMore) larger.push(form);
	}
	for (const windowMs of SAMPLE_WINDOWS_MS) {
		if (!larger.length || serviceNowMs === undefined) break;
		const sinceMs = serviceNowMs - windowMs;
		for (const form of larger) {
			const since = new Date(sinceMs).toISOString();
			const page = await getResponsesPage.call(context, { formId: form.id, since, limit: MAX_PAGE_SIZE, offset: 0 });
			consider(page.responses, form);
		}
		// Anything newer than what was found lies in this window, and was read.
		if (best && best.atMs >= sinceMs) break;
	}
	if (!best && failure !== undefined) throw asNodeError(context.getNode(), failure);
	if (!best) {
		throw new NodeOperationError(
			context.getNode(),
			{
				form: 'This form has no responses yet',
				selectedForms: 'None of the selected forms has any responses yet',
				allForms: 'None of your forms has any responses yet',
			}[settings.watch],
			{ description: 'Submit a response to the form, then click "Fetch Test Event" again.' },
		);
	}
	return [[toItem(best, settings)]];
}

/** Several forms: those with responses that the listing shows changed last (see SAMPLED_FORMS). */
function formsToSample(forms: WatchedForm[]): WatchedForm[] {
	const changedMs = (form: WatchedForm) => (form.updatedAt ? Date.parse(form.updatedAt) || 0 : 0);
	return forms
		.filter((form) => form.responseCount !== 0)
		.sort((a, b) => changedMs(b) - changedMs(a) || (b.responseCount ?? 0) - (a.responseCount ?? 0))
		.slice(0, SAMPLED_FORMS);
}
