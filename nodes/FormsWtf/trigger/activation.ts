/**
 * The first poll: the activation moment, what already exists on each form, and where each form's
 * cursor starts (only new responses, the newest N, or every response since a date). Also a form
 * added to the selection later.
 */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { isTransientError } from '../shared/transport/errors';
import { getResponsesPage } from '../shared/transport/paging';
import type { TriggerState } from './state';
import { fromDate, startedAt, STATE_VERSION } from './state';
import type { PollAllowance } from './allowance';
import { startChoice } from './existing';
import { listedAs } from './formsToRead';
import type { Listing, WatchedForm } from './listing';
import type { FormFailure } from './newResponses';
import { pollOnce } from './newResponses';
import type { TriggerSettings } from './settings';

/** Forms asked for the service's clock at most, when the list of forms sends none. */
const CLOCK_PROBES = 3;

/**
 * Selected Forms: a form taken out of the selection is forgotten; a form added to it starts
 * now, as at an activation (see watchFrom). Returns the forms whose read this poll only learns
 * what exists.
 */
export function followSelection(
	settings: TriggerSettings,
	state: TriggerState,
	listing: Listing,
	restartAtNow: string[],
): Set<string> {
	const selected = new Set(settings.formIds);
	for (const formId of Object.keys(state.forms))
		if (!selected.has(formId)) delete state.forms[formId];
	const added = listing.forms.filter(
		(form) => !state.forms[form.id] && !restartAtNow.includes(form.id),
	);
	if (!added.length) return new Set();
	return watchFrom(settings, state, added, listing.serviceNowMs ?? hostClock(listing.askedAtMs));
}

/**
 * The first poll: takes the service's clock as the activation moment and starts each form's
 * cursor for what On Activation asks: only new responses (see watchFrom), the newest N
 * existing ones (a choice, see existing.ts), or every response since a date. Then the same
 * reader as every later poll reads them (pollOnce).
 */
export async function activate(
	context: IPollFunctions,
	settings: TriggerSettings,
	scope: string,
	listing: Listing,
	allowance: PollAllowance,
): Promise<{ items: INodeExecutionData[]; next: TriggerState; failingForms: FormFailure[] }> {
	const { forms } = listing;
	// One Form has no list of forms to date the activation: its form is asked, and its failure is
	// the poll's, as its read's would be. A list of forms without a Date header says the service
	// sends none: asking a form would learn nothing, and its failure would hold up the others.
	const activatedAtMs =
		listing.serviceNowMs ??
		(settings.watch === 'form'
			? await serviceClock([forms[0].id], allowance)
			: hostClock(listing.askedAtMs));
	const state: TriggerState = { version: STATE_VERSION, scope, rev: 0, activatedAtMs, forms: {} };

	const { onActivation } = settings;
	let learning = new Set<string>();
	if (onActivation.emit === 'newest') {
		// What this poll's reads see is existing, also in the activation's own second.
		learning = new Set(forms.map((form) => form.id));
		startChoice(state, [...learning], onActivation.count);
	} else if (onActivation.emit === 'since') {
		// Every response from the date on: the normal reading does it, oldest first, over as
		// many polls as MAX_ITEMS_PER_POLL and the poll budget need.
		state.emitSinceMs = onActivation.sinceMs;
		for (const form of forms)
			state.forms[form.id] = fromDate(onActivation.sinceMs, activatedAtMs, settings.lookBackMs);
	} else {
		learning = watchFrom(settings, state, forms, activatedAtMs);
	}
	const { items, next, failingForms } = await pollOnce(
		context,
		settings,
		state,
		listing,
		allowance,
		learning,
	);
	return { items, next: { ...next, rev: 0 }, failingForms };
}

/**
 * Where the trigger starts on forms, from the service's clock `atMs` (the whole second of a
 * Date header): existing is what this poll's read of the form sees, and anything submitted
 * before that second began (the floor); everything else is new. The read itself is the normal
 * one (pollOnce), told only to learn: a form it cannot read whole keeps what it read and its
 * floor, and is read from the next poll on like any other. Returns those forms.
 */
function watchFrom(
	settings: TriggerSettings,
	state: TriggerState,
	forms: WatchedForm[],
	atMs: number,
): Set<string> {
	const learning = new Set<string>();
	for (const form of forms) {
		const cursor = startedAt(atMs - 1, settings.lookBackMs);
		// Nothing to read, and any response changes the count the next listing shows; the floor
		// keeps existing responses out should the count have been stale.
		if (form.responseCount === 0)
			state.forms[form.id] = { ...cursor, ...listedAs(form, state.rev, settings) };
		else {
			state.forms[form.id] = cursor;
			learning.add(form.id);
		}
	}
	return learning;
}

/**
 * Without a Date header from the service: the n8n host's clock stands in for it. Taken a margin
 * early, it made every response of that margin new whenever the activation's read could not see
 * it whole (a failed or cut read, a poll spent on the clock probe): responses from before
 * activation were emitted. Its whole second, as a Date header gives it: what the activation's
 * read sees is existing, and so is what was submitted before that second. The first read still
 * looks back the look-back window, so a host clock ahead of the service by less than that loses
 * nothing once that read completes.
 */
function hostClock(askedAtMs: number): number {
	return Math.floor(askedAtMs / 1000) * 1000;
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
	// The host's clock when the probe that answers was sent: a Date header would date that answer.
	let askedAtMs = Date.now();
	for (const [index, formId] of asked.entries()) {
		askedAtMs = Date.now();
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
	return hostClock(askedAtMs);
}
