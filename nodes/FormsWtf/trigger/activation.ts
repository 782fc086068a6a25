/**
 * The first poll: the activation moment, what already exists on each form, and where each form's
 * cursor starts (only new responses, the newest N, or every response since a date). Also a form
 * added to the selection later.
 */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { isTransientError } from '../shared/transport/errors';
import { getResponsesPage } from '../shared/transport/paging';
import type { HandledVersion } from './cursor';
import { advanceCursor, submittedAtMs } from './cursor';
import type { FormCursor, TriggerState } from './state';
import { fromDate, startedAt, STATE_VERSION } from './state';
import type { PollAllowance } from './allowance';
import { listedAs } from './formsToRead';
import type { Listing, WatchedForm } from './listing';
import { pollOnce } from './newResponses';
import type { TriggerSettings } from './settings';

/** Without a Date header from the service, how far back the first poll looks. */
const NO_SERVICE_CLOCK_MARGIN_MS = 60 * 60 * 1000;

/** Forms asked for the service's clock at most, when the list of forms sends none. */
const CLOCK_PROBES = 3;

/**
 * Selected Forms: a form taken out of the selection is forgotten; a form added to it starts
 * now, as at an activation (see startWatching).
 */
export async function followSelection(
	settings: TriggerSettings,
	state: TriggerState,
	listing: Listing,
	restartAtNow: string[],
	allowance: PollAllowance,
): Promise<void> {
	const selected = new Set(settings.formIds);
	for (const formId of Object.keys(state.forms))
		if (!selected.has(formId)) delete state.forms[formId];
	const added = listing.forms.filter(
		(form) => !state.forms[form.id] && !restartAtNow.includes(form.id),
	);
	if (!added.length) return;
	const nowMs =
		listing.serviceNowMs ??
		(await serviceClock(
			added.map((form) => form.id),
			allowance,
		));
	for (const form of added)
		state.forms[form.id] = await startWatching(settings, form, nowMs, state.rev, allowance);
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
export async function activate(
	context: IPollFunctions,
	settings: TriggerSettings,
	scope: string,
	listing: Listing,
	allowance: PollAllowance,
): Promise<{ items: INodeExecutionData[]; next: TriggerState }> {
	const { forms } = listing;
	let serviceNowMs = listing.serviceNowMs;
	if (serviceNowMs === undefined && forms.length)
		serviceNowMs = await serviceClock(
			forms.map((form) => form.id),
			allowance,
		);
	const activatedAtMs = serviceNowMs ?? Date.now() - NO_SERVICE_CLOCK_MARGIN_MS;
	const state: TriggerState = { version: STATE_VERSION, scope, rev: 0, activatedAtMs, forms: {} };

	const { onActivation } = settings;
	if (onActivation.emit !== 'newOnly') {
		if (onActivation.emit === 'newest') {
			for (const form of forms)
				state.forms[form.id] = {
					...startedAt(activatedAtMs, settings.lookBackMs),
					backfillOffset: 0,
				};
			state.backfill = {
				limit: onActivation.count,
				forms: forms.map((form) => form.id),
				window: 0,
				newest: [],
			};
		} else {
			// Every response from the date on: the normal reading does it, oldest first, over as
			// many polls as MAX_ITEMS_PER_POLL and the poll budget need.
			state.emitSinceMs = onActivation.sinceMs;
			for (const form of forms) state.forms[form.id] = fromDate(onActivation.sinceMs);
		}
		const { items, next } = await pollOnce(context, settings, state, listing, allowance);
		return { items, next: { ...next, rev: 0 } };
	}
	for (const form of forms)
		state.forms[form.id] = await startWatching(settings, form, activatedAtMs, 0, allowance);
	return { items: [], next: state };
}

/**
 * Where the trigger starts on a form, from the moment `atMs` (service clock): it reads the
 * look-back window before it and remembers what it holds as handled, so that nothing that
 * existed then is emitted and everything submitted later is. A form that cannot be read whole
 * now starts at the moment itself (`startedAt`), and is read from the next poll on.
 */
async function startWatching(
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
	const windowStart: FormCursor = {
		since: new Date(atMs - settings.lookBackMs - 1).toISOString(),
		seen: {},
	};
	const windowStartMs = Date.parse(windowStart.since);
	const existing: HandledVersion[] = [];
	const undated: string[] = [];
	let arrived = false;
	const read = await allowance.readForm(
		{ formId: form.id, since: windowStart.since },
		undefined,
		(page) => {
			for (const response of page) {
				const responseAtMs = submittedAtMs(response);
				if (responseAtMs !== undefined && responseAtMs < windowStartMs) continue;
				if (responseAtMs === undefined) undated.push(response.id);
				else if (responseAtMs <= atMs) existing.push({ id: response.id, atMs: responseAtMs });
				else arrived = true;
			}
		},
	);
	// One form: the user sees at once why it cannot be read.
	if (read.failure !== undefined && settings.watch === 'form') throw read.failure;
	// Failed, cut short, or not proven whole: the form starts at the moment instead.
	if (read.failure !== undefined || read.cut || !read.proven) return atTheMoment;
	const cursor = advanceCursor(
		windowStart,
		{ handled: existing, undated, fromStart: true, startedAtMs: read.startedAtMs },
		settings,
	);
	// A form that got responses after the moment is read at the next poll, whatever its listing says.
	return arrived ? cursor : { ...cursor, ...listedAs(form, rev, settings) };
}

/**
 * The service's clock, from the Date header of one small read of the first of these forms that
 * answers (a missing or denied form is passed over while others are left); the n8n host's clock
 * minus a margin when the service sends none.
 */
export async function serviceClock(formIds: string[], allowance: PollAllowance): Promise<number> {
	// A form that is missing or denied says nothing of the clock: the next one is asked. When no
	// form is left to ask, its failure is the poll's (One Form: the user sees at once why).
	const asked = formIds.slice(0, CLOCK_PROBES);
	for (const [index, formId] of asked.entries()) {
		const probe = await getResponsesPage(allowance.client, {
			formId,
			limit: 1,
			offset: 0,
			deadlineMs: allowance.deadline,
		}).then(
			(page) => page,
			(error: unknown) => ({ error }),
		);
		allowance.onPage();
		if ('error' in probe) {
			if (isTransientError(probe.error) || index === asked.length - 1) throw probe.error;
			continue;
		}
		if (probe.serviceTimeMs !== undefined) return probe.serviceTimeMs;
		break;
	}
	return Date.now() - NO_SERVICE_CLOCK_MARGIN_MS;
}
