/**
 * Several forms: which forms a poll reads (those the listing shows changed, the rest in rotation),
 * and how forms missing from the listing are kept.
 */
import { without } from './cursor';
import type { FormCursor, TriggerState } from './state';
import type { Listing, WatchedForm } from './listing';
import type { TriggerSettings } from './settings';
import { watchesSeveral } from './settings';
import { DAY_MS } from './time';

/**
 * All Forms: a form the listing lacks keeps its cursor this long (service clock), so that a
 * listing glitch or a team membership that comes back emits nothing twice. After that the
 * form counts as gone; listed again, it is a new form (its responses since activation are emitted).
 */
const KEEP_UNLISTED_FORM_MS = 30 * DAY_MS;

/**
 * All Forms: a form the listing shows unchanged (same responseCount and updatedAt) is still
 * read once every SWEEP_POLLS polls, so that updated responses and a response added while
 * another was deleted are caught. Each poll reads at most MAX_SWEEP_READS such forms, the
 * longest unread first: every form is read at least once every SWEEP_POLLS + ceil(forms /
 * min(MAX_SWEEP_READS, ceil(forms / SWEEP_POLLS))) polls (20 polls up to 100 forms).
 */
export const SWEEP_POLLS = 10;

const MAX_SWEEP_READS = 10;

/**
 * Several forms: a read that did not complete counts as this poll's turn of the form all the same,
 * so that the forms read longest ago come first and a form that never completes (a long
 * backlog, a failure) never takes every poll's reading from the others.
 */
export function triedAt(rev: number, settings: TriggerSettings): Partial<FormCursor> {
	return watchesSeveral(settings) ? { readAtRev: rev } : {};
}

/** Several forms: what the listing said about a form when its read began, and when that was. */
export function listedAs(
	form: WatchedForm,
	rev: number,
	settings: TriggerSettings,
): Partial<FormCursor> {
	if (!watchesSeveral(settings)) return {};
	return { listedCount: form.responseCount, listedUpdatedAt: form.updatedAt, readAtRev: rev };
}

/**
 * Several forms: which forms this poll reads. A form is read when the listing shows a change
 * (responseCount or updatedAt differ from before its last read), when it is new or its last
 * read was cut short; forms that look unchanged are read in rotation (SWEEP_POLLS). The forms
 * unread longest come first, changed or due in rotation alike, so a poll budget that stops
 * early never starves a form.
 */
export function formsToRead(
	state: TriggerState,
	listing: Listing,
	settings: TriggerSettings,
): WatchedForm[] {
	if (settings.watch === 'form') return listing.forms;
	const lastRead = (form: WatchedForm) => state.forms[form.id]?.readAtRev ?? -1;
	// A form in a run of polls without progress that was read on the poll before comes after the
	// others, so that it never stands in their way; on any later poll it comes first, so that it
	// is read again (and named if it still fails) before its 5th poll without progress, however
	// many healthy forms have backlogs (see pollOnce for which forms not reached count).
	// (`state` is the poll's next state: its rev is one more than the stored one, which the poll
	// before wrote into `readAtRev` of the forms it read.)
	const turn = (form: WatchedForm) => {
		if (!state.forms[form.id]?.failedPolls) return 1;
		return lastRead(form) >= state.rev - 1 ? 2 : 0;
	};
	const byLongestUnread = (a: WatchedForm, b: WatchedForm) =>
		turn(a) - turn(b) || lastRead(a) - lastRead(b) || (a.id < b.id ? -1 : 1);
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
	const due = unchanged
		.filter((form) => state.rev - lastRead(form) >= SWEEP_POLLS)
		.sort(byLongestUnread);
	// One order for both: a form the listing shows changed on every poll must not keep a form
	// due in rotation from its read when a poll has time for one read only.
	return [...changed, ...due.slice(0, sweep)].sort(byLongestUnread);
}

/** All Forms: a form missing from the listing keeps its cursor for KEEP_UNLISTED_FORM_MS. */
export function keepUnlistedForms(state: TriggerState, listing: Listing): void {
	const nowMs = listing.serviceNowMs ?? Date.now();
	const listed = new Set(listing.forms.map((form) => form.id));
	for (const [formId, cursor] of Object.entries(state.forms)) {
		if (listed.has(formId)) {
			if (cursor.unlistedSinceMs !== undefined)
				state.forms[formId] = without(cursor, 'unlistedSinceMs');
		} else if (cursor.unlistedSinceMs === undefined) {
			state.forms[formId] = { ...cursor, unlistedSinceMs: nowMs };
		} else if (nowMs - cursor.unlistedSinceMs > KEEP_UNLISTED_FORM_MS) {
			delete state.forms[formId];
		}
	}
}
